import type { ToolParameters } from './interface';

/** How much harm a tool can do: read-only, changes files, or runs programs. */
export type ToolRisk = 'read' | 'write' | 'exec';

/** What a tool asks the user before a destructive call or a write to a protected path. */
export interface ConfirmationRequest {
  tool: string;
  /** `destructive`: the tool itself needs consent per call; `protected`: the path does. */
  reason: 'destructive' | 'protected';
  /** One line a person can judge, e.g. `Delete src/old (recursive)`. */
  summary: string;
  args: Record<string, unknown>;
  /** Workspace-relative paths the call touches, when it touches files. */
  paths?: string[];
  signal?: AbortSignal;
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
}
