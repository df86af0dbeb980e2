import { statSync, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CallGroups } from '../tools/undo';
import { decide, nativePolicyOf, type Decision, type NativeTools } from '../policy';
import { sandboxRequestFor } from '../tools/sandbox';
// The library surface through src/core.ts: the build checks that the CLI bundle reaches the core
// this way, so a vscode import anywhere below the core fails the CLI's build (esbuild.js).
import { ToolCallLog, ToolManager, toRecord } from '../core';
import type { ToggleStore } from '../tools/toolManager';
import { approvedOnFirstSight } from '../tools/runWithoutAsking';
import { modelNameFor } from '../tools/toolNames';
import { CliToolContext } from './cliContext';
import type { CliLog } from './cliLog';
import { CliMcpServers } from './cliMcpServers';
import { LiveSettings } from './liveSettings';
import type { PersonChoices } from './personChoices';
import { terminalJson } from '../common/visibleText';
import { CheckpointAccess, stateDirFor } from './stateDir';
import { UsageError } from './usage';

export const REGISTRY_SETTING = 'toolbelt.tools.registry';

export interface CliWorkspaceOptions {
  /** The workspace folder (relative to the current folder, or absolute). */
  root: string;
  choices: PersonChoices;
  log: CliLog;
  /** `policy explain | test`: every registered tool counts as switched on (they judge the rules, not the switches). */
  allEnabled?: boolean;
  /** Follow changes of the settings files (mcp): the tools follow them. */
  watch?: boolean;
}

/**
 * One workspace as the CLI serves it: its settings (live), the person's choices, the ToolManager
 * the extension uses (same registry, same consent, same rules), its MCP servers, the call log and
 * the undo records in the workspace's state folder.
 */
export class CliWorkspace {
  readonly manager: ToolManager;
  readonly context: CliToolContext;
  readonly servers: CliMcpServers;
  readonly stateDir: string;
  readonly callLog: ToolCallLog;
  readonly checkpoints: CheckpointAccess;
  readonly groups: CallGroups;
  private readonly subscriptions: { dispose(): void }[] = [];

  private constructor(
    readonly settings: LiveSettings,
    private readonly options: CliWorkspaceOptions,
  ) {
    const { choices, log } = options;
    this.context = new CliToolContext(settings, { acceptWorkspaceCommands: choices.acceptWorkspaceCommands, acceptWorkspaceSandbox: choices.acceptWorkspaceSandbox, warn: (m) => log.warn(m) });
    this.stateDir = stateDirFor(settings.root, choices.stateDir);
    this.callLog = new ToolCallLog({ folder: this.stateDir, onError: (error) => log.warn(`Could not write the call log: ${String(error)}`) });
    this.checkpoints = new CheckpointAccess(this.stateDir, () => [settings.root]);
    this.groups = new CallGroups(this.checkpoints, (message) => log.warn(message));
    this.manager = new ToolManager({
      context: this.context,
      logger: log,
      trusted: true,
      toggles: this.toggles(),
      // Each grant is bound to the tool it names and the definition it has when first listed: a change, or another tool under that name, asks again.
      autoApprove: approvedOnFirstSight(choices.runWithoutAsking),
      registry: { onDidRun: (report) => this.callLog.append(toRecord(report, report.caller?.chatId ?? 'none', { sensitiveGlobs: this.context.sensitiveGlobs })) },
    });
    const context = this.context;
    this.servers = new CliMcpServers(this.manager, settings, choices, log, () => {
      const { cwd: _cwd, ...request } = sandboxRequestFor(context, context.workspaceRoot);
      return request;
    });
  }

  static async open(options: CliWorkspaceOptions): Promise<CliWorkspace> {
    const root = workspaceFolder(options.root, options.log);
    const settings = new LiveSettings(root, options.choices.userSettingsFile);
    // The person's own rules (their denied commands among them) must not be dropped by a typo in the file's name.
    const user = settings.current.user;
    if (user && !user.exists) throw new UsageError(user.problems[0] ?? `${user.path}: cannot be read.`);
    for (const problem of settings.current.problems()) options.log.warn(problem);
    const workspace = new CliWorkspace(settings, options);
    workspace.applyRegistry();
    await workspace.servers.open();
    if (options.watch) workspace.follow();
    return workspace;
  }

  get root(): string {
    return this.settings.root;
  }

  /** Starts the MCP servers a registered tool waits for (the ones the person approved); their tools then join. */
  ready(): Promise<void> {
    return this.manager.startNeededSources();
  }

  /** The name the model (and an MCP client) sees for a tool named either way (`github/create_issue` → `github_create_issue`). */
  modelName(name: string): string {
    return this.manager.list().find((tool) => tool.name === name)?.modelName ?? name;
  }

  /**
   * What the policy decides for one call, without running it, with where its rule is written; for
   * another agent's own tool (Claude Code's Bash…), what `toolbelt hook` answers with these choices.
   */
  decide(tool: string, args: Record<string, unknown>): Promise<Decision> {
    const native: NativeTools = {
      root: this.root,
      policy: () => nativePolicyOf(this.root, this.context.policy(), this.options.choices.runWithoutAsking, this.settings.current.problems()),
    };
    return decide(this.manager.registry, this.settings.current, { tool: this.modelName(tool), args }, native);
  }

  /** Names given to --enable or --run-without-asking that this workspace does not register. */
  unknownChoices(): string[] {
    const registered = this.manager.list();
    const known = new Set(registered.flatMap((tool) => [tool.name, ...(tool.modelName ? [tool.modelName] : [])]));
    // A `<server>/*` whose server has not started yet names its tools only once it runs.
    const servers = registered.filter((tool) => tool.name.endsWith('/*')).map((tool) => tool.name.slice(0, -1));
    const isKnown = (name: string) => known.has(name) || servers.some((prefix) => name.startsWith(prefix) || name.startsWith(modelNameFor(prefix)));
    const { enable, runWithoutAsking } = this.options.choices;
    const missing = (flag: string, names: ReadonlySet<string>) => [...names].filter((name) => !isKnown(name)).map((name) => `${flag} ${name}`);
    return [...missing('--enable', enable), ...missing('--run-without-asking', runWithoutAsking)];
  }

  async close(): Promise<void> {
    for (const subscription of this.subscriptions.splice(0)) subscription.dispose();
    this.settings.dispose();
    await this.servers.dispose();
    await this.callLog.flush();
  }

  private applyRegistry(): void {
    this.manager.applyConfig(this.settings.current.get(REGISTRY_SETTING));
  }

  private follow(): void {
    this.subscriptions.push(
      this.settings.onDidChange((change) => {
        for (const problem of this.settings.current.problems()) this.options.log.warn(problem);
        if (change.settings) this.applyRegistry();
        if (change.settings || change.mcp) void this.servers.reload().then(() => this.ready());
      }),
    );
    this.settings.watch((message) => this.options.log.warn(message));
  }

  private toggles(): ToggleStore {
    const { allEnabled, choices } = this.options;
    return {
      get: (name) => (allEnabled || choices.enable.has(name) || choices.enable.has(modelNameFor(name)) ? true : undefined),
      set: () => undefined,
    };
  }
}

/**
 * The workspace folder's real path; a missing or non-folder path is a usage error, and so is the
 * file system's root (the path guard would let the tools reach every file). The home folder is
 * served, with a warning: its keys and other projects are then inside the workspace.
 */
function workspaceFolder(given: string, log: CliLog): string {
  let real: string;
  try {
    if (!statSync(path.resolve(given)).isDirectory()) throw new UsageError(`--workspace ${terminalJson(given)}: not a folder.`);
    real = realpathSync(path.resolve(given));
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--workspace ${terminalJson(given)}: there is no such folder.`);
  }
  if (path.parse(real).root === real) {
    throw new UsageError(`--workspace ${terminalJson(given)} is the root of the file system: every file on this machine would be inside the workspace. Name a project's folder.`);
  }
  if (real === realHome()) log.warn(`--workspace ${terminalJson(real)} is your home folder: your keys, settings and every other project in it are inside the workspace the tools reach.`);
  return real;
}

function realHome(): string | undefined {
  try {
    return realpathSync(os.homedir());
  } catch {
    return undefined;
  }
}
