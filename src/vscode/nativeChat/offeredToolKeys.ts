import * as vscode from 'vscode';
import { BUILTIN_NAMES } from '../../tools/manifest';
import type { WorkspaceTools } from '../workspaceTools';
import { offeredContextKey } from './lmToolEntries';
import { availabilityOf, type Availability } from './toolAvailability';
import { Disposables, DisposableStore } from '../dispose';

/** Where the state of the workspace's tools is read; WorkspaceTools is one. */
export type ToolsView = Pick<WorkspaceTools, 'manager' | 'onDidChange' | 'trusted'>;

export function availabilityIn(tools: ToolsView, tool: string): Availability {
  const registry = tools.manager.registry;
  return availabilityOf(tool, { registered: registry.hasTool(tool), enabled: registry.isToolEnabled(tool), trusted: tools.trusted });
}

/**
 * What the keys follow: the workspace's tools once the host runs (`toolsOffer`), the settings
 * before it does (presence.ts `settingsOffer`).
 */
export interface OfferSource {
  availability(tool: string): Availability;
  onDidChange(listener: () => void): vscode.Disposable;
}

export function toolsOffer(tools: ToolsView): OfferSource {
  return { availability: (tool) => availabilityIn(tools, tool), onDidChange: (listener) => tools.onDidChange(listener) };
}

/**
 * Keeps one context key per builtin (`toolbelt.tool.<name>.offered`) equal to whether the
 * workspace offers it: the `when` clauses of `contributes.languageModelTools` read them, so the
 * agents' tool lists follow every settings edit, tree checkbox and trust change as it happens.
 */
export class OfferedToolKeys extends Disposables {
  private readonly sent = new Map<string, boolean>();
  /** The listener on the source followed now. */
  private readonly sourceChanged = this.register(new DisposableStore());

  constructor(
    private source: OfferSource,
    private readonly log: Pick<vscode.LogOutputChannel, 'warn'>,
  ) {
    super();
    this.sourceChanged.add(source.onDidChange(() => this.update()));
    this.register(vscode.workspace.onDidGrantWorkspaceTrust(() => this.update()));
    this.update();
  }

  /** Follows `source` from now on: the host hands over its tools here once it has loaded. */
  follow(source: OfferSource): void {
    this.sourceChanged.clear();
    this.source = source;
    if (!this.isDisposed) this.sourceChanged.add(source.onDidChange(() => this.update()));
    this.update();
  }

  /** What the context keys were last set to (a test seam: VS Code has no API to read them back). */
  sentValues(): Record<string, boolean> {
    return Object.fromEntries(this.sent);
  }

  /** The names offered now. */
  offered(): string[] {
    return BUILTIN_NAMES.filter((name) => this.source.availability(name) === 'offered');
  }

  update(): void {
    const offered = new Set(this.offered());
    for (const name of BUILTIN_NAMES) {
      const value = offered.has(name);
      if (this.sent.get(name) === value) continue;
      this.sent.set(name, value);
      vscode.commands.executeCommand('setContext', offeredContextKey(name), value).then(undefined, (error: unknown) => {
        this.sent.delete(name);
        this.log.warn(`Could not tell VS Code whether ${name} is offered to models: ${String(error)}`);
      });
    }
  }
}
