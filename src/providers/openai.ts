import OpenAI from 'openai';
import type { Stream } from 'openai/core/streaming';
import type { ChatCompletion, ChatCompletionChunk, ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { DEFAULT_BASE_URLS, DEFAULT_MODELS } from './defaults';
import { abortedError, httpError, idleTimeoutError, labelOf, networkError, ProviderError, retryAfterMs } from './errors';
import { DEFAULT_IDLE_TIMEOUT_MS, generatedCallId, IdleWatch, withRetries } from './streaming';
import type { ChatMessage, ChatProvider, ChatRequest, ProviderEvent, ProviderTimeouts, ToolCall, Usage } from './types';

export const OPENAI_DEFAULT_BASE_URL = DEFAULT_BASE_URLS.openai;
export const OPENAI_DEFAULT_MODEL = DEFAULT_MODELS.openai;

export interface OpenAIProviderOptions extends ProviderTimeouts {
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
  private readonly timeouts: ProviderTimeouts;

  constructor(options: OpenAIProviderOptions) {
    this.model = options.model || OPENAI_DEFAULT_MODEL;
    this.baseURL = (options.baseURL || this.defaultBaseURL()).replace(/\/+$/, '');
    this.timeouts = options;
    this.client = new OpenAI({
      apiKey: options.apiKey || 'not-needed',
      baseURL: this.baseURL,
      maxRetries: 0,
      timeout: options.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS,
    });
  }

  protected defaultBaseURL(): string {
    return OPENAI_DEFAULT_BASE_URL;
  }

  async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
    const signal = request.signal;
    const streaming = request.stream !== false;
    const body = {
      model: this.model,
      messages: toOpenAIMessages(request.messages),
      ...(request.tools.length > 0 ? { tools: request.tools } : {}),
    };
    const send = () =>
      streaming
        ? this.client.chat.completions.create({ ...body, stream: true }, { signal })
        : this.client.chat.completions.create({ ...body, stream: false }, { signal });
    let response: ChatCompletion | Stream<ChatCompletionChunk>;
    try {
      response = await withRetries(() => send().catch((error: unknown) => Promise.reject(this.toProviderError(error, signal))), this.timeouts, signal);
    } catch (error) {
      throw this.toProviderError(error, signal);
    }
    if (!streaming) {
      yield* completionEvents(response as ChatCompletion);
      return;
    }
    const stream = response as Stream<ChatCompletionChunk>;
    const assembler = new ChunkAssembler(this.name);
    // The SDK's stream carries its own AbortController, linked to the caller's signal.
    const idle = new IdleWatch(this.idleMs, () => stream.controller.abort()).start();
    try {
      for await (const chunk of stream) {
        idle.touch();
        yield* assembler.push(chunk);
      }
      yield* assembler.finish();
    } catch (error) {
      throw idle.fired ? idleTimeoutError(this.name, this.idleMs) : this.toProviderError(error, signal);
    } finally {
      idle.stop();
    }
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
      return new ProviderError(`${labelOf(this.name)} did not answer within ${Math.round(this.idleMs / 1000)} s. Try again.`, { kind: 'timeout', provider: this.name, cause: error });
    }
    if (error instanceof OpenAI.APIConnectionError) return networkError(this.name, this.baseURL, error.cause ?? error);
    if (error instanceof OpenAI.APIError && typeof error.status === 'number') {
      const detail = apiErrorDetail(error);
      return httpError(this.name, error.status, detail, { model: this.model, url: this.baseURL, retryAfterMs: retryAfterMs(error.headers) });
    }
    const message = error instanceof Error ? error.message : String(error);
    return new ProviderError(`${labelOf(this.name)} sent a reply Toolbelt could not read (${message}). Try again.`, { kind: 'protocol', provider: this.name, cause: error });
  }
}

/** Turns Chat Completions chunks into events; tool calls are assembled from their deltas. */
export class ChunkAssembler {
  private readonly calls: { id: string; name: string; arguments: string; announced: boolean }[] = [];
  private finishReason: string | undefined;
  private usage: Usage | undefined;

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
      const call = (this.calls[index] ??= { id: '', name: '', arguments: '', announced: false });
      if (part.id) call.id = part.id;
      if (part.function?.name) call.name = call.name && call.name !== part.function.name ? call.name + part.function.name : part.function.name;
      if (part.function?.arguments) call.arguments += part.function.arguments;
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
      .map((call) => ({ type: 'tool_call', call: { id: call.id || generatedCallId(), name: call.name, arguments: call.arguments } }));
    events.push({ type: 'done', finishReason: this.finishReason, usage: this.usage });
    return events;
  }
}

function apiErrorDetail(error: InstanceType<typeof OpenAI.APIError>): string {
  const body = error.error as { message?: unknown } | string | undefined;
  if (body && typeof body === 'object' && typeof body.message === 'string') return body.message;
  if (typeof body === 'string') return body.slice(0, 300);
  return error.message.replace(/^\d{3}\s*/, '').replace(/^status code \(no body\)$/, '');
}

function* completionEvents(completion: ChatCompletion): Generator<ProviderEvent> {
  const choice = completion.choices?.[0];
  if (!choice) throw new ProviderError('The model answered with no choices.', { kind: 'protocol', provider: 'openai' });
  const message = choice.message;
  if (message.content) yield { type: 'text', text: message.content };
  for (const call of message.tool_calls ?? []) {
    if (call.type !== 'function') continue;
    const id = call.id || generatedCallId();
    yield { type: 'tool_call_begin', id, name: call.function.name };
    yield { type: 'tool_call', call: { id, name: call.function.name, arguments: call.function.arguments ?? '' } };
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
