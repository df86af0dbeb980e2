import { CallBudget, realScheduler, type Scheduler } from './callBudget';
import type { ToolCaller } from './caller';
import { unasked, type ConsentPlan } from './consent';
import { toGeminiTools, toOpenAITools, type GeminiTools, type ToolFormat } from './formats';
import type { ApprovedBy, ChatTool, ExecutableTool, ToolExecuteOptions, ToolExecutor, ToolResult, ToolStatus } from './interface';
import { ToolCancelledError, ToolRefusedError } from './toolErrors';

/** How long one tool call may run when the tool names no budget of its own. */
export const DEFAULT_TOOL_BUDGET_MS = 60_000;
/** After Stop or the budget, how long a tool has to end on its own before its call is ended for it. */
export const STOP_GRACE_MS = 1000;

export interface ToolRegistryOptions {
  defaultBudgetMs?: number;
  stopGraceMs?: number;
  scheduler?: Scheduler;
  /** Told of every call `run()` ends, the ones refused before they ran included. */
  onDidRun?: ToolRunListener;
  /** The clock `startedAt` is read from (milliseconds since the epoch). */
  now?: () => number;
}

/** One call as the registry ended it, for observers such as the tool-call log. */
export interface ToolRunReport {
  name: string;
  args: Record<string, unknown>;
  result: ToolResult;
  /** When the call was asked for, in milliseconds since the epoch. */
  startedAt: number;
  /** Who asked for it (undefined: a library call with the context's own hooks). */
  caller?: ToolCaller;
  /** The tool's arguments that carry a file's content (never logged). */
  contentArguments?: readonly string[];
}

export type ToolRunListener = (report: ToolRunReport) => void;

interface Entry {
  tool: ExecutableTool;
  enabled: boolean;
}

/**
 * The tools an agent may use. Lookup by name is O(1); iteration keeps registration order.
 * Only enabled tools are offered to a model, and only they execute.
 */
export class ToolRegistry implements ToolExecutor {
  private readonly entries = new Map<string, Entry>();
  private readonly defaultBudgetMs: number;
  private readonly stopGraceMs: number;
  private readonly scheduler: Scheduler;
  private readonly now: () => number;
  private readonly runListeners = new Set<ToolRunListener>();

  constructor(options: ToolRegistryOptions = {}) {
    this.defaultBudgetMs = options.defaultBudgetMs ?? DEFAULT_TOOL_BUDGET_MS;
    this.stopGraceMs = options.stopGraceMs ?? STOP_GRACE_MS;
    this.scheduler = options.scheduler ?? realScheduler;
    this.now = options.now ?? Date.now;
    if (options.onDidRun) this.runListeners.add(options.onDidRun);
  }

  /** Calls `listener` after every call `run()` ends. A listener that throws does not affect the call. */
  onDidRun(listener: ToolRunListener): { dispose(): void } {
    this.runListeners.add(listener);
    return { dispose: () => this.runListeners.delete(listener) };
  }

  /** Adds a tool, enabled. A second tool with a taken name throws; the first stays. */
  register(tool: ExecutableTool): void {
    if (!tool || typeof tool.name !== 'string' || tool.name.length === 0) {
      throw new Error('Cannot register a tool without a name');
    }
    if (this.entries.has(tool.name)) throw new Error(`Tool "${tool.name}" is already registered`);
    validateSchema(tool.name, tool.getSchema());
    this.entries.set(tool.name, { tool, enabled: true });
  }

  /** Removes a tool; unknown names are ignored. */
  unregister(name: string): void {
    this.entries.delete(name);
  }

  /** Returns false when no such tool is registered. */
  enable(name: string): boolean {
    return this.setEnabled(name, true);
  }

  /** Returns false when no such tool is registered. */
  disable(name: string): boolean {
    return this.setEnabled(name, false);
  }

  get(name: string): ExecutableTool | undefined {
    return this.entries.get(name)?.tool;
  }

  list(): ExecutableTool[] {
    return [...this.entries.values()].map((e) => e.tool);
  }

  getToolNames(): string[] {
    return [...this.entries.keys()];
  }

  hasTool(name: string): boolean {
    return this.entries.has(name);
  }

  isToolEnabled(name: string): boolean {
    return this.entries.get(name)?.enabled ?? false;
  }

  getEnabledSchemas(): ChatTool[] {
    return this.enabledTools().map((t) => t.getSchema());
  }

  /**
   * The enabled tools in a provider's format, optionally narrowed to `allowedTools`
   * (registration order kept). OpenAI and Ollama get ChatTool[]; Gemini gets
   * `{functionDeclarations}`.
   */
  getToolsForProvider(provider: Exclude<ToolFormat, 'gemini'>, allowedTools?: string[]): ChatTool[];
  getToolsForProvider(provider: 'gemini', allowedTools?: string[]): GeminiTools;
  getToolsForProvider(provider: string, allowedTools?: string[]): ChatTool[] | GeminiTools;
  getToolsForProvider(provider: string, allowedTools?: string[]): ChatTool[] | GeminiTools {
    const allowed = allowedTools ? new Set(allowedTools) : undefined;
    const schemas = this.enabledTools()
      .filter((t) => !allowed || allowed.has(t.name))
      .map((t) => t.getSchema());
    switch (provider) {
      case 'openai':
      case 'ollama':
        return toOpenAITools(schemas);
      case 'gemini':
        return toGeminiTools(schemas);
      default:
        throw new Error(`Provider "${provider}" is not supported; use openai, ollama or gemini`);
    }
  }

  /**
   * Runs an enabled tool. Never rejects: a missing, disabled or failing tool yields an
   * error string the model can read.
   */
  async execute(name: string, args: Record<string, unknown>, options?: ToolExecuteOptions): Promise<string> {
    return (await this.run(name, args, options)).text;
  }

  /**
   * Runs an enabled tool within its wall-clock budget and reports how it ended. Never rejects.
   * On Stop (the caller's signal) or when the budget runs out, the tool's signal is aborted;
   * a tool that has not ended a second later is left behind and the call ends without it.
   */
  async run(name: string, args: Record<string, unknown>, options: ToolExecuteOptions = {}): Promise<ToolResult> {
    const startedAt = this.now();
    const callArgs = args ?? {};
    const result = await this.runUnreported(name, callArgs, options);
    const contentArguments = this.entries.get(name)?.tool.contentArguments;
    this.report({ name, args: callArgs, result, startedAt, ...(options.caller ? { caller: options.caller } : {}), ...(contentArguments && { contentArguments }) });
    return result;
  }

  /**
   * What a call would need before it runs — refused, questions for a person, or nothing — without
   * running or asking anything: for VS Code's confirmation card, MCP and `toolbelt policy explain`.
   * Rejects when the tool is missing or disabled, or the arguments or paths cannot work.
   */
  async consent(name: string, args: Record<string, unknown>, options: Pick<ToolExecuteOptions, 'signal'> = {}): Promise<ConsentPlan> {
    const entry = this.entries.get(name);
    if (!entry) throw new Error(`Tool "${name}" not found`);
    if (!entry.enabled) throw new ToolRefusedError(`Tool "${name}" is not available (it is disabled)`);
    return entry.tool.consent ? entry.tool.consent(args ?? {}, options) : unasked(name, undefined);
  }

  private runUnreported(name: string, args: Record<string, unknown>, options: ToolExecuteOptions): Promise<ToolResult> | ToolResult {
    const entry = this.entries.get(name);
    if (!entry) return { text: `Error: tool "${name}" not found`, status: 'error', durationMs: 0 };
    if (!entry.enabled) return { text: `Error: tool "${name}" is not available (it is disabled)`, status: 'refused', durationMs: 0, approvedBy: 'refused' };
    if (options.signal?.aborted) return { text: `Not run: ${name} was stopped before it started.`, status: 'cancelled', durationMs: 0 };
    return new CallRun(entry.tool, args, options, budgetOf(entry.tool, args, this.defaultBudgetMs), this.stopGraceMs, this.scheduler).result;
  }

  private report(report: ToolRunReport): void {
    for (const listener of this.runListeners) {
      try {
        listener(report);
      } catch {
        // An observer's failure is its own; the call already ended.
      }
    }
  }

  private enabledTools(): ExecutableTool[] {
    return [...this.entries.values()].filter((e) => e.enabled).map((e) => e.tool);
  }

  private setEnabled(name: string, enabled: boolean): boolean {
    const entry = this.entries.get(name);
    if (!entry) return false;
    entry.enabled = enabled;
    return true;
  }
}

function budgetOf(tool: ExecutableTool, args: Record<string, unknown>, fallback: number): number {
  try {
    const budget = tool.budgetMs?.(args);
    return typeof budget === 'number' && budget > 0 && Number.isFinite(budget) ? budget : fallback;
  } catch {
    return fallback;
  }
}

/** One call of one tool: its budget, its Stop, and the grace it gets to end after either. */
class CallRun {
  readonly result: Promise<ToolResult>;
  private readonly controller = new AbortController();
  private readonly budget: CallBudget;
  private stopReason: 'stop' | 'budget' | undefined;
  private graceTimer: unknown;
  private settle!: (result: ToolResult) => void;
  private settled = false;
  private readonly onAbort = () => this.stop('stop');
  /** Filled in by the tool when someone (or a rule) decides whether it may go ahead. */
  private readonly approval: { by?: ApprovedBy } = {};
  private readonly ran: { containment?: string } = {};

  private readonly signal: AbortSignal | undefined;
  private readonly caller: ToolCaller | undefined;

  constructor(
    private readonly tool: ExecutableTool,
    args: Record<string, unknown>,
    options: ToolExecuteOptions,
    private readonly budgetMs: number,
    private readonly graceMs: number,
    private readonly scheduler: Scheduler,
  ) {
    this.signal = options.signal;
    this.caller = options.caller;
    this.budget = new CallBudget(budgetMs, () => this.stop('budget'), scheduler);
    this.signal?.addEventListener('abort', this.onAbort, { once: true });
    // One promise, settled by whichever comes first: the tool's end, or the grace after a stop.
    this.result = new Promise<ToolResult>((resolve) => (this.settle = resolve));
    void this.work(args).then((result) => this.end(result));
  }

  private end(result: ToolResult): void {
    if (this.settled) return;
    this.settled = true;
    this.signal?.removeEventListener('abort', this.onAbort);
    this.budget.finish();
    if (this.graceTimer !== undefined) this.scheduler.clearTimeout(this.graceTimer);
    this.settle(result);
  }

  private async work(args: Record<string, unknown>): Promise<ToolResult> {
    try {
      const value = await this.tool.execute(args, {
        signal: this.controller.signal,
        pauseBudget: () => this.budget.pause(),
        approval: this.approval,
        ran: this.ran,
        ...(this.caller ? { caller: this.caller } : {}),
      });
      const text = typeof value === 'string' ? value : (JSON.stringify(value) ?? String(value));
      if (this.stopReason === 'budget') return this.ended(`${this.overBudget()}\n\n${text}`);
      return this.ended(text, this.stopReason ? 'cancelled' : 'ok');
    } catch (error) {
      if (this.stopReason) return this.stoppedResult();
      if (error instanceof ToolCancelledError) return this.ended(`Error executing ${this.tool.name}: ${error.message}`, 'cancelled');
      const status: ToolStatus = error instanceof ToolRefusedError ? 'refused' : 'error';
      return this.ended(`Error executing ${this.tool.name}: ${errorMessage(error)}`, status);
    }
  }

  private stop(reason: 'stop' | 'budget'): void {
    if (this.stopReason) return;
    this.stopReason = reason;
    this.budget.finish();
    this.controller.abort(new ToolCancelledError(reason === 'stop' ? 'Stopped by the user.' : this.overBudget()));
    this.graceTimer = this.scheduler.setTimeout(() => this.end(this.stoppedResult()), this.graceMs);
  }

  private stoppedResult(): ToolResult {
    if (this.stopReason === 'budget') return this.ended(this.overBudget());
    return this.ended(`Stopped: the user stopped ${this.tool.name} before it finished.`, 'cancelled');
  }

  private overBudget(): string {
    return `Error: ${this.tool.name} ran longer than its limit of ${formatSeconds(this.budgetMs)} and was stopped.`;
  }

  private ended(text: string, status: ToolStatus = 'error'): ToolResult {
    const approvedBy: ApprovedBy = status === 'refused' ? 'refused' : (this.approval.by ?? 'auto');
    return { text, status, durationMs: this.budget.elapsedMs, approvedBy, ...(this.ran.containment !== undefined && { containment: this.ran.containment }) };
  }
}

function formatSeconds(ms: number): string {
  const seconds = ms / 1000;
  return `${Number.isInteger(seconds) ? seconds : seconds.toFixed(1)} s`;
}

function validateSchema(name: string, schema: ChatTool): void {
  const fn = schema?.function;
  if (schema?.type !== 'function' || !fn) throw new Error(`Tool "${name}" must describe itself as {type: "function", function: {...}}`);
  if (fn.name !== name) throw new Error(`Tool "${name}" has a schema named "${fn.name}"; the names must match`);
  if (typeof fn.description !== 'string' || fn.description.trim() === '') throw new Error(`Tool "${name}" needs a description`);
  if (fn.parameters?.type !== 'object' || typeof fn.parameters.properties !== 'object') {
    throw new Error(`Tool "${name}" parameters must be a JSON Schema of type "object" with properties`);
  }
}

export function errorMessage(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'string') return error;
  try {
    return JSON.stringify(error) ?? String(error);
  } catch {
    return String(error);
  }
}
