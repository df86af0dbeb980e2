import * as path from 'node:path';
import { abortedError, ProviderError } from '../providers/errors';
import { MAX_ANSWER_CHARS } from '../providers/limits';
import { generatedCallId, linkedController } from '../providers/streaming';
import type { ChatMessage, ChatProvider, ToolCall } from '../providers/types';
import type { ToolCaller } from '../tools/caller';
import type { ApprovedBy, ChatTool, ToolExecutor, ToolStatus } from '../tools/interface';
import type { ToolContext } from '../tools/types';
import { ContextPlanner, type ContextUsage } from './contextPlanner';
import { DEFAULT_SYSTEM_PROMPT } from './prompt';
import { summarizeConversation } from './sessionSummary';
import { MAX_TOOL_CALLS_PER_REPLY, parseToolArguments, tooManyCallsError } from './toolArguments';

export const DEFAULT_MAX_TOOL_ROUNDS = 25;
export const DEFAULT_SESSION_CONTEXT_FILE = '.toolbelt/session-context.md';
export { DEFAULT_SYSTEM_PROMPT, MAX_ANSWER_CHARS, MAX_TOOL_CALLS_PER_REPLY };

/** Streamed after an answer cut at MAX_ANSWER_CHARS, and kept with it in the conversation. */
export const ANSWER_CUT_NOTICE = `\n\n_[The answer was cut at ${MAX_ANSWER_CHARS.toLocaleString('en-US')} characters; the rest was not read. Ask for a shorter answer or for it in parts.]_`;

/** What every agent takes but its tools. */
export interface AgentSettings {
  workspaceRoot?: string;
  systemPrompt?: string;
  sessionContextFilePath?: string;
  /** Rounds of tool calls one turn may take before the Agent stops it. */
  maxToolRounds?: number;
  /** A conversation to continue (e.g. restored after a window reload). */
  history?: ChatMessage[];
  /** For the default registry: asked before destructive calls and protected writes. */
  confirm?: ToolContext['confirm'];
  /** Who the Agent's tool calls are for (the panel's chat turn, …): passed with every call it runs. */
  caller?: ToolCaller;
  rgPath?: string;
}

export interface AgentLoopOptions extends AgentSettings {
  /** Offers the tools to the model and runs its calls (a ToolRegistry, usually). */
  toolRegistry: ToolExecutor;
}

export type ToolCallStatus = ToolStatus;

export type AgentEvent =
  | { type: 'text'; text: string }
  /** The model started a tool call; its arguments are still arriving. */
  | { type: 'tool_call_pending'; id: string; name: string }
  | { type: 'tool_call_start'; id: string; name: string; arguments: string }
  | { type: 'tool_call_end'; id: string; name: string; arguments: string; result: string; status: ToolCallStatus; durationMs: number; approvedBy?: ApprovedBy }
  | { type: 'error'; message: string; error: ProviderError }
  /** How full the model's context window is: before each request (estimate) and after it (the service's count). */
  | { type: 'context'; usage: ContextUsage }
  /** `truncated`: the last answer was cut at MAX_ANSWER_CHARS (the notice is in the text). */
  | { type: 'done'; text: string; reason: 'stop' | 'max_rounds' | 'aborted'; truncated?: boolean };

export interface TurnOptions {
  signal?: AbortSignal;
}

/**
 * The chat / tool-call loop: sends the conversation and the enabled tools to the model, runs
 * the tools it calls (in order, through the executor), and goes on until the model answers
 * without tools, the round cap is reached, or the caller aborts. A provider failure leaves the
 * conversation as it was before the failed request, so `resume()` can go on from there.
 *
 * It imports nothing from src/tools at run time: the chat bundle (dist/chat.js) gets the
 * extension's registry passed in. `Agent` (agent.ts) adds the default registry for plain Node.
 */
export class AgentLoop {
  readonly toolRegistry: ToolExecutor;
  readonly context: ToolContext;
  private messages: ChatMessage[];
  private systemPrompt: string;
  private readonly maxToolRounds: number;
  private systemMessage: { role: 'system'; content: string } | undefined;
  private readonly planner = new ContextPlanner();
  private readonly caller: ToolCaller | undefined;

  constructor(
    private provider: ChatProvider,
    options: AgentLoopOptions,
  ) {
    this.systemPrompt = options.systemPrompt ?? DEFAULT_SYSTEM_PROMPT;
    this.maxToolRounds = options.maxToolRounds ?? DEFAULT_MAX_TOOL_ROUNDS;
    this.caller = options.caller;
    this.messages = [...(options.history ?? [])];
    const sessionContextFilePath = options.sessionContextFilePath ?? DEFAULT_SESSION_CONTEXT_FILE;
    const workspaceRoot = path.resolve(options.workspaceRoot ?? process.cwd());
    const live = { systemPrompt: () => this.systemPrompt, sessionContext: () => this.sessionContext };
    this.context = {
      get systemPrompt() {
        return live.systemPrompt();
      },
      get sessionContext() {
        return live.sessionContext();
      },
      sessionContextFilePath,
      workspaceRoot,
      confirm: options.confirm,
      rgPath: options.rgPath,
    };
    this.toolRegistry = options.toolRegistry ?? this.defaultToolRegistry(this.context);
  }

  /** Called when no executor was passed; only `Agent` has a default. */
  protected defaultToolRegistry(_context: ToolContext): ToolExecutor {
    throw new Error('AgentLoop needs options.toolRegistry (Agent from src/agent/agent.ts builds a default one).');
  }

  /** The conversation so far (without the system prompt). */
  get history(): readonly ChatMessage[] {
    return this.messages;
  }

  /** A markdown summary of the conversation so far, for save_session_context. */
  get sessionContext(): string {
    return summarizeConversation(this.messages);
  }

  get currentProvider(): ChatProvider {
    return this.provider;
  }

  /** Switches model or service; the conversation goes on with the new one. */
  setProvider(provider: ChatProvider): void {
    this.provider = provider;
  }

  getSystemPrompt(): string {
    return this.systemPrompt;
  }

  setSystemPrompt(prompt: string): void {
    this.systemPrompt = prompt;
  }

  getTools(): ChatTool[] {
    return this.toolRegistry.getEnabledSchemas();
  }

  async saveContext(reason: string): Promise<string> {
    return (await this.toolRegistry.run('save_session_context', { reason }, this.caller ? { caller: this.caller } : {})).text;
  }

  /** Forgets the conversation (the system prompt stays). */
  clearContext(): void {
    this.messages = [];
  }

  /** One turn, answered as one JSON reply per model call; resolves with the reply text. */
  async chat(message: string, options: TurnOptions = {}): Promise<string> {
    this.messages.push({ role: 'user', content: message });
    return finalText(this.run(false, options.signal));
  }

  /** One turn, streamed: text deltas, tool calls starting and finishing, then done. */
  streamChat(message: string, options: TurnOptions = {}): AsyncIterable<AgentEvent> {
    this.messages.push({ role: 'user', content: message });
    return this.run(true, options.signal);
  }

  /**
   * Goes on from where a failed or stopped turn left off, without sending anything twice:
   * the user's message and any finished tool results are already in the conversation.
   */
  resume(options: TurnOptions & { stream?: boolean } = {}): AsyncIterable<AgentEvent> {
    return this.run(options.stream ?? true, options.signal);
  }

  /** Whether the conversation ends with something the model has not answered yet. */
  get canResume(): boolean {
    const last = this.messages[this.messages.length - 1];
    return last !== undefined && (last.role === 'user' || last.role === 'tool');
  }

  private async *run(stream: boolean, signal?: AbortSignal): AsyncGenerator<AgentEvent> {
    const replies: string[] = [];
    if (!this.canResume) {
      yield { type: 'done', text: '', reason: 'stop' };
      return;
    }
    for (let round = 1; ; round++) {
      let text = '';
      let cut = false;
      const calls: ToolCall[] = [];
      // Our own handle on the request, so an answer past the limit can stop the download.
      const request = linkedController(signal);
      try {
        if (signal?.aborted) throw abortedError(this.provider.name);
        const tools = this.getTools();
        const planned = await this.planner.plan(this.provider, this.systemMessageNow(), tools, this.messages, request.signal);
        yield { type: 'context', usage: planned.usage };
        for await (const event of this.provider.stream({ messages: planned.messages, tools, stream, signal: request.signal })) {
          if (event.type === 'text') {
            if (text.length + event.text.length > MAX_ANSWER_CHARS) {
              const kept = event.text.slice(0, MAX_ANSWER_CHARS - text.length);
              text += kept + ANSWER_CUT_NOTICE;
              if (kept) yield { type: 'text', text: kept };
              yield { type: 'text', text: ANSWER_CUT_NOTICE };
              cut = true;
              request.abort();
              break;
            }
            text += event.text;
            yield { type: 'text', text: event.text };
          } else if (event.type === 'done') {
            const reported = event.usage?.inputTokens;
            this.planner.calibrate(planned.estimatedTokens, reported);
            if (reported) yield { type: 'context', usage: { ...planned.usage, tokens: reported, measured: 'reported' } };
          } else if (event.type === 'tool_call_begin') {
            yield { type: 'tool_call_pending', id: event.id, name: event.name };
          } else if (event.type === 'tool_call') {
            calls.push(event.call);
          }
        }
      } catch (error) {
        // After a cut, the provider may still complain while its stopped request is torn down.
        if (!cut || signal?.aborted) {
          const failure = asProviderError(error, this.provider.name);
          if (failure.kind === 'aborted') {
            // What the user saw streaming stays in the conversation, as in any chat.
            if (text) this.messages.push({ role: 'assistant', content: text });
            yield { type: 'done', text: joinReplies([...replies, text]), reason: 'aborted' };
            return;
          }
          yield { type: 'error', message: failure.message, error: failure };
          throw failure;
        }
      } finally {
        request.release();
      }
      replies.push(text);
      // A cut answer ends the turn: any tool calls after the cut were never read whole.
      if (cut) calls.length = 0;
      // Each result must answer exactly one call: a repeated id gets a fresh one.
      const ids = new Set<string>();
      for (const call of calls) {
        if (ids.has(call.id)) call.id = generatedCallId();
        ids.add(call.id);
      }
      this.messages.push(calls.length ? { role: 'assistant', content: text, toolCalls: calls } : { role: 'assistant', content: text });
      if (calls.length === 0) {
        yield { type: 'done', text: joinReplies(replies), reason: 'stop', ...(cut ? { truncated: true } : {}) };
        return;
      }
      if (round > this.maxToolRounds) {
        for (const call of calls) this.answer(call, `Not run: this turn reached its limit of ${this.maxToolRounds} rounds of tool calls.`);
        const notice = `\n\n_Stopped: this turn reached its limit of ${this.maxToolRounds} rounds of tool calls (toolbelt.chat.maxToolRounds). Send a message to go on._`;
        yield { type: 'text', text: notice };
        yield { type: 'done', text: joinReplies([...replies, notice.trim()]), reason: 'max_rounds' };
        return;
      }
      for (const [index, call] of calls.entries()) {
        if (index >= MAX_TOOL_CALLS_PER_REPLY) {
          yield this.end(call, tooManyCallsError(call.name), 'error');
          continue;
        }
        const checked = this.checkCall(call, signal);
        if ('ended' in checked) {
          yield checked.ended;
          continue;
        }
        yield { type: 'tool_call_start', id: call.id, name: call.name, arguments: call.arguments };
        const result = await this.toolRegistry.run(call.name, checked.args, { signal, ...(this.caller ? { caller: this.caller } : {}) });
        yield { ...this.end(call, result.text, result.status, result.durationMs), ...(result.approvedBy ? { approvedBy: result.approvedBy } : {}) };
      }
      if (signal?.aborted) {
        yield { type: 'done', text: joinReplies(replies), reason: 'aborted' };
        return;
      }
    }
  }

  /**
   * Checks a call before it runs: an event ending it (answered with an error or a refusal), or
   * its parsed arguments. A plain function rather than a nested generator: every delegated
   * event would cost the round a few more promise turns.
   */
  private checkCall(call: ToolCall, signal?: AbortSignal): { args: Record<string, unknown> } | { ended: AgentEvent } {
    if (signal?.aborted) return { ended: this.end(call, 'Not run: the user stopped the turn.', 'cancelled') };
    if (call.unreadable) return { ended: this.end(call, call.unreadable, 'error') };
    if (!this.toolRegistry.hasTool(call.name)) {
      const available = this.toolRegistry.getEnabledSchemas().map((s) => s.function.name);
      return { ended: this.end(call, `Error: there is no tool named "${call.name}"; it was not run. Available tools: ${available.join(', ') || 'none'}.`, 'error') };
    }
    const parsed = parseToolArguments(call.name, call.arguments);
    return parsed.ok ? { args: parsed.args } : { ended: this.end(call, parsed.error, 'error') };
  }

  /** Puts the call's result into the conversation; the event that tells the caller. */
  private end(call: ToolCall, result: string, status: ToolCallStatus, durationMs = 0): AgentEvent & { type: 'tool_call_end' } {
    this.answer(call, result);
    return { type: 'tool_call_end', id: call.id, name: call.name, arguments: call.arguments, result, status, durationMs };
  }

  private answer(call: ToolCall, content: string): void {
    this.messages.push({ role: 'tool', toolCallId: call.id, name: call.name, content });
  }

  private systemMessageNow(): ChatMessage | undefined {
    if (!this.systemPrompt) return undefined;
    // One message object per prompt, so providers can reuse what they made of it last round.
    if (this.systemMessage?.content !== this.systemPrompt) this.systemMessage = { role: 'system', content: this.systemPrompt };
    return this.systemMessage;
  }
}

function asProviderError(error: unknown, provider: string): ProviderError {
  if (error instanceof ProviderError) return error;
  return new ProviderError(error instanceof Error ? error.message : String(error), { kind: 'protocol', provider, cause: error });
}

function joinReplies(texts: string[]): string {
  return texts.map((t) => t.trim()).filter(Boolean).join('\n\n');
}

async function finalText(events: AsyncIterable<AgentEvent>): Promise<string> {
  let text = '';
  for await (const event of events) if (event.type === 'done') text = event.text;
  return text;
}
