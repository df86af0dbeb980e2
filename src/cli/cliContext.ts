import { DEFAULT_SESSION_CONTEXT_FILE } from '../agent/agentLoop';
import { DEFAULT_SYSTEM_PROMPT } from '../agent/prompt';
import { buildTrustRules, hashEntries, type TrustRules } from '../tools/trustRules';
import { checkPolicyEntries } from '../tools/commandPolicy';
import { buildSandboxRules, type SandboxRules, type SandboxSettingValues } from '../tools/sandboxSettings';
import type { CommandPolicy, SandboxSetting, ToolContext } from '../tools/types';
import { strictestWriteApprovals, type WriteApprovals } from '../tools/writeApprovals';
import type { LiveSettings } from './liveSettings';
import { findOnPath } from '../tools/programPath';

export const ALLOWED_COMMANDS = 'toolbelt.runBash.allowedCommands';
export const DENIED_COMMANDS = 'toolbelt.runBash.deniedCommands';
export const SENSITIVE_FILES = 'toolbelt.tools.sensitiveFiles';

export interface CliContextOptions {
  /** The workspace's allowed commands apply, as they are at start (`--accept-workspace-commands`). */
  acceptWorkspaceCommands: boolean;
  /** What the workspace's toolbelt.sandbox.* would loosen applies, as it is at start (`--accept-workspace-sandbox`). */
  acceptWorkspaceSandbox?: boolean;
  /** Told once per problem in the rules, and once per workspace allow-list that does not apply. */
  warn(message: string): void;
}

/**
 * The ToolContext of a workspace outside VS Code: facts of the workspace only, read from its
 * `.vscode/settings.json` and the person's own settings file each time a tool asks, so an edit
 * applies to the next call. The rules are built by the same pure functions as in the extension
 * (buildTrustRules); the workspace's allowed commands apply only when the person accepted them.
 */
export class CliToolContext implements ToolContext {
  readonly workspaceRoot: string;
  private readonly acceptedHash: string | undefined;
  private rules: { key: string; built: TrustRules } | undefined;
  private readonly acceptedSandboxHash: string | undefined;
  private sandboxRules: { key: string; built: SandboxRules } | undefined;
  private readonly told = new Set<string>();
  private ripgrep: string | null | undefined;

  constructor(
    private readonly settings: LiveSettings,
    private readonly options: CliContextOptions,
  ) {
    this.workspaceRoot = settings.root;
    const atStart = checkPolicyEntries({ allowed: settings.current.levels(ALLOWED_COMMANDS).workspace }).allowed;
    this.acceptedHash = options.acceptWorkspaceCommands && atStart.length > 0 ? hashEntries(atStart) : undefined;
    this.acceptedSandboxHash = options.acceptWorkspaceSandbox ? buildSandboxRules(this.sandboxValues(), undefined).pendingWorkspace?.hash : undefined;
  }

  /**
   * The OS sandbox for run_bash and MCP servers, built as in the extension (buildSandboxRules): the
   * person's toolbelt.sandbox.* tightened by the workspace's; what the workspace would loosen
   * applies only with --accept-workspace-sandbox, as it was at start.
   */
  get sandbox(): SandboxSetting {
    const values = this.sandboxValues();
    const key = JSON.stringify(values);
    if (this.sandboxRules?.key !== key) {
      const built = buildSandboxRules(values, this.acceptedSandboxHash);
      for (const problem of built.problems) this.tellOnce(problem);
      if (built.pendingWorkspace) {
        const how = this.options.acceptWorkspaceSandbox ? 'they changed since toolbelt started; restart it to accept them' : 'pass --accept-workspace-sandbox to apply them';
        this.tellOnce(`The workspace's toolbelt.sandbox.* would loosen the sandbox (${built.pendingWorkspace.changes.join('; ')}) and do not apply: ${how}.`);
      }
      this.sandboxRules = { key, built };
    }
    return this.sandboxRules.built.sandbox;
  }

  private sandboxValues(): SandboxSettingValues {
    const level = (name: string) => this.settings.current.levels(`toolbelt.sandbox.${name}`);
    return { mode: level('mode'), network: level('network'), allowedDomains: level('allowedDomains'), hiddenPaths: level('hiddenPaths'), env: level('env'), readablePaths: level('readablePaths'), writablePaths: level('writablePaths'), readOnlyPaths: level('readOnlyPaths') };
  }

  get systemPrompt(): string {
    return this.settings.current.text('toolbelt.systemPrompt') || DEFAULT_SYSTEM_PROMPT;
  }

  /** Conversations are the callers': a call without one has none. */
  get sessionContext(): string {
    return '';
  }

  get sessionContextFilePath(): string {
    return this.settings.current.text('toolbelt.sessionContextFile') || DEFAULT_SESSION_CONTEXT_FILE;
  }

  /** A ripgrep on the PATH; without one the search tools search in plain Node. */
  get rgPath(): string | undefined {
    if (this.ripgrep === undefined) this.ripgrep = findOnPath(process.platform === 'win32' ? 'rg.exe' : 'rg') ?? null;
    return this.ripgrep ?? undefined;
  }

  /** `files.exclude` and `search.exclude` globs that are on, the workspace's over the person's. */
  get excludeGlobs(): string[] {
    const globs = new Set<string>();
    for (const key of ['files.exclude', 'search.exclude']) {
      const { user, workspace } = this.settings.current.levels(key);
      const merged = { ...asRecord(user), ...asRecord(workspace) };
      for (const [glob, on] of Object.entries(merged)) if (on === true) globs.add(glob);
    }
    return [...globs];
  }

  get writeApprovals(): WriteApprovals {
    const { user, workspace } = this.settings.current.levels('toolbelt.approvals.writes');
    return strictestWriteApprovals([user, workspace]);
  }

  get sensitiveGlobs(): readonly string[] {
    return this.currentRules().sensitiveGlobs;
  }

  get commandPolicy(): CommandPolicy | undefined {
    return this.currentRules().commandPolicy;
  }

  /** The rules as they apply now: for `policy explain` and the log. */
  currentRules(): TrustRules {
    const current = this.settings.current;
    const sensitive = current.levels(SENSITIVE_FILES);
    const values = {
      sensitiveFiles: sensitive,
      allowedCommands: current.levels(ALLOWED_COMMANDS),
      deniedCommands: current.levels(DENIED_COMMANDS),
    };
    const key = JSON.stringify(values);
    if (this.rules?.key !== key) {
      const built = buildTrustRules(values, this.acceptedHash);
      for (const problem of built.problems) this.tellOnce(problem);
      if (built.pendingWorkspaceCommands) {
        const how = this.options.acceptWorkspaceCommands ? 'they changed since toolbelt started; restart it to accept the new list' : 'pass --accept-workspace-commands to apply them';
        this.tellOnce(`The workspace's ${ALLOWED_COMMANDS} (${built.pendingWorkspaceCommands.entries.join(', ')}) do not apply: ${how}.`);
      }
      this.rules = { key, built };
    }
    return this.rules.built;
  }

  private tellOnce(message: string): void {
    if (this.told.has(message)) return;
    this.told.add(message);
    this.options.warn(message);
  }
}

function asRecord(value: unknown): Record<string, unknown> {
  return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

