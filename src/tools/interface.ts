import type { ToolCaller } from './caller';
import type { ConsentPlan } from './consent';
import type { ToolParameters } from './schema';
import type { ApprovedBy } from './types';

export type { JsonSchema, ToolParameters } from './schema';
export type { ApprovedBy } from './types';

/** A tool as the OpenAI Chat Completions API (and Ollama) receives it. */
export interface ChatTool {
  type: 'function';
  function: {
    name: string;
    description: string;
    parameters: ToolParameters;
  };
}

export interface ToolExecuteOptions {
  /** Aborting stops the tool; run_bash kills its whole process tree. */
  signal?: AbortSignal;
  /**
   * Who asks for this call: how to ask the person, where its undo record goes, its conversation.
   * Without one, the call uses the hooks of the tool's ToolContext (`confirm`, `beforeChange`).
   */
  caller?: ToolCaller;
  /**
   * Stops the call's wall-clock budget while a person decides (an approval); call the
   * returned function to start it again. Set by the registry.
   */
  pauseBudget?: () => () => void;
  /**
   * How this call was approved, filled in as it runs (the registry creates it): by a person, by
   * a rule (a command rule, an "allow for this chat"), or refused. Untouched means nobody was
   * asked. The tool-call log records it.
   */
  approval?: { by?: ApprovedBy };
  /** How the call ran, filled in by the tool as it starts (the registry creates it): its OS containment. */
  ran?: { containment?: string };
}

/** A tool the registry can offer to a model and run. */
export interface ExecutableTool {
  readonly name: string;
  getSchema(): ChatTool;
  execute(args: Record<string, unknown>, options?: ToolExecuteOptions): Promise<string>;
  /** How long one call with these arguments may run before it is stopped; the registry's default otherwise. */
  budgetMs?(args: Record<string, unknown>): number | undefined;
  /**
   * What a call with these arguments would need before it runs (refused, questions for a person,
   * nothing), without asking or changing anything. Tools without it never ask.
   */
  consent?(args: Record<string, unknown>, options?: Pick<ToolExecuteOptions, 'signal'>): Promise<ConsentPlan>;
  /** Arguments that carry a file's new content: the call log keeps their length and hash only (ToolDefinition.contentArguments). */
  readonly contentArguments?: readonly string[];
}

/** How a tool call ended: as data, so no caller guesses from the wording of the text. */
export type ToolStatus = 'ok' | 'error' | 'refused' | 'cancelled';

export interface ToolResult {
  /** What the model reads. */
  text: string;
  status: ToolStatus;
  /** Time the tool ran, without the time a person took to approve it. */
  durationMs: number;
  approvedBy?: ApprovedBy;
  /** How a command or an MCP server's tool ran, e.g. `sandboxed, network off`; absent for Toolbelt's own file tools. */
  containment?: string;
}

/** What an agent needs to offer tools to a model and run its calls; a ToolRegistry is one. */
export interface ToolExecutor {
  getEnabledSchemas(): ChatTool[];
  hasTool(name: string): boolean;
  run(name: string, args: Record<string, unknown>, options?: ToolExecuteOptions): Promise<ToolResult>;
}
