import { resolveLimits, type ModelLimits } from './contextWindow';
import { DEFAULT_MODELS } from './defaults';
import { idleTimeoutError, ProviderError } from './errors';
import { readBodyText, wholeLines } from './httpBody';
import { fetchFailure, postJson, safeJson } from './jsonPost';
import { MAX_TOOL_ARGUMENT_CHARS, OVERSIZED_ARGUMENTS_PLACEHOLDER, oversizedArgumentsError } from './limits';
import { DEFAULT_IDLE_TIMEOUT_MS, generatedCallId, IdleWatch, linkedController, withRetries } from './streaming';
import { estimateTokens } from './tokens';
import type { ChatMessage, ChatProvider, ChatRequest, ProviderEvent, ProviderTimeouts, ToolCall, Usage } from './types';

export const OLLAMA_NATIVE_DEFAULT_BASE_URL = 'http://127.0.0.1:11434';
/** The smallest context Toolbelt asks Ollama for; sizes grow in these steps so the model is reloaded rarely. */
export const NUM_CTX_STEP = 8192;

export interface OllamaNativeOptions extends ProviderTimeouts {
  model: string;
  /** Ollama's address; a trailing /v1 (the OpenAI-compatible path) is dropped. */
  baseURL?: string;
  /** Ollama needs none; a proxy in front of it might. */
  apiKey?: string;
  /** The person's context window setting (tokens), 0 or undefined for the model's own. */
  contextTokens?: number;
}

/** What /api/show says of a model. */
export interface OllamaModelInfo {
  capabilities: string[];
  contextTokens?: number;
}

interface OllamaChunk {
  message?: { role?: string; content?: string; thinking?: string; tool_calls?: { function?: { name?: string; arguments?: unknown } }[] };
  done?: boolean;
  done_reason?: string;
  prompt_eval_count?: number;
  eval_count?: number;
  error?: string;
}

/**
 * Ollama's own chat API (`/api/chat`, newline-delimited JSON), so Toolbelt can size the
 * model's context window (`options.num_ctx`) to the conversation instead of letting the
 * server's small default truncate the prompt silently, and can see (`/api/show`) whether the
 * model calls tools at all.
 */
export class OllamaNativeProvider implements ChatProvider {
  readonly name = 'ollama';
  readonly model: string;
  readonly baseURL: string;
  private readonly timeouts: ProviderTimeouts;
  private info: Promise<OllamaModelInfo> | undefined;

  constructor(private readonly options: OllamaNativeOptions) {
    this.model = options.model || DEFAULT_MODELS.ollama;
    this.baseURL = (options.baseURL || OLLAMA_NATIVE_DEFAULT_BASE_URL).replace(/\/+$/, '').replace(/\/v1$/, '');
    this.timeouts = options;
  }

  /** The model's capabilities and context length, asked once. */
  modelInfo(signal?: AbortSignal): Promise<OllamaModelInfo> {
    this.info ??= this.show(signal).catch((error: unknown) => {
      this.info = undefined;
      throw error;
    });
    return this.info;
  }

  async supportsTools(signal?: AbortSignal): Promise<boolean> {
    return (await this.modelInfo(signal)).capabilities.includes('tools');
  }

  async limits(signal?: AbortSignal): Promise<ModelLimits> {
    const info = await this.modelInfo(signal).catch(() => undefined);
    const fromService = info?.contextTokens ? { contextTokens: info.contextTokens, source: 'service' as const } : undefined;
    return resolveLimits(this.model, { setting: this.options.contextTokens, fromService });
  }

  async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
    const controller = linkedController(request.signal);
    const streaming = request.stream !== false;
    const idleMs = this.timeouts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    try {
      const numCtx = contextSize(request, await this.limits(controller.signal));
      const body = JSON.stringify({
        model: this.model,
        messages: toOllamaMessages(request.messages),
        ...(request.tools.length > 0 ? { tools: request.tools } : {}),
        stream: streaming,
        options: { num_ctx: numCtx },
      });
      const response = await withRetries(() => this.post('/api/chat', body, controller, idleMs), this.timeouts, controller.signal);
      const idle = new IdleWatch(idleMs, () => controller.abort()).start();
      try {
        yield* this.events(streaming ? ndjson(response, idle, this.name) : single(response, idle, this.name));
      } catch (error) {
        throw idle.fired ? idleTimeoutError(this.name, idleMs) : error;
      } finally {
        idle.stop();
      }
    } catch (error) {
      throw fetchFailure(error, controller, this.name, this.baseURL);
    } finally {
      controller.release();
    }
  }

  private async show(signal?: AbortSignal): Promise<OllamaModelInfo> {
    const controller = linkedController(signal);
    const idleMs = this.timeouts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    try {
      const response = await this.post('/api/show', JSON.stringify({ model: this.model }), controller, idleMs);
      const idle = new IdleWatch(idleMs, () => controller.abort()).start();
      try {
        return parseShow(await readBodyText(response.body, idle, this.name));
      } finally {
        idle.stop();
      }
    } catch (error) {
      throw fetchFailure(error, controller, this.name, this.baseURL);
    } finally {
      controller.release();
    }
  }

  private post(path: string, body: string, controller: AbortController, idleMs: number): Promise<Response> {
    return postJson({
      provider: this.name,
      model: this.model,
      baseURL: this.baseURL,
      url: `${this.baseURL}${path}`,
      body,
      headers: this.options.apiKey ? { authorization: `Bearer ${this.options.apiKey}` } : {},
      controller,
      idleMs,
    });
  }

  private async *events(chunks: AsyncIterable<OllamaChunk>): AsyncGenerator<ProviderEvent> {
    const calls: ToolCall[] = [];
    let argumentChars = 0;
    let usage: Usage | undefined;
    let finishReason: string | undefined;
    for await (const chunk of chunks) {
      if (typeof chunk.error === 'string') throw new ProviderError(`Ollama stopped with an error: ${chunk.error}`, { kind: 'server', provider: this.name });
      const message = chunk.message;
      if (typeof message?.content === 'string' && message.content) yield { type: 'text', text: message.content };
      for (const raw of Array.isArray(message?.tool_calls) ? message.tool_calls : []) {
        const name = raw?.function?.name;
        if (typeof name !== 'string' || !name) continue;
        const rawArgs = raw.function?.arguments;
        const args = typeof rawArgs === 'string' ? rawArgs : (JSON.stringify(rawArgs ?? {}) ?? '{}');
        argumentChars += args.length;
        const tooLong = argumentChars > MAX_TOOL_ARGUMENT_CHARS;
        const call: ToolCall = { id: generatedCallId(), name, arguments: tooLong ? OVERSIZED_ARGUMENTS_PLACEHOLDER : args };
        if (tooLong) call.unreadable = oversizedArgumentsError(name);
        calls.push(call);
        yield { type: 'tool_call_begin', id: call.id, name };
      }
      if (chunk.done) {
        finishReason = chunk.done_reason || 'stop';
        usage = { inputTokens: chunk.prompt_eval_count, outputTokens: chunk.eval_count };
      }
    }
    if (!finishReason) throw new ProviderError('The answer from Ollama broke off before it was finished. Try again.', { kind: 'protocol', provider: this.name });
    for (const call of calls) yield { type: 'tool_call', call };
    yield { type: 'done', finishReason: calls.length ? 'tool_calls' : finishReason, usage };
  }
}

/**
 * The num_ctx to ask for: the request and room for the answer, rounded up to a step so the
 * model is reloaded only when the conversation grows past one, and never past the model's own
 * window.
 */
export function contextSize(request: Pick<ChatRequest, 'messages' | 'tools'>, limits: ModelLimits): number {
  let tokens = estimateTokens(JSON.stringify(request.tools));
  for (const message of request.messages) tokens += 4 + estimateTokens(message.content) + (message.role === 'assistant' ? estimateTokens(JSON.stringify(message.toolCalls ?? [])) : 0);
  const wanted = tokens + Math.min(4096, Math.floor(limits.contextTokens / 4));
  const stepped = Math.max(NUM_CTX_STEP, Math.ceil(wanted / NUM_CTX_STEP) * NUM_CTX_STEP);
  return Math.min(stepped, limits.contextTokens);
}

export function toOllamaMessages(messages: readonly ChatMessage[]): Record<string, unknown>[] {
  return messages.map((message) => {
    switch (message.role) {
      case 'assistant':
        return {
          role: 'assistant',
          content: message.content,
          ...(message.toolCalls?.length ? { tool_calls: message.toolCalls.map((call) => ({ function: { name: call.name, arguments: argumentsObject(call.arguments) } })) } : {}),
        };
      case 'tool':
        return { role: 'tool', content: message.content, tool_name: message.name };
      default:
        return { role: message.role, content: message.content };
    }
  });
}

export function parseShow(text: string): OllamaModelInfo {
  const parsed = safeJson<{ capabilities?: unknown; model_info?: Record<string, unknown>; parameters?: unknown }>(text);
  if (!parsed || typeof parsed !== 'object') throw new ProviderError('Ollama described the model in a reply that is not JSON.', { kind: 'protocol', provider: 'ollama' });
  const capabilities = Array.isArray(parsed.capabilities) ? parsed.capabilities.filter((c): c is string => typeof c === 'string') : [];
  let contextTokens: number | undefined;
  for (const [key, value] of Object.entries(parsed.model_info ?? {})) {
    if (key.endsWith('.context_length') && typeof value === 'number' && value > 0) contextTokens = value;
  }
  return { capabilities, contextTokens };
}

function argumentsObject(text: string): Record<string, unknown> {
  const parsed = safeJson<unknown>(text);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

async function* ndjson(response: Response, idle: IdleWatch, provider: string): AsyncGenerator<OllamaChunk> {
  if (!response.body) throw new ProviderError('Ollama answered without a body.', { kind: 'protocol', provider });
  const decoder = new TextDecoder();
  let pending = '';
  for await (const bytes of wholeLines(response.body, provider) as unknown as AsyncIterable<Uint8Array>) {
    idle.touch();
    pending += decoder.decode(bytes, { stream: true });
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) yield parseChunk(line, provider);
  }
  pending += decoder.decode();
  if (pending.trim()) yield parseChunk(pending, provider);
}

async function* single(response: Response, idle: IdleWatch, provider: string): AsyncGenerator<OllamaChunk> {
  yield parseChunk(await readBodyText(response.body, idle, provider), provider);
}

function parseChunk(line: string, provider: string): OllamaChunk {
  const parsed = safeJson<OllamaChunk>(line);
  if (!parsed || typeof parsed !== 'object') throw new ProviderError(`Ollama sent a line that is not JSON: ${line.slice(0, 80)}`, { kind: 'protocol', provider });
  return parsed;
}
