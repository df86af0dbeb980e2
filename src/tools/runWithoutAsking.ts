import { toolDefinitionHash } from './mcp';
import type { ExternalCatalogTool } from './toolCatalog';
import { modelNameFor } from './toolNames';

/**
 * Where the person's "run without asking" choices live (the extension keeps them per workspace),
 * keyed by catalog name: the definition hash (toolDefinitionHash) each was given for, or
 * undefined for none. A value that is no hash (a choice kept before hashes were) matches no tool.
 */
export interface ApprovalStore {
  /** `definitionHash` is the tool's current one, where known: a store may pin the first it sees (approvedOnFirstSight). */
  get(name: string, definitionHash?: string): string | undefined;
  set(name: string, definitionHash: string | undefined): void;
}

/**
 * Choices made before any definition is known (`toolbelt --run-without-asking NAME`, NAME a
 * catalog name or the name the model sees): each grant holds for the one tool it first matches, in
 * the definition that tool has when first listed. A later change asks again, and so does another
 * tool that comes to match the same grant (`srv/x_y` renamed `srv/x.y`: both are `srv_x_y` to a
 * model), since the grant was given for the tool listed, not for the name.
 */
export function approvedOnFirstSight(grants: ReadonlySet<string>): ApprovalStore {
  const pinned = new Map<string, { name: string; definitionHash: string }>();
  return {
    get: (name, definitionHash) => {
      const matching = [...grants].filter((grant) => grant === name || grant === modelNameFor(name));
      if (matching.length === 0) return undefined;
      if (definitionHash !== undefined) for (const grant of matching) if (!pinned.has(grant)) pinned.set(grant, { name, definitionHash });
      const pins = matching.flatMap((grant) => pinned.get(grant) ?? []);
      const own = pins.filter((pin) => pin.name === name);
      if (own.length === 0) return pins.length > 0 ? 'chosen for another tool of that name' : 'chosen before the tool was listed';
      return (own.find((pin) => pin.definitionHash === definitionHash) ?? own[0]).definitionHash;
    },
    set: () => undefined,
  };
}

/** How a tool from outside stands with the person's choice. */
export interface RunWithoutAskingState {
  runWithoutAsking: boolean;
  /** Chosen for another definition of the tool: it asks again until the person chooses anew. */
  lapsed: boolean;
}

export interface LapseLogger {
  warn(message: string): void;
}

/**
 * "Run without asking", bound to what the person saw: the tool's name, description and input
 * schema. A tool whose definition changes afterwards asks again (and says so once in the log);
 * the choice is kept, so a definition that changes back runs without asking again.
 */
export class RunWithoutAsking {
  private readonly hashes = new WeakMap<ExternalCatalogTool, string>();
  private readonly lapsesLogged = new Set<string>();

  constructor(
    private readonly store: ApprovalStore,
    private readonly logger?: LapseLogger,
  ) {}

  /** The tool's definition hash (computed once per catalog entry). */
  hashOf(tool: ExternalCatalogTool): string {
    let hash = this.hashes.get(tool);
    if (hash === undefined) {
      hash = toolDefinitionHash(tool);
      this.hashes.set(tool, hash);
    }
    return hash;
  }

  /** Read at each call: whether this definition of the tool may run without asking. */
  allows(tool: ExternalCatalogTool): boolean {
    const hash = this.hashOf(tool);
    return this.store.get(tool.name, hash) === hash;
  }

  state(tool: ExternalCatalogTool): RunWithoutAskingState {
    const hash = this.hashOf(tool);
    const chosen = this.store.get(tool.name, hash);
    return { runWithoutAsking: chosen === hash, lapsed: chosen !== undefined && chosen !== hash };
  }

  /** A registered name whose tool is not known yet: whether a choice is kept for it (checked once it runs). */
  chosen(name: string): boolean {
    return this.store.get(name) !== undefined;
  }

  approve(tool: ExternalCatalogTool): void {
    this.store.set(tool.name, this.hashOf(tool));
  }

  revoke(name: string): void {
    this.store.set(name, undefined);
  }

  /** Says in the log, once per definition, that a tool asks again because it changed. */
  noteLapse(tool: ExternalCatalogTool): void {
    if (!this.state(tool).lapsed) return;
    const key = `${tool.name}\u0000${this.hashOf(tool)}`;
    if (this.lapsesLogged.has(key)) return;
    this.lapsesLogged.add(key);
    this.logger?.warn(
      `"${tool.name}" asks before each call again: its definition (name, description or input schema) is not the one "run without asking" was chosen for. ` +
        'Choose "run without asking" again to let this definition run unasked.',
    );
  }
}
