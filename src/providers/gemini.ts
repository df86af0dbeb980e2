import { createParser, type EventSourceMessage } from 'eventsource-parser';
import { toGeminiRequestTools } from './geminiSchema';
import { resolveLimits, type ModelLimits } from './contextWindow';
import { DEFAULT_BASE_URLS, DEFAULT_MODELS } from './defaults';
import { describeBody } from './errorText';
import { httpError, idleTimeoutError, ProviderError } from './errors';
import { readBodyText, wholeLines } from './httpBody';
import { fetchFailure, postJson, safeJson } from './jsonPost';
import { MAX_TOOL_ARGUMENT_CHARS, OVERSIZED_ARGUMENTS_PLACEHOLDER, oversizedArgumentsError } from './limits';
import { DEFAULT_IDLE_TIMEOUT_MS, generatedCallId, IdleWatch, linkedController, withRetries } from './streaming';
import type { ChatMessage, ChatProvider, ChatRequest, ProviderEvent, ProviderTimeouts, ToolCall, Usage } from './types';

export const GEMINI_DEFAULT_BASE_URL = DEFAULT_BASE_URLS.gemini;
export const GEMINI_DEFAULT_MODEL = DEFAULT_MODELS.gemini;
const API_VERSION = 'v1beta';

export interface GeminiProviderOptions extends ProviderTimeouts {
  /** The person's context window setting (tokens); 0 or undefined uses the table of known models. */
  contextTokens?: number;
  apiKey: string;
  /** The bare origin; the provider adds the API version path. */
  baseURL?: string;
  model: string;
}

interface GeminiPart {
  text?: string;
  thought?: boolean;
  thoughtSignature?: string;
  functionCall?: { id?: string; name: string; args?: Record<string, unknown> };
  functionResponse?: { id?: string; name: string; response: Record<string, unknown> };
}

interface GeminiContent {
  role: 'user' | 'model';
  parts: GeminiPart[];
}

interface GeminiResponse {
  candidates?: { content?: { parts?: GeminiPart[] }; finishReason?: string }[];
  promptFeedback?: { blockReason?: string };
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number };
  error?: { code?: number; message?: string; status?: string };
}

/** Gemini's native generateContent / streamGenerateContent API over fetch, with SSE parsed by eventsource-parser. */
export class GeminiProvider implements ChatProvider {
  readonly name = 'gemini';
  readonly model: string;
  readonly baseURL: string;
  private readonly apiKey: string;
  private readonly timeouts: ProviderTimeouts & { contextTokens?: number };

  constructor(options: GeminiProviderOptions) {
    this.apiKey = options.apiKey;
    this.model = (options.model || GEMINI_DEFAULT_MODEL).replace(/^models\//, '');
    this.baseURL = (options.baseURL || GEMINI_DEFAULT_BASE_URL).replace(/\/+$/, '');
    this.timeouts = options;
  }

  /** The model's window: the person's setting, else the table of known models. */
  limits(): Promise<ModelLimits> {
    return Promise.resolve(resolveLimits(this.model, { setting: this.timeouts.contextTokens }));
  }

  async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
    const controller = linkedController(request.signal);
    const streaming = request.stream !== false;
    const url = `${this.baseURL}/${API_VERSION}/models/${encodeURIComponent(this.model)}:${streaming ? 'streamGenerateContent?alt=sse' : 'generateContent'}`;
    const body = JSON.stringify(toGeminiRequest(request));
    const idleMs = this.timeouts.idleTimeoutMs ?? DEFAULT_IDLE_TIMEOUT_MS;
    try {
      const response = await withRetries(() => this.post(url, body, controller, idleMs), this.timeouts, controller.signal);
      const idle = new IdleWatch(idleMs, () => controller.abort()).start();
      try {
        yield* this.events(streaming ? sseResponses(response, idle) : jsonResponse(response, idle));
      } catch (error) {
        throw idle.fired ? idleTimeoutError(this.name, idleMs) : error;
      } finally {
        idle.stop();
      }
    } catch (error) {
      throw this.toProviderError(error, controller);
    } finally {
      controller.release();
    }
  }

  private post(url: string, body: string, controller: AbortController, idleMs: number): Promise<Response> {
    return postJson({
      provider: this.name,
      model: this.model,
      baseURL: this.baseURL,
      url,
      body,
      headers: { 'x-goog-api-key': this.apiKey },
      controller,
      idleMs,
      refineError: (text, response) => {
        const parsed = safeJson<GeminiResponse & { error?: { details?: { '@type'?: string; retryDelay?: string }[] } }>(text);
        const details = Array.isArray(parsed?.error?.details) ? parsed.error.details : [];
        const retryInfo = details.find((d) => typeof d?.['@type'] === 'string' && d['@type'].endsWith('RetryInfo'))?.retryDelay;
        const retryDelay = typeof retryInfo === 'string' ? parseFloat(retryInfo) * 1000 : NaN;
        return {
          retryAfterMs: Number.isFinite(retryDelay) ? retryDelay : undefined,
          status: response.status === 400 && /API key/i.test(describeBody(text)) ? 401 : undefined,
        };
      },
    });
  }

  private async *events(responses: AsyncIterable<GeminiResponse>): AsyncGenerator<ProviderEvent> {
    const calls: ToolCall[] = [];
    let finishReason: string | undefined;
    let usage: Usage | undefined;
    let argumentChars = 0; // over all calls of the reply, like the OpenAI assembler
    for await (const response of responses) {
      if (response.error) {
        const code = typeof response.error.code === 'number' ? response.error.code : 500;
        throw httpError(this.name, code, JSON.stringify({ error: response.error }), { model: this.model, url: this.baseURL });
      }
      if (response.promptFeedback?.blockReason) {
        throw new ProviderError(`Gemini blocked the request (${response.promptFeedback.blockReason}).`, { kind: 'bad_request', provider: this.name });
      }
      if (response.usageMetadata) usage = { inputTokens: response.usageMetadata.promptTokenCount, outputTokens: response.usageMetadata.candidatesTokenCount };
      const candidate = response.candidates?.[0];
      const parts = candidate?.content?.parts;
      for (const part of Array.isArray(parts) ? parts : []) {
        if (part?.functionCall && typeof part.functionCall.name === 'string') {
          const args = JSON.stringify(part.functionCall.args ?? {}) ?? '{}';
          const tooLong = argumentChars + args.length > MAX_TOOL_ARGUMENT_CHARS;
          if (!tooLong) argumentChars += args.length;
          const call: ToolCall = {
            id: typeof part.functionCall.id === 'string' && part.functionCall.id ? part.functionCall.id : generatedCallId(),
            name: part.functionCall.name,
            arguments: tooLong ? OVERSIZED_ARGUMENTS_PLACEHOLDER : args,
            ...(tooLong ? { unreadable: oversizedArgumentsError(part.functionCall.name) } : {}),
          };
          const providerData = { ...(part.functionCall.id ? { geminiId: part.functionCall.id } : {}), ...(part.thoughtSignature ? { thoughtSignature: part.thoughtSignature } : {}) };
          if (Object.keys(providerData).length) call.providerData = providerData;
          calls.push(call);
          yield { type: 'tool_call_begin', id: call.id, name: call.name };
        } else if (typeof part?.text === 'string' && part.text && !part.thought) {
          yield { type: 'text', text: part.text };
        }
      }
      if (candidate?.finishReason) finishReason = candidate.finishReason;
    }
    if (!finishReason) {
      throw new ProviderError('The answer from Gemini broke off before it was finished. Try again.', { kind: 'protocol', provider: this.name });
    }
    if (finishReason !== 'STOP' && finishReason !== 'MAX_TOKENS' && calls.length === 0) {
      throw new ProviderError(`Gemini stopped without an answer (${finishReason}).`, { kind: 'bad_request', provider: this.name });
    }
    for (const call of calls) yield { type: 'tool_call', call };
    yield { type: 'done', finishReason, usage };
  }

  private toProviderError(error: unknown, controller: AbortController): ProviderError {
    return fetchFailure(error, controller, this.name, this.baseURL);
  }

}

/** Maps the neutral conversation to Gemini's contents, system instruction and tools. */
export function toGeminiRequest(request: Pick<ChatRequest, 'messages' | 'tools'>): Record<string, unknown> {
  const system = request.messages.filter((m) => m.role === 'system').map((m) => m.content).join('\n\n');
  const contents: GeminiContent[] = [];
  const push = (role: GeminiContent['role'], parts: GeminiPart[]) => {
    if (parts.length === 0) return;
    const last = contents[contents.length - 1];
    if (last && last.role === role) last.parts.push(...parts);
    else contents.push({ role, parts });
  };
  const geminiIds = new Map<string, string>();
  for (const message of request.messages) {
    if (message.role !== 'assistant') continue;
    for (const call of message.toolCalls ?? []) if (typeof call.providerData?.geminiId === 'string') geminiIds.set(call.id, call.providerData.geminiId);
  }
  for (const message of request.messages) push(...toContent(message, geminiIds));
  return {
    contents,
    ...(system ? { systemInstruction: { parts: [{ text: system }] } } : {}),
    ...(request.tools.length > 0 ? { tools: [toGeminiRequestTools(request.tools)] } : {}),
  };
}

function toContent(message: ChatMessage, geminiIds: Map<string, string>): [GeminiContent['role'], GeminiPart[]] {
  switch (message.role) {
    case 'system':
      return ['user', []];
    case 'user':
      return ['user', message.content ? [{ text: message.content }] : []];
    case 'assistant': {
      const parts: GeminiPart[] = message.content ? [{ text: message.content }] : [];
      for (const call of message.toolCalls ?? []) {
        const id = call.providerData?.geminiId as string | undefined;
        const signature = call.providerData?.thoughtSignature as string | undefined;
        parts.push({ functionCall: { ...(id ? { id } : {}), name: call.name, args: argsObject(call.arguments) }, ...(signature ? { thoughtSignature: signature } : {}) });
      }
      return ['model', parts];
    }
    case 'tool': {
      const id = geminiIds.get(message.toolCallId);
      return ['user', [{ functionResponse: { ...(id ? { id } : {}), name: message.name, response: { result: message.content } } }]];
    }
  }
}

function argsObject(text: string): Record<string, unknown> {
  const parsed = safeJson<unknown>(text);
  return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

async function* sseResponses(response: Response, idle: IdleWatch): AsyncGenerator<GeminiResponse> {
  if (!response.body) throw new ProviderError('Gemini answered without a body.', { kind: 'protocol', provider: 'gemini' });
  const queue: EventSourceMessage[] = [];
  const parser = createParser({ onEvent: (event) => queue.push(event) });
  const decoder = new TextDecoder();
  // Whole lines only: the parser rescans an unfinished line per chunk, and the line length is capped.
  for await (const chunk of wholeLines(response.body, 'gemini') as unknown as AsyncIterable<Uint8Array>) {
    idle.touch();
    parser.feed(decoder.decode(chunk, { stream: true }));
    while (queue.length) {
      const data = queue.shift()!.data;
      const parsed = safeJson<GeminiResponse>(data);
      if (!parsed || typeof parsed !== 'object') {
        throw new ProviderError(`Gemini sent a malformed event: ${data.slice(0, 80)}`, { kind: 'protocol', provider: 'gemini' });
      }
      yield parsed;
    }
  }
}

async function* jsonResponse(response: Response, idle: IdleWatch): AsyncGenerator<GeminiResponse> {
  const text = await readBodyText(response.body, idle, 'gemini');
  const parsed = safeJson<GeminiResponse>(text);
  if (!parsed) throw new ProviderError('Gemini sent a reply that is not JSON.', { kind: 'protocol', provider: 'gemini' });
  yield parsed;
}

