import OpenAI from 'openai';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { resolveLimits, type ModelLimits } from './contextWindow';
import { DEFAULT_BASE_URLS, DEFAULT_MODELS } from './defaults';
import { abortedError, endpointName, formatWait, httpError, idleTimeoutError, labelOf, networkError, ProviderError, retryAfterMs, sentence } from './errors';
import { guardedFetch, readBodyText } from './httpBody';
import { MAX_TOOL_ARGUMENT_CHARS, OVERSIZED_ARGUMENTS_PLACEHOLDER, oversizedArgumentsError } from './limits';
import { DEFAULT_IDLE_TIMEOUT_MS, generatedCallId, IdleWatch, linkedController, withRetries } from './streaming';
import { lineChunks, SseParser, type SseEvent } from './sseReader';
import type { ChatMessage, ChatProvider, ChatRequest, ProviderEvent, ProviderTimeouts, ToolCall, Usage } from './types';

export const OPENAI_DEFAULT_BASE_URL = DEFAULT_BASE_URLS.openai;
export const OPENAI_DEFAULT_MODEL = DEFAULT_MODELS.openai;

export interface OpenAIProviderOptions extends ProviderTimeouts {
  /** The person's context window setting (tokens); 0 or undefined uses the table of known models. */
  contextTokens?: number;
  apiKey: string;
  /** Any OpenAI-compatible endpoint: OpenAI, LM Studio, vLLM, llama.cpp server, OpenRouter, Ollama. */
  baseURL?: string;
  model: string;
}

/** Chat Completions on the `openai` SDK, streamed, with tool calls assembled from their deltas. */
export class OpenAIProvider implements ChatProvider {
  readonly name: string = 'openai';
  readonly model: string;
  readonly baseURL: string;
  private readonly client: OpenAI;
  private readonly timeouts: ProviderTimeouts & { contextTokens?: number };

  constructor(options: OpenAIProviderOptions) {
    this.model = options.model || OPENAI_DEFAULT_MODEL;
    this.baseURL = (options.baseURL || this.defaultBaseURL()).replace(/\/+$/, '');
    this.timeouts = options;
    this.client = new OpenAI({
      apiKey: options.apiKey || 'not-needed',
      baseURL: this.baseURL,
      maxRetries: 0,
      timeout: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
      fetch: guardedFetch(this.name, options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS),
    });
  }

  /** The model's window: the person's setting, else the table of known models. */
  limits(): Promise<ModelLimits> {
    return Promise.resolve(resolveLimits(this.model, { setting: this.timeouts.contextTokens }));
  }

  protected defaultBaseURL(): string {
    return OPENAI_DEFAULT_BASE_URL;
  }

  async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
    if (request.stream === false) {
      yield* this.complete(request);
      return;
    }
    const signal = request.signal;
    const body = {
      model: this.model,
      messages: toOpenAIMessages(request.messages),
      ...(request.tools.length > 0 ? { tools: request.tools } : {}),
    };
    // The raw response, read here: one reader instead of the SDK's three nested async generators.
    const send = () => this.client.chat.completions.create({ ...body, stream: true }, { signal }).asResponse();
    let response: Response;
    try {
      response = await withRetries(() => send().catch((error: unknown) => Promise.reject(this.toProviderError(error, signal))), this.timeouts, signal);
    } catch (error) {
      throw this.toProviderError(error, signal);
    }
    const chunks = lineChunks(response.body, this.name);
    const assembler = new ChunkAssembler(this.name);
    // Stop and an answer past its limit abort the request through `signal`, which the SDK follows.
    const idle = new IdleWatch(this.idleMs, () => chunks.cancel()).start();
    const decoder = new TextDecoder();
    const parser = new SseParser();
    let finished = false;
    try {
      for (;;) {
        const bytes = await chunks.next();
        if (bytes === undefined) break;
        idle.touch();
        for (const sse of parser.feed(decoder.decode(bytes, { stream: true }))) {
          // After [DONE] the rest is read (so the connection is kept for the next round) and ignored.
          if (finished) continue;
          const chunk = chunkOf(sse, response.headers);
          if (chunk === DONE) finished = true;
          else if (chunk) for (const event of assembler.push(chunk)) yield event;
        }
      }
      if (idle.fired) throw idleTimeoutError(this.name, this.idleMs, this.baseURL);
      parser.end();
      for (const event of assembler.finish()) yield event;
    } catch (error) {
      throw idle.fired ? idleTimeoutError(this.name, this.idleMs, this.baseURL) : this.toProviderError(error, signal);
    } finally {
      idle.stop();
      chunks.cancel();
    }
  }

  /**
   * One JSON answer. The SDK's own timeout stops at the response headers, so the body is read
   * here, under the same idle watch as a stream: a server that stalls the body cannot hang chat().
   */
  private async *complete(request: ChatRequest): AsyncGenerator<ProviderEvent> {
    const controller = linkedController(request.signal);
    const body = {
      model: this.model,
      messages: toOpenAIMessages(request.messages),
      ...(request.tools.length > 0 ? { tools: request.tools } : {}),
      stream: false as const,
    };
    const send = () => this.client.chat.completions.create(body, { signal: controller.signal }).asResponse();
    const idle = new IdleWatch(this.idleMs, () => controller.abort());
    let completion: ChatCompletion;
    try {
      const response = await withRetries(() => send().catch((error: unknown) => Promise.reject(this.toProviderError(error, controller.signal))), this.timeouts, controller.signal);
      idle.start();
      const text = await readBodyText(response.body, idle, this.name);
      completion = JSON.parse(text) as ChatCompletion;
    } catch (error) {
      throw idle.fired ? idleTimeoutError(this.name, this.idleMs, this.baseURL) : this.toProviderError(error, controller.signal);
    } finally {
      idle.stop();
      controller.release();
    }
    yield* completionEvents(completion, this.name);
  }

  private get idleMs(): number {
    return this.timeouts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
  }

  private toProviderError(error: unknown, signal: AbortSignal | undefined): ProviderError {
    if (error instanceof ProviderError && error.kind === 'timeout') return error;
    // An aborted stream can simply end, which reads like a broken answer: the abort is the truth.
    if (error instanceof OpenAI.APIUserAbortError || signal?.aborted) return abortedError(this.name);
    if (error instanceof ProviderError) return error;
    if (error instanceof OpenAI.APIConnectionTimeoutError) {
      return new ProviderError(`${sentence(endpointName(this.name, this.baseURL))} did not answer within ${formatWait(this.idleMs)}. Try again.`, { kind: 'timeout', provider: this.name, cause: error });
    }
    if (error instanceof OpenAI.APIConnectionError) return networkError(this.name, this.baseURL, error.cause ?? error);
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      const detail = apiErrorDetail(error);
      return httpError(this.name, error.status, detail, { model: this.model, url: this.baseURL, retryAfterMs: retryAfterMs(error.headers) });
    }
    const message = error instanceof Error ? error.message : String(error);
    return new ProviderError(`${sentence(endpointName(this.name, this.baseURL))} sent a reply Toolbelt could not read (${message}). Try again.`, { kind: 'protocol', provider: this.name, cause: error });
  }
}

/** Turns Chat Completions chunks into events; tool calls are assembled from their deltas. */
export class ChunkAssembler {
  private readonly calls: { id: string; name: string; arguments: string; announced: boolean; tooLong: boolean }[] = [];
  private finishReason: string | undefined;
  private usage: Usage | undefined;
  /** Argument characters kept over all calls of this reply: the limit holds for the reply, not per call. */
  private argumentChars = 0;

  constructor(private readonly provider: string) {}

  push(chunk: ChatCompletionChunk): ProviderEvent[] {
    const events: ProviderEvent[] = [];
    if (chunk.usage) this.usage = { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens };
    const choice = chunk.choices?.[0];
    if (!choice) return events;
    const delta = choice.delta ?? {};
    if (typeof delta.content === 'string' && delta.content) events.push({ type: 'text', text: delta.content });
    for (const part of delta.tool_calls ?? []) {
      const index = part.index ?? this.calls.length;
      const call = (this.calls[index] ??= { id: '', name: '', arguments: '', announced: false, tooLong: false });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name = call.name && call.name !== part.function.name ? call.name + part.function.name : part.function.name;
      if (part.function?.arguments && !call.tooLong) {
        // Past the limit the rest is dropped as it arrives: a runaway call cannot fill memory.
        if (this.argumentChars + part.function.arguments.length > MAX_TOOL_ARGUMENT_CHARS) {
          call.tooLong = true;
          this.argumentChars -= call.arguments.length;
          call.arguments = '';
        } else {
          call.arguments += part.function.arguments;
          this.argumentChars += part.function.arguments.length;
        }
      }
      if (!call.announced && call.name) {
        call.announced = true;
        call.id ||= generatedCallId();
        events.push({ type: 'tool_call_begin', id: call.id, name: call.name });
      }
    }
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    return events;
  }

  /** The assembled tool calls and `done`; throws when the stream ended without a finish reason. */
  finish(): ProviderEvent[] {
    if (!this.finishReason) {
      const open = this.calls.filter(Boolean).at(-1);
      throw new ProviderError(
        open
          ? `The answer from ${labelOf(this.provider)} broke off in the middle of a tool call (${open.name}); nothing was run. Try again.`
          : `The answer from ${labelOf(this.provider)} broke off before it was finished. Try again.`,
        { kind: 'protocol', provider: this.provider },
      );
    }
    const events: ProviderEvent[] = this.calls
      .filter(Boolean)
      .map((call) => ({ type: 'tool_call', call: toolCall(call.id || generatedCallId(), call.name, call.arguments, call.tooLong) }));
    events.push({ type: 'done', finishReason: this.finishReason, usage: this.usage });
    return events;
  }
}

const DONE = Symbol('done');

/** One event of the stream as the SDK would read it: a chunk, [DONE], or nothing (another kind of event). */
function chunkOf(sse: SseEvent, headers: Headers): ChatCompletionChunk | typeof DONE | undefined {
  if (sse.data.startsWith('[DONE]')) return DONE;
  if (sse.event !== null && sse.event.startsWith('thread.')) return undefined;
  const data = JSON.parse(sse.data) as ChatCompletionChunk & { error?: unknown };
  // An error sent inside the stream (some OpenAI-compatible servers fail this way after the headers).
  if (data && data.error) throw new OpenAI.APIError(undefined, data.error as object, undefined, headers);
  return data;
}

/** The error body as the SDK kept it, for httpError to reduce to one readable line. */
function apiErrorDetail(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as unknown;
  if (body && typeof body === 'object') return JSON.stringify({ error: body });
  if (typeof body === 'string') return body;
  return error.message.replace(/^\d{3}\s*/, '').replace(/^status code \(no body\)$/, '');
}

function toolCall(id: string, name: string, args: string, tooLong: boolean): ToolCall {
  return tooLong || args.length > MAX_TOOL_ARGUMENT_CHARS
    ? { id, name, arguments: OVERSIZED_ARGUMENTS_PLACEHOLDER, unreadable: oversizedArgumentsError(name) }
    : { id, name, arguments: args };
}

function* completionEvents(completion: ChatCompletion, provider: string): Generator<ProviderEvent> {
  const choice = completion?.choices?.[0];
  if (!choice?.message) throw new ProviderError(`${labelOf(provider)} answered with no choices.`, { kind: 'protocol', provider });
  const message = choice.message;
  if (typeof message.content === 'string' && message.content) yield { type: 'text', text: message.content };
  for (const call of Array.isArray(message.tool_calls) ? message.tool_calls : []) {
    if (call?.type !== 'function' || typeof call.function?.name !== 'string') continue;
    const id = typeof call.id === 'string' && call.id ? call.id : generatedCallId();
    const args: unknown = call.function.arguments;
    yield { type: 'tool_call_begin', id, name: call.function.name };
    yield { type: 'tool_call', call: toolCall(id, call.function.name, typeof args === 'string' ? args : args === undefined ? '' : JSON.stringify(args), false) };
  }
  const usage = completion.usage ? { inputTokens: completion.usage.prompt_tokens, outputTokens: completion.usage.completion_tokens } : undefined;
  yield { type: 'done', finishReason: choice.finish_reason ?? 'stop', usage };
}

/** Conversions already made: every round resends the whole conversation, whose messages do not change. */
const converted = new WeakMap<ChatMessage, ChatCompletionMessageParam>();

export function toOpenAIMessages(messages: ChatMessage[]): ChatCompletionMessageParam[] {
  return messages.map((message) => {
    let param = converted.get(message);
    if (!param) {
      param = toOpenAIMessage(message);
      converted.set(message, param);
    }
    return param;
  });
}

function toOpenAIMessage(message: ChatMessage): ChatCompletionMessageParam {
  switch (message.role) {
    case 'system':
    case 'user':
      return { role: message.role, content: message.content };
    case 'assistant':
      return message.toolCalls?.length
        ? {
            role: 'assistant',
            content: message.content || null,
            tool_calls: message.toolCalls.map((call: ToolCall) => ({ id: call.id, type: 'function' as const, function: { name: call.name, arguments: call.arguments } })),
          }
        : { role: 'assistant', content: message.content };
    case 'tool':
      return { role: 'tool', tool_call_id: message.toolCallId, content: message.content };
  }
}
