import type { ToolParameters } from './interface';
import type { ToolRisk } from './types';

/**
 * Where a tool comes from: Toolbelt's builtins, an MCP server, or another VS Code extension
 * (`vscode.lm.tools`). Every source's tools are "available"; the workspace activates them by
 * name in `toolbelt.tools.registry`, one rule for all.
 */
export type ToolSourceKind = 'builtin' | 'mcp' | 'extension';

/** A source's life: MCP servers start on demand; builtins and extension tools are always running. */
export type SourceState =
  | { state: 'not-started' }
  | { state: 'starting' }
  | { state: 'running' }
  | { state: 'stopped' }
  | { state: 'failed'; reason: string };

/** One tool a source offers, as the catalog lists it. */
export interface SourceTool {
  /** The tool's own name inside its source (an MCP tool's `name`, an extension tool's name). */
  readonly name: string;
  readonly description: string;
  readonly parameters: ToolParameters;
  /**
   * What the source claims (MCP `annotations.readOnlyHint`). Shown to the person, never trusted:
   * a tool from outside Toolbelt counts as able to change anything.
   */
  readonly readOnlyHint?: boolean;
  /** What Toolbelt cut of the source's definition (a description or schema over its cap), for the tree. */
  readonly notices?: readonly string[];
}

/** What one call of a source's tool returned. `isError`: the source says the call failed. */
export interface SourceCallResult {
  text: string;
  isError: boolean;
}

export interface SourceDisposable {
  dispose(): void;
}

/**
 * A supplier of tools beside the builtins. Implementations: an MCP server (src/tools/mcp/), the
 * tools of other extensions (src/vscode/). The catalog never starts a source by itself; the
 * manager starts the ones a registered tool needs.
 */
export interface ToolSource {
  /** Unique among sources: an MCP server's name from its config, or `extensions`. */
  readonly id: string;
  readonly kind: Exclude<ToolSourceKind, 'builtin'>;
  /** For people: the server's name, "Other extensions". */
  readonly label: string;
  /** Where it was defined, for the tree and the log: `.vscode/mcp.json`, `user settings`. */
  readonly origin?: string;
  state(): SourceState;
  /** The tools it offers now; empty until it runs. */
  tools(): readonly SourceTool[];
  /** Starts it if it is not running (idempotent; concurrent calls share one start). Never rejects: failures become state `failed`. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** How the running server's processes are contained, e.g. `sandboxed, network off` (stdio servers). */
  readonly containment?: string;
  /** Runs one tool; honours the signal (MCP sends `notifications/cancelled`). Rejects on transport failure. */
  call(tool: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<SourceCallResult>;
  /** Fired on a state change or a changed tool list (`tools/list_changed`). */
  onDidChange(listener: () => void): SourceDisposable;
}

/** The risk Toolbelt assigns to every tool from outside: it may change anything. */
export const EXTERNAL_TOOL_RISK: ToolRisk = 'exec';
