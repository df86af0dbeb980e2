import type { ToolParameters } from './schema';

/** Who let a call run: nobody needed to (`auto`), a `person`, a `rule`; or it was `refused`. */
export type ApprovedBy = 'auto' | 'person' | 'rule' | 'refused';

/** How much harm a tool can do: read-only, changes files, or runs programs. */
export type ToolRisk = 'read' | 'write' | 'exec';

/**
 * Why a call needs a person's say: `destructive` (the tool asks every time), `protected` (the
 * path: .git/, .vscode/, *.code-workspace), `sensitive` (reading a file that matches
 * `sensitiveGlobs`), `command` (parts of a run_bash command no rule allows), `write` (the
 * person asked to review every write, `writeApprovals: 'always'`), `external` (a tool from an MCP
 * server or another extension: each call asks unless the person ticked "run without asking"),
 * `unsandboxed` (run_bash with `sandbox.mode: 'auto'` where no OS sandbox is available: every
 * command asks, even one the command rules allow).
 */
export type ConfirmationReason = 'destructive' | 'protected' | 'sensitive' | 'command' | 'write' | 'external' | 'unsandboxed';

/** What a tool asks the user before a call that needs consent. */
export interface ConfirmationRequest {
  tool: string;
  reason: ConfirmationReason;
  /** One line a person can judge, e.g. `Delete src/old (recursive)`. */
  summary: string;
  args: Record<string, unknown>;
  /** Workspace-relative paths the call touches, when it touches files. */
  paths?: string[];
  /** For `command`: the simple commands no rule allows, each as written. */
  parts?: string[];
  /** For writes: the file and the content proposed, so the person can review the difference. */
  proposed?: { absolute: string; display: string; content: string | undefined };
  /** For a command: how it will run, e.g. `sandboxed, network off` (absent: with the person's full powers). */
  containment?: string;
  signal?: AbortSignal;
  /**
   * Set by the confirm hook when no person was asked because a rule decided (an "allow for this
   * chat" approval); the tool-call log records who approved.
   */
  decidedBy?: 'person' | 'rule';
}

/** A file a tool is about to change, as the checkpoint store records it. */
export interface ChangeTarget {
  absolute: string;
  root: string;
  relative: string;
  display: string;
  /**
   * Set when no person approved the change: undo then keeps no copy of a file under this path that
   * matches `sensitiveGlobs` (the built-in list when absent), so a secret's copy is kept only for a
   * change someone asked for.
   */
  unapproved?: { sensitiveGlobs?: readonly string[] };
}

/** run_bash's command rules: simple-command prefixes (`npm test`) or `/regex/` entries. */
export interface CommandPolicy {
  allowed: readonly string[];
  denied: readonly string[];
}

/**
 * How run_bash commands and stdio MCP servers are contained by the operating system (see
 * sandbox.ts). `undefined` means `{ mode: 'auto', network: 'off' }`.
 */
export interface SandboxSetting {
  /** `auto`: sandboxed where available, else each command asks; `required`: refused without one; `off`: never. */
  mode: 'auto' | 'required' | 'off';
  /** `off`: no network at all; `allowlist`: only `allowedDomains`, through a proxy; `on`: the host's network. */
  network: 'off' | 'on' | 'allowlist';
  /** For `allowlist`: `example.com` (that host) or `*.example.com` (its subdomains). */
  allowedDomains?: string[];
  /** Made unreadable besides the built-in credential locations: absolute, `~/…`, or relative to each workspace folder. */
  hiddenPaths?: string[];
  /** Read-only in each workspace folder besides the built-in list (DEFAULT_READ_ONLY_PATHS): workspace-relative, `dir/` for a folder. */
  readOnlyPaths?: string[];
  /** Readable (read-only) inside the sandbox's empty home folder: absolute or `~/…` (git's config and toolchains are shown already). */
  readablePaths?: string[];
  /** Writable besides the workspace folders, the private /tmp and the private caches (absolute or `~/…`). */
  writablePaths?: string[];
  /** Environment variable names passed to commands besides the built-in allow-list. */
  env?: string[];
}

/**
 * What tools know of the agent and the workspace. Implementations expose live values
 * (getters), so a tool always sees the current system prompt and session context.
 */
export interface ToolContext {
  readonly systemPrompt: string;
  /** The Agent's markdown summary of the conversation so far. */
  readonly sessionContext: string;
  /** Where save_session_context writes; workspace-relative or absolute inside the workspace. */
  readonly sessionContextFilePath: string;
  /** Absolute path of the first workspace folder; file tools resolve inside it. */
  readonly workspaceRoot: string;
  /** Folder name → absolute path for every root of a multi-root workspace. */
  readonly workspaceRoots?: Readonly<Record<string, string>>;
  /** Asked before each destructive call and each protected write; `false` refuses it. */
  confirm?(request: ConfirmationRequest): Promise<boolean>;
  /** A ripgrep binary for the search tools; without one they search in plain Node. */
  readonly rgPath?: string;
  /** Globs (workspace-relative) the search tools leave out, e.g. VS Code's `files.exclude`. */
  readonly excludeGlobs?: readonly string[];
  /**
   * Globs (workspace-relative) of files whose contents stay away from the model unless a person
   * says so: read_file asks (refused where nobody can be asked), search_text skips their contents.
   */
  readonly sensitiveGlobs?: readonly string[];
  /** run_bash: all parts allowed → runs without asking; any part denied → refused; otherwise asks. */
  readonly commandPolicy?: CommandPolicy;
  /** Which writes ask: `protected` paths only (default), `always` every write_file/move/remove, `never` only protected paths. */
  readonly writeApprovals?: 'protected' | 'always' | 'never';
  /** The OS sandbox of run_bash and stdio MCP servers; undefined = `{ mode: 'auto', network: 'off' }`. */
  readonly sandbox?: SandboxSetting;
  /** Called before a tool changes files (after any approval), so what it changes can be undone. */
  beforeChange?(targets: readonly ChangeTarget[]): Promise<void>;
}

/** One entry of the builtins manifest. */
export interface ToolDefinition {
  readonly name: string;
  readonly description: string;
  readonly type: 'builtin';
  /** The implementation the factory binds this entry to. */
  readonly handler: string;
  readonly parameters: ToolParameters;
  readonly risk: ToolRisk;
  /** Whether the tool is enabled as soon as it is registered (false for destructive tools). */
  readonly enabledByDefault: boolean;
  /**
   * Arguments that carry a file's new content (write_file's `content`): the call log keeps their
   * length and hash, never the text, and a person allowing the tool on a path allows any content.
   */
  readonly contentArguments?: readonly string[];
}
