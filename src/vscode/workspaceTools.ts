import * as vscode from 'vscode';
import { BUILTIN_MANIFEST } from '../tools/manifest';
import { processIsolation } from '../tools/sandbox';
import { describeContainment, effectiveSandbox, sandboxAvailability } from '../tools/sandbox';
import type { CatalogTool } from '../tools/toolCatalog';
import { ToolManager, type ApplyResult, type ApprovalStore, type RegisteredTool, type ToggleResult, type ToggleStore } from '../tools/toolManager';
import type { ToolSource } from '../tools/toolSource';
import { isLockedByTrust } from '../tools/trustPolicy';
import type { ToolContext } from '../tools/types';
import type { StateStore } from './jsonStateFile';
import { RegistrySettings } from './registrySettings';
import { readRegistryEntries, type SettingsWatcher } from './settings';
import { Disposables } from './dispose';
import { TOGGLES_KEY } from './toolState';
const RUN_WITHOUT_ASKING_KEY = 'toolbelt.runWithoutAsking';

/**
 * The workspace's tools: a ToolManager fed from settings (live), its enable/disable choices kept
 * in workspace state, workspace trust applied, and problems reported once per change.
 */
export class WorkspaceTools extends Disposables {
  readonly manager: ToolManager;
  readonly settings = new RegistrySettings();
  private readonly emitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.emitter.event;
  private readonly reported = this.register(new vscode.EventEmitter<ApplyResult>());
  /** The problems of the settings, each time they are resolved (nothing while a source is still loading). */
  readonly onDidReportProblems = this.reported.event;
  private isolationDescribed = false;
  /** Whether this machine has the OS sandbox; undefined until run_bash is first active and it was checked. */
  private sandboxAvailable: boolean | undefined;
  private lastResult: ApplyResult = { warnings: [], errors: [] };
  /** While above zero, problems are only logged: a source still loading would make its tools' names read as unknown. */
  private reportHolds = 0;
  /** What startNeeded waits for first: the sources' definitions being read again (a settings change just named a server). */
  private sourcesLoading: () => Promise<unknown> = () => Promise.resolve();

  constructor(
    state: StateStore,
    private readonly context: ToolContext,
    private readonly log: vscode.LogOutputChannel,
    watcher: SettingsWatcher,
  ) {
    super();
    this.manager = new ToolManager({
      context,
      logger: log,
      trusted: vscode.workspace.isTrusted,
      toggles: persistedToggles(state, TOGGLES_KEY, log),
      autoApprove: persistedApprovals(state, log),
    });
    this.register(this.manager.onDidChange(() => (this.emitter.fire(), this.describeIsolationOnce())));
    this.register(
      watcher.onDidChange((change) => {
        if (change.registry) this.reload();
        else if (change.sandbox) this.emitter.fire();
      }),
    );
    this.register(
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        this.log.info('Workspace trusted: write and exec tools can be enabled, description overrides apply.');
        this.lastResult = this.manager.setTrusted(true);
        this.report(this.lastResult);
      }),
    );
    // Sources are added right after activation (registerToolSources): the first report waits for them.
    this.holdReportsUntil(new Promise((resolve) => setTimeout(resolve, 0)));
    this.reload();
  }

  /** Reports problems only once `ready` settles (a source's first load), then the ones left by then. */
  holdReportsUntil(ready: Promise<unknown>): void {
    this.reportHolds++;
    const release = () => {
      this.reportHolds--;
      if (this.reportHolds === 0) this.report(this.problems());
    };
    void ready.then(release, release);
  }

  get trusted(): boolean {
    return this.manager.trusted;
  }

  /** `toolbelt.tools.sensitiveFiles` as the tools apply it now (the tool-call log withholds what names them). */
  get sensitiveGlobs(): readonly string[] | undefined {
    return this.context.sensitiveGlobs;
  }

  /** Applies `toolbelt.tools.registry` as it is now. */
  reload(): ApplyResult {
    const result = this.manager.applyConfig(readRegistryEntries());
    this.lastResult = result;
    this.log.info(`Registry applied: ${this.manager.registry.getToolNames().join(', ') || 'no tools'}.`);
    this.report(result);
    this.describeIsolationOnce();
    return result;
  }

  /** Says in the log, once run_bash is active, how its commands are contained on this machine. */
  private describeIsolationOnce(): void {
    if (this.isolationDescribed || !this.manager.registry.isToolEnabled('run_bash')) return;
    this.isolationDescribed = true;
    void processIsolation().then(
      (isolation) => this.log.info(`run_bash without the sandbox: ${isolation.detail}`),
      (error: unknown) => this.log.warn(`run_bash: could not tell how commands are contained: ${String(error)}`),
    );
    void sandboxAvailability().then((sandbox) => {
      this.log.info(`run_bash sandbox: ${sandbox.available ? '' : 'unavailable: '}${sandbox.detail}`);
      this.sandboxAvailable = sandbox.available;
      this.emitter.fire();
    });
  }

  /** How run_bash's commands run here now, e.g. `sandboxed, network off`; undefined until the sandbox was checked. */
  commandContainment(): string | undefined {
    if (this.sandboxAvailable === undefined) return undefined;
    const setting = this.context.sandbox;
    return describeContainment(setting, this.sandboxAvailable && effectiveSandbox(setting).mode !== 'off');
  }

  /** The warnings and errors of the last resolution of the settings (a source's change resolves them again). */
  problems(): ApplyResult {
    const current = typeof this.manager.problems === 'function' ? this.manager.problems() : this.lastResult;
    return { warnings: [...current.warnings], errors: [...current.errors] };
  }

  available(): { tools: CatalogTool[]; count: number } {
    return this.manager.available();
  }

  list(): RegisteredTool[] {
    return this.manager.list();
  }

  /** Whether settings name this tool (by its catalog name, or the name the model sees), running or waiting. */
  isRegistered(name: string): boolean {
    return this.manager.list().some((tool) => tool.name === name || tool.modelName === name);
  }

  /** Adds a source of tools (an MCP server, other extensions' tools); disposing the result removes it. */
  addSource(source: ToolSource): vscode.Disposable {
    const added = this.manager.addSource(source);
    return new vscode.Disposable(() => added.dispose());
  }

  /** Starts the sources a registered tool waits for; the chat awaits it before a turn. */
  async startNeeded(): Promise<void> {
    await this.sourcesLoading().catch(() => undefined);
    return this.manager.startNeededSources();
  }

  /** startNeeded waits for `loading` first, so a source the settings just named is there to be started. */
  waitForSourcesBeforeStarting(loading: () => Promise<unknown>): void {
    this.sourcesLoading = loading;
  }

  /** Enables a tool; one that is available but not registered is first added to the workspace settings. */
  async enable(name: string): Promise<ToggleResult> {
    const entry = this.available().tools.find((tool) => tool.name === name);
    if (!entry || isLockedByTrust(entry.risk, this.trusted)) return this.manager.enable(name);
    if (!this.isRegistered(name)) {
      await this.settings.add([name]);
      if (!this.isRegistered(name)) this.reload();
      if (!this.isRegistered(name)) {
        return { ok: false, error: `"${name}" was added to toolbelt.tools.registry but could not be registered; see the Toolbelt log.` };
      }
    }
    return this.manager.enable(name);
  }

  /** Lets a tool from outside Toolbelt run without asking before each call, or makes it ask again. */
  setRunWithoutAsking(name: string, on: boolean): ToggleResult {
    return this.manager.setRunWithoutAsking(name, on);
  }

  async disable(name: string): Promise<ToggleResult> {
    return this.manager.disable(name);
  }

  /** Registers every read-only builtin that is not registered yet. */
  async addReadOnly(): Promise<string[]> {
    const names = BUILTIN_MANIFEST.filter((d) => d.risk === 'read' && !this.isRegistered(d.name)).map((d) => d.name);
    if (names.length === 0) return [];
    await this.settings.add(names);
    if (names.some((name) => !this.isRegistered(name))) this.reload();
    return names;
  }

  async removeFromSettings(name: string): Promise<boolean> {
    const removed = await this.settings.remove(name);
    if (removed && this.isRegistered(name)) this.reload();
    return removed;
  }

  async setDescription(name: string, description: string | undefined): Promise<boolean> {
    const changed = await this.settings.setDescription(name, description);
    if (changed) this.reload();
    return changed;
  }

  /** Hands the problems of each resolution to whoever shows them (registryDiagnostics: squiggles and one calm toast). */
  private report(result: ApplyResult): void {
    if (this.reportHolds > 0) return;
    this.reported.fire({ warnings: [...result.warnings], errors: [...result.errors] });
  }
}

function persistedToggles(state: StateStore, key: string, log: vscode.LogOutputChannel): ToggleStore {
  const read = () => state.get<Record<string, boolean>>(key, {});
  return {
    get: (name) => {
      const value = read()[name];
      return typeof value === 'boolean' ? value : undefined;
    },
    set: (name, enabled) => {
      state.update(key, { ...read(), [name]: enabled }).then(undefined, (error: Error) => log.error(`Could not save the state of ${name}: ${error.message}`));
    },
  };
}

/** What a "run without asking" kept before choices were bound to a definition reads as: it matches no tool, so the tool asks once more. */
const CHOSEN_BEFORE_HASHES = 'chosen before Toolbelt recorded tool definitions';

/** "Run without asking" per tool: the definition hash it was chosen for (older versions kept `true`). */
function persistedApprovals(state: StateStore, log: vscode.LogOutputChannel): ApprovalStore {
  const read = () => state.get<Record<string, string | boolean>>(RUN_WITHOUT_ASKING_KEY, {});
  return {
    get: (name) => {
      const value = read()[name];
      return typeof value === 'string' ? value : value === true ? CHOSEN_BEFORE_HASHES : undefined;
    },
    set: (name, hash) => {
      const next = { ...read() };
      if (hash === undefined) delete next[name];
      else next[name] = hash;
      state.update(RUN_WITHOUT_ASKING_KEY, next).then(undefined, (error: Error) => log.error(`Could not save "run without asking" for ${name}: ${error.message}`));
    },
  };
}
