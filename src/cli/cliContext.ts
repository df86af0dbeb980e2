import { DEFAULT_SESSION_CONTEXT_FILE } from '../agent/agentLoop';
import { DEFAULT_SYSTEM_PROMPT } from '../agent/prompt';
import { acceptAsTheyAre, PolicyReader, POLICY_SETTINGS, readPolicyValues, type Policy, type PolicySource } from '../policy';
import type { CommandPolicy, SandboxSetting, ToolContext } from '../tools/types';
import type { WriteApprovals } from '../tools/writeApprovals';
import type { LiveSettings } from './liveSettings';
import { findOnPath } from '../tools/programPath';

const ALLOWED_COMMANDS = POLICY_SETTINGS.allowedCommands;

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
 * applies to the next call. The policy is read by the one reader the extension uses too
 * (PolicyReader); what the workspace would loosen applies only when the person accepted it at start.
 */
export class CliToolContext implements ToolContext {
  readonly workspaceRoot: string;
  private readonly policies: PolicyReader;
  private readonly told = new Set<string>();
  private ripgrep: string | null | undefined;

  constructor(
    private readonly settings: LiveSettings,
    private readonly options: CliContextOptions,
  ) {
    this.workspaceRoot = settings.root;
    const source: PolicySource = { levels: (key) => settings.current.levels(key) };
    // Accepted as they are at start: a later, longer list is not accepted with them.
    const choices = acceptAsTheyAre(readPolicyValues(source), { commands: options.acceptWorkspaceCommands, sandbox: options.acceptWorkspaceSandbox ?? false });
    this.policies = new PolicyReader(source, () => choices, (policy) => this.tellProblems(policy));
  }

  /** The workspace's policy as it applies now: for the tools, `policy explain` and the log. */
  policy(): Policy {
    return this.policies.current();
  }

  /** The OS sandbox for run_bash and MCP servers (the person's toolbelt.sandbox.* tightened by the workspace's). */
  get sandbox(): SandboxSetting {
    return this.policy().sandbox;
  }

  private tellProblems(policy: Policy): void {
    for (const problem of policy.problems) this.tellOnce(problem);
    const { commands, sandbox } = policy.pending;
    if (commands) {
      const how = this.options.acceptWorkspaceCommands ? 'they changed since toolbelt started; restart it to accept the new list' : 'pass --accept-workspace-commands to apply them';
      this.tellOnce(`The workspace's ${ALLOWED_COMMANDS} (${commands.entries.join(', ')}) do not apply: ${how}.`);
    }
    if (sandbox) {
      const how = this.options.acceptWorkspaceSandbox ? 'they changed since toolbelt started; restart it to accept them' : 'pass --accept-workspace-sandbox to apply them';
      this.tellOnce(`The workspace's toolbelt.sandbox.* would loosen the sandbox (${sandbox.changes.join('; ')}) and do not apply: ${how}.`);
    }
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
    return this.policy().writeApprovals;
  }

  get sensitiveGlobs(): readonly string[] {
    return this.policy().sensitiveGlobs;
  }

  get commandPolicy(): CommandPolicy | undefined {
    return this.policy().commandPolicy;
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

