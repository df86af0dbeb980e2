import { createBuiltinTool } from './factory';
import type { ExecutableTool } from './interface';
import { BUILTIN_NAMES } from './manifest';
import { ToolRegistry, type ToolRegistryOptions } from './registry';
import { descriptionOverride, kindOf, readEntry, REGISTRY_SETTING, warnAboutExtraFields, type RegistryEntry } from './registryEntries';
import type { RegisteredTool, WaitingTool } from './registeredTool';
import { RunWithoutAsking, type ApprovalStore } from './runWithoutAsking';
import { ExternalTool } from './sourceTool';
import { sourceInfo, ToolCatalog, waitingReason, WILDCARD, type BuiltinCatalogTool, type CatalogTool, type ExternalCatalogTool } from './toolCatalog';
import { modelNameFor, ModelNameClaims } from './toolNames';
import { EXTERNAL_TOOL_RISK, type ToolSource } from './toolSource';
import { isLockedByTrust, whyLockedWhenUntrusted } from './trustPolicy';
import type { ToolContext } from './types';

export interface ToolManagerLogger {
  warn(message: string): void;
  error(message: string): void;
}

/** Where the user's per-tool choices live (the extension keeps them per workspace), keyed by catalog name. */
export interface ToggleStore {
  get(name: string): boolean | undefined;
  set(name: string, enabled: boolean): void;
}

export interface ToolManagerOptions {
  context: ToolContext;
  logger?: ToolManagerLogger;
  /** Whether the workspace is trusted; untrusted ones get read-only tools and no description overrides. */
  trusted?: boolean;
  toggles?: ToggleStore;
  /** The tools from outside the person lets run without asking ("run without asking" in the tree), each for one definition. */
  autoApprove?: ApprovalStore;
  /** Passed to the registry: budgets, a scheduler, an observer of every call. */
  registry?: ToolRegistryOptions;
}

export interface ApplyResult {
  warnings: string[];
  errors: string[];
}

export type { ReadyTool, RegisteredTool, WaitingTool } from './registeredTool';
export type { ApprovalStore } from './runWithoutAsking';

export type ToggleResult = { ok: true } | { ok: false; error: string };

export interface Disposable {
  dispose(): void;
}

type Registration =
  | { state: 'ready'; entry: CatalogTool; tool: ExecutableTool; overridden: boolean }
  | { state: 'waiting'; name: string; source: ToolSource; description?: string };

/** What one resolution of the entries is building. */
interface Resolution extends ApplyResult {
  claims: ModelNameClaims;
  /** Catalog names (and `<server>/*`) → the index of the entry that registered them first. */
  firstIndex: Map<string, number>;
  /** Names that entries name one by one; a `<server>/*` leaves these to their own entries. */
  explicit: Set<string>;
}

/**
 * Owns the workspace's registry: resolves name-only settings entries against the catalog (the
 * builtins manifest and every added source), keeps the person's choices, and enforces workspace
 * trust. Re-resolves whenever a source's state or tools change.
 */
export class ToolManager {
  readonly registry: ToolRegistry;
  private readonly context: ToolContext;
  private readonly logger?: ToolManagerLogger;
  private readonly toggles: ToggleStore;
  private readonly autoApprove: RunWithoutAsking;
  private readonly catalog = new ToolCatalog();
  private readonly listeners = new Set<() => void>();
  private registrations: Registration[] = [];
  private isTrusted: boolean;
  private lastEntries: unknown;
  private lastResult: ApplyResult = { warnings: [], errors: [] };

  constructor(options: ToolManagerOptions) {
    this.registry = new ToolRegistry(options.registry);
    this.context = options.context;
    this.logger = options.logger;
    this.isTrusted = options.trusted ?? true;
    this.toggles = options.toggles ?? memoryToggles();
    this.autoApprove = new RunWithoutAsking(options.autoApprove ?? memoryApprovals(), options.logger);
  }

  get trusted(): boolean {
    return this.isTrusted;
  }

  /** Replaces the registered tools with the ones `entries` (the setting's value) names. Never throws. */
  applyConfig(entries: unknown): ApplyResult {
    this.lastEntries = entries;
    const result = this.resolve(entries);
    this.log(result, new Set());
    this.fireChange();
    return result;
  }

  /** Adds a source of tools; its tools join the catalog and its changes re-resolve the registry. Disposing removes it. */
  addSource(source: ToolSource): Disposable {
    this.catalog.add(source);
    const subscription = source.onDidChange(() => this.refresh());
    this.refresh();
    let disposed = false;
    return {
      dispose: () => {
        if (disposed) return;
        disposed = true;
        subscription.dispose();
        if (this.catalog.remove(source)) this.refresh();
      },
    };
  }

  sources(): ToolSource[] {
    return this.catalog.sources();
  }

  /** Sources a registered entry waits for that nobody has started; none in an untrusted workspace (their tools could not be enabled). */
  sourcesNeeded(): ToolSource[] {
    if (!this.isTrusted) return [];
    const needed = new Set<ToolSource>();
    for (const registration of this.registrations) {
      if (registration.state !== 'waiting') continue;
      const state = registration.source.state().state;
      if (state === 'not-started' || state === 'stopped') needed.add(registration.source);
    }
    return [...needed];
  }

  /** Starts every source in `sourcesNeeded()` (before a chat turn); their tools arrive through their change events. */
  async startNeededSources(): Promise<void> {
    await Promise.all(
      this.sourcesNeeded().map((source) =>
        Promise.resolve()
          .then(() => source.start())
          .catch((error) => this.logger?.error(`${source.label} did not start: ${(error as Error)?.message ?? String(error)}`)),
      ),
    );
  }

  /** Every tool any source offers, builtins first; no enabled state (that is `list()`). */
  available(): { tools: CatalogTool[]; count: number } {
    const tools = this.catalog.available();
    return { tools, count: tools.length };
  }

  /** The registered tools in settings order (a `<server>/*` in its server's order), each with its state. */
  list(): RegisteredTool[] {
    return this.registrations.map((registration) => {
      if (registration.state === 'waiting') return this.waitingView(registration);
      const { entry, tool } = registration;
      return {
        ...entry,
        description: tool.getSchema().function.description,
        enabled: this.registry.isToolEnabled(entry.modelName),
        descriptionOverridden: registration.overridden,
        state: 'ready',
        ...(entry.type === 'builtin' ? {} : this.runWithoutAskingView(entry)),
      };
    });
  }

  private runWithoutAskingView(entry: ExternalCatalogTool): { runWithoutAsking: boolean; runWithoutAskingLapsed?: true } {
    const { runWithoutAsking, lapsed } = this.autoApprove.state(entry);
    return { runWithoutAsking, ...(lapsed && { runWithoutAskingLapsed: true as const }) };
  }

  /** The warnings and errors of the last resolution (a source's change resolves again). */
  problems(): ApplyResult {
    return { warnings: [...this.lastResult.warnings], errors: [...this.lastResult.errors] };
  }

  /** Why `name` (a catalog name, or the name the model sees) cannot be enabled now, or undefined when it can. */
  whyNotEnable(name: string): string | undefined {
    const registration = this.find(name);
    if (!registration) {
      const lookup = this.catalog.lookup(name);
      if (lookup.kind === 'unknown' || lookup.kind === 'own') {
        return `"${name}" is not a Toolbelt tool nor a tool of any source. Available builtins: ${BUILTIN_NAMES.join(', ')}.`;
      }
      return `"${name}" is not registered; add {"name": "${name}"} to ${REGISTRY_SETTING} first.`;
    }
    const risk = registration.state === 'ready' ? registration.entry.risk : EXTERNAL_TOOL_RISK;
    const external = registration.state === 'waiting' || registration.entry.type !== 'builtin';
    return whyLockedWhenUntrusted({ name: nameOf(registration), risk, external }, this.isTrusted);
  }

  enable(name: string): ToggleResult {
    const reason = this.whyNotEnable(name);
    if (reason) return { ok: false, error: reason };
    return this.setEnabled(this.find(name)!, true);
  }

  disable(name: string): ToggleResult {
    const registration = this.find(name);
    if (!registration) return { ok: false, error: `"${name}" is not registered, so there is nothing to disable.` };
    return this.setEnabled(registration, false);
  }

  /** Lets a registered tool from outside run without asking each time (or makes it ask again). */
  setRunWithoutAsking(name: string, on: boolean): ToggleResult {
    const registration = this.find(name);
    if (!registration) return { ok: false, error: `"${name}" is not registered; add {"name": "${name}"} to ${REGISTRY_SETTING} first.` };
    if (registration.state === 'ready' && registration.entry.type === 'builtin') {
      return { ok: false, error: `"${name}" is a builtin; its approvals follow Toolbelt's own rules, not "run without asking".` };
    }
    const catalogName = nameOf(registration);
    if (catalogName.endsWith(`/${WILDCARD}`)) return { ok: false, error: `"${name}" names a whole server; choose "run without asking" per tool once it runs.` };
    if (!on) this.autoApprove.revoke(catalogName);
    else if (registration.state === 'ready' && registration.entry.type !== 'builtin') this.autoApprove.approve(registration.entry);
    else return { ok: false, error: `"${name}" waits for its source; "run without asking" is chosen for what a tool says it does, so it can be chosen once the tool is listed.` };
    this.fireChange();
    return { ok: true };
  }

  /** Trust was granted (or revoked): the last config is applied again under the new rules. */
  setTrusted(trusted: boolean): ApplyResult {
    this.isTrusted = trusted;
    return this.applyConfig(this.lastEntries);
  }

  /** Called after every change of registered tools, their state, or the catalog. */
  onDidChange(listener: () => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** A source changed: resolve the same entries again, logging only what is new. */
  private refresh(): void {
    const before = new Set([...this.lastResult.warnings, ...this.lastResult.errors]);
    this.log(this.resolve(this.lastEntries), before);
    this.fireChange();
  }

  private resolve(entries: unknown): ApplyResult {
    for (const name of this.registry.getToolNames()) this.registry.unregister(name);
    this.registrations = [];
    const resolution: Resolution = { warnings: [], errors: [], claims: new ModelNameClaims(), firstIndex: new Map(), explicit: new Set() };
    const list = entries === undefined || entries === null ? [] : entries;
    if (!Array.isArray(list)) {
      resolution.errors.push(`${REGISTRY_SETTING} must be an array of {"name": "<tool>"} entries, but it is ${kindOf(list)}; no tools are active.`);
    } else {
      const read = list.map((entry, index) => ({ entry, read: readEntry(entry, index, resolution) }));
      for (const { read: r } of read) if (r && !r.name.endsWith(`/${WILDCARD}`)) resolution.explicit.add(r.name);
      for (const { entry, read: r } of read) if (r) this.applyEntry(entry, r, resolution);
    }
    this.lastResult = { warnings: resolution.warnings, errors: resolution.errors };
    return this.problems();
  }

  private applyEntry(raw: unknown, entry: RegistryEntry, resolution: Resolution): void {
    const lookup = this.catalog.lookup(entry.name);
    if (lookup.kind === 'unknown') {
      resolution.warnings.push(`${entry.where}: unknown tool "${entry.name}"${lookup.hint ? ` (did you mean "${lookup.hint}"?)` : ''}; it was skipped.`);
      return;
    }
    if (lookup.kind === 'own') {
      const instead = lookup.builtin ? `; write {"name": "${lookup.builtin}"} to activate the builtin` : '';
      resolution.warnings.push(`${entry.where}: "${entry.name}" is Toolbelt's own tool as VS Code shows it to other chats, not a tool source${instead}. It was skipped.`);
      return;
    }
    const definedBy = lookup.kind === 'builtin' ? 'the manifest' : `${lookup.source.label}`;
    warnAboutExtraFields(raw, entry, definedBy, resolution);
    if (this.isDuplicate(entry, entry.name, resolution)) return;
    const wildcard = entry.name.endsWith(`/${WILDCARD}`);
    if (wildcard && entry.description !== undefined) {
      resolution.warnings.push(`${entry.where} ("${entry.name}"): a description applies to one tool, not to all of a server's; it is ignored.`);
    }
    const description = wildcard ? undefined : descriptionOverride(entry, this.isTrusted, definedBy, resolution);
    resolution.firstIndex.set(entry.name, entry.index);
    switch (lookup.kind) {
      case 'waiting':
        this.registrations.push({ state: 'waiting', name: entry.name, source: lookup.source, description });
        return;
      case 'all':
        for (const tool of lookup.tools) {
          if (resolution.explicit.has(tool.name) || resolution.firstIndex.has(tool.name)) continue;
          resolution.firstIndex.set(tool.name, entry.index);
          this.registerReady(entry, tool, undefined, lookup.source, resolution);
        }
        return;
      default:
        this.registerReady(entry, lookup.tool, description, lookup.kind === 'tool' ? lookup.source : undefined, resolution);
    }
  }

  private isDuplicate(entry: RegistryEntry, name: string, resolution: Resolution): boolean {
    const first = resolution.firstIndex.get(name);
    if (first === undefined) return false;
    resolution.errors.push(
      `${entry.where}: Tool "${name}" is already registered by ${REGISTRY_SETTING}[${first}]; this duplicate was rejected and the first entry stays.`,
    );
    return true;
  }

  private registerReady(entry: RegistryEntry, tool: CatalogTool, description: string | undefined, source: ToolSource | undefined, resolution: Resolution): void {
    const claim = resolution.claims.claim(tool.modelName, tool.name, tool.type === 'builtin');
    if (!claim.ok) {
      const holder = claim.builtin ? `the builtin "${claim.holder}"` : `"${claim.holder}" (${REGISTRY_SETTING}[${resolution.firstIndex.get(claim.holder)}])`;
      resolution.errors.push(
        `${entry.where}: "${tool.name}" would reach the model as "${tool.modelName}", a name ${holder} already has; "${tool.name}" was skipped and ${holder} stays.`,
      );
      return;
    }
    const executable =
      tool.type === 'builtin' || !source
        ? createBuiltinTool(tool as BuiltinCatalogTool, this.context, description)
        : new ExternalTool({
            entry: tool,
            source,
            context: this.context,
            descriptionOverride: description,
            runsWithoutAsking: () => this.autoApprove.allows(tool),
          });
    try {
      this.registry.register(executable);
    } catch (error) {
      resolution.errors.push(`${entry.where}: "${tool.name}" could not be registered: ${(error as Error).message}.`);
      return;
    }
    this.registrations.push({ state: 'ready', entry: tool, tool: executable, overridden: description !== undefined });
    if (tool.type !== 'builtin') this.autoApprove.noteLapse(tool);
    const wanted = this.toggles.get(tool.name) ?? tool.enabledByDefault;
    if (!wanted || isLockedByTrust(tool.risk, this.isTrusted)) this.registry.disable(tool.modelName);
  }

  private waitingView(registration: Extract<Registration, { state: 'waiting' }>): WaitingTool {
    const { name, source, description } = registration;
    const wildcard = name.endsWith(`/${WILDCARD}`);
    return {
      name,
      ...(wildcard ? {} : { modelName: modelNameFor(name) }),
      type: source.kind,
      description: description ?? '',
      parameters: { type: 'object', properties: {} },
      risk: EXTERNAL_TOOL_RISK,
      enabledByDefault: true,
      source: sourceInfo(source),
      enabled: false,
      descriptionOverridden: description !== undefined,
      state: 'waiting',
      reason: waitingReason(source),
      ...(wildcard ? {} : { runWithoutAsking: this.autoApprove.chosen(name) }),
    };
  }

  /** A registration by catalog name, or by the name the model sees. */
  private find(name: string): Registration | undefined {
    return (
      this.registrations.find((r) => nameOf(r) === name) ??
      this.registrations.find((r) => r.state === 'ready' && r.entry.modelName === name)
    );
  }

  private setEnabled(registration: Registration, enabled: boolean): ToggleResult {
    if (registration.state === 'ready') this.registry[enabled ? 'enable' : 'disable'](registration.entry.modelName);
    this.toggles.set(nameOf(registration), enabled);
    this.fireChange();
    return { ok: true };
  }

  private log(result: ApplyResult, alreadyLogged: Set<string>): void {
    for (const message of result.warnings) if (!alreadyLogged.has(message)) this.logger?.warn(message);
    for (const message of result.errors) if (!alreadyLogged.has(message)) this.logger?.error(message);
  }

  private fireChange(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.logger?.error(`A tool change listener failed: ${(error as Error).message}`);
      }
    }
  }
}

function nameOf(registration: Registration): string {
  return registration.state === 'ready' ? registration.entry.name : registration.name;
}

function memoryToggles(): ToggleStore {
  const state = new Map<string, boolean>();
  return { get: (name) => state.get(name), set: (name, enabled) => void state.set(name, enabled) };
}

function memoryApprovals(): ApprovalStore {
  const state = new Map<string, string>();
  return { get: (name) => state.get(name), set: (name, hash) => void (hash === undefined ? state.delete(name) : state.set(name, hash)) };
}
