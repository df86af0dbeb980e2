import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ModelListRoutes } from './modelListRoutes';

/**
 * A scripted language model on 127.0.0.1 that speaks OpenAI's Chat Completions and Gemini's
 * generateContent wire formats, JSON and server-sent events, and injects faults. Tests queue
 * replies; every request is recorded.
 */

export interface ScriptedToolCall {
  name: string;
  /** A JSON object, or raw text (to send malformed arguments). */
  arguments: Record<string, unknown> | string;
  id?: string;
}

export type Fault =
  /** Answer with `status` (401, 429, 500, …) and the provider's error body. */
  | 'http'
  /** Close the connection before any response. */
  | 'reset'
  /** Send the first chunks, then close the connection. */
  | 'reset-mid-stream'
  /** Send the first chunks, then nothing, keeping the connection open. */
  | 'stall'
  /** Send an event whose data is not JSON. */
  | 'malformed'
  /** End the stream in the middle of a tool call's arguments. */
  | 'cut-in-tool-args'
  /** End the stream in the middle of the text, without a finish reason. */
  | 'cut-in-text'
  /**
   * Send the status (200, or `status`) and headers, and for a JSON or error reply the first bytes
   * of the body, then nothing, keeping the connection open.
   */
  | 'stall-after-headers';

/** A reply sent exactly as given, whatever the request's format. */
export interface RawReply {
  status?: number;
  contentType?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface ScriptedReply {
  text?: string;
  /** Explicit text chunks (default: the text split into a few pieces). */
  chunks?: string[];
  toolCalls?: ScriptedToolCall[];
  fault?: Fault;
  status?: number;
  retryAfter?: string;
  errorMessage?: string;
  /** Milliseconds between streamed chunks (to test stopping a long answer). */
  chunkDelayMs?: number;
  /** Gemini only: a thought signature on each function call part. */
  thoughtSignature?: string;
  /** Gemini only: give function calls ids. */
  withCallIds?: boolean;
  /** Send this status, content type and body as they are (error pages, junk, redirects). */
  raw?: RawReply;
  /**
   * A generated answer: `chunk` sent `times` times (as SSE events, or inside one JSON body),
   * written as the client reads it, never built whole in memory.
   */
  repeat?: { chunk: string; times: number };
}

export interface RecordedRequest {
  format: 'openai' | 'gemini' | 'ollama';
  path: string;
  stream: boolean;
  headers: http.IncomingHttpHeaders;
  body: Record<string, unknown>;
  /** Body bytes written to the client so far (raw and generated `repeat` replies). */
  bytesWritten: number;
  /** The client closed the connection before the reply was complete (it stopped reading). */
  clientClosed: boolean;
}

export type Responder = (request: RecordedRequest) => ScriptedReply;

export class ModelServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: ScriptedReply[] = [];
  private fallback: Responder = () => ({ text: 'Scripted reply.' });
  private readonly sockets = new Set<Socket>();
  private nextId = 1;
  /** Models that cannot call tools: a request with tools is refused the way Ollama refuses it. */
  private readonly textOnly = new Set<string>();
  /** Context windows Ollama's /api/show reports, by model (default 32,768). */
  private readonly contextLengths = new Map<string, number>();
  /** `/v1/models`, `/api/tags` and `/v1beta/models`: their contents and faults. */
  readonly modelLists = new ModelListRoutes();

  private constructor(private readonly server: http.Server) {}

  static async start(): Promise<ModelServer> {
    const server = http.createServer();
    const model = new ModelServer(server);
    server.on('request', (req, res) => void model.handle(req, res));
    server.on('connection', (socket) => {
      model.sockets.add(socket);
      socket.on('close', () => model.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return model;
  }

  get origin(): string {
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** The baseURL for OpenAI-compatible clients. */
  get openaiBaseUrl(): string {
    return `${this.origin}/v1`;
  }

  /** The baseURL for Ollama's own API (/api/chat, /api/show). */
  get ollamaBaseUrl(): string {
    return this.origin;
  }

  /** Makes `model` one without tool support: /api/show leaves out "tools" and requests with tools get HTTP 400. */
  setTextOnly(model: string): this {
    this.textOnly.add(model);
    return this;
  }

  /** The context length /api/show reports for `model`. */
  setContextLength(model: string, tokens: number): this {
    this.contextLengths.set(model, tokens);
    return this;
  }

  /** The baseURL for Gemini (a bare origin: the provider adds /v1beta). */
  get geminiBaseUrl(): string {
    return this.origin;
  }

  /** Queues replies; each model call takes the next one. */
  enqueue(...replies: ScriptedReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** What to answer when the queue is empty. */
  setFallback(responder: Responder): this {
    this.fallback = responder;
    return this;
  }

  get pending(): number {
    return this.queue.length;
  }

  reset(): void {
    this.queue.length = 0;
    this.requests.length = 0;
    this.fallback = () => ({ text: 'Scripted reply.' });
  }

  async close(): Promise<void> {
    for (const socket of this.sockets) socket.destroy();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.origin);
    if (this.modelLists.handle(req, url.pathname, res)) return;
    if (req.method === 'POST' && url.pathname === '/api/show') {
      const model = String((await readJson(req)).model ?? '');
      const capabilities = this.textOnly.has(model) ? ['completion'] : ['completion', 'tools'];
      return json(res, 200, { capabilities, model_info: { 'general.architecture': 'scripted', 'scripted.context_length': this.contextLengths.get(model) ?? 32_768 } });
    }
    const body = await readJson(req);
    const gemini = /^\/v1beta\/models\/[^/:]+:(streamGenerateContent|generateContent)$/.exec(url.pathname);
    const openai = req.method === 'POST' && url.pathname === '/v1/chat/completions';
    const ollama = req.method === 'POST' && url.pathname === '/api/chat';
    if (!gemini && !openai && !ollama) return json(res, 404, { error: { message: `No route ${req.method} ${url.pathname}` } });
    const format = gemini ? 'gemini' : ollama ? 'ollama' : 'openai';
    const stream = gemini ? gemini[1] === 'streamGenerateContent' : ollama ? body.stream !== false : body.stream === true;
    const recorded: RecordedRequest = { format, path: url.pathname, stream, headers: req.headers, body, bytesWritten: 0, clientClosed: false };
    res.on('close', () => {
      if (!res.writableFinished) recorded.clientClosed = true;
    });
    this.requests.push(recorded);
    const model = String(body.model ?? '');
    if (format !== 'gemini' && this.textOnly.has(model) && Array.isArray(body.tools) && body.tools.length > 0) {
      const error = `registry.ollama.ai/library/${model} does not support tools`;
      return json(res, 400, format === 'ollama' ? { error } : { error: { message: error, type: 'api_error', code: null } });
    }
    const reply = this.queue.shift() ?? this.fallback(recorded);
    await this.answer(res, recorded, reply);
  }

  private async answer(res: http.ServerResponse, request: RecordedRequest, reply: ScriptedReply): Promise<void> {
    if (reply.raw) {
      const body = reply.raw.body ?? '';
      res.writeHead(reply.raw.status ?? 200, { 'content-type': reply.raw.contentType ?? 'text/plain', ...reply.raw.headers });
      request.bytesWritten += Buffer.byteLength(body);
      res.end(body);
      return;
    }
    if (reply.fault === 'stall-after-headers') {
      const status = reply.status ?? 200;
      res.writeHead(status, { 'content-type': request.stream && status < 400 ? 'text/event-stream' : 'application/json' });
      if (status >= 400) res.write(`{"error":{"code":${status},"message":"${reply.errorMessage ?? 'The body of this error never ends'}`);
      else if (request.stream) res.flushHeaders();
      else res.write(request.format === 'openai' ? '{"id":"chatcmpl-stall","object":"chat.completion","choices":[' : '{"candidates":[');
      return; // keep the connection open, send nothing more
    }
    if (reply.repeat) return this.answerRepeated(res, request, reply.repeat);
    if (reply.fault === 'reset') {
      res.socket?.destroy();
      return;
    }
    if (reply.fault === 'http') {
      const status = reply.status ?? 500;
      const message = reply.errorMessage ?? `Scripted HTTP ${status}`;
      const headers: Record<string, string> = reply.retryAfter ? { 'retry-after': reply.retryAfter } : {};
      const body =
        request.format === 'ollama'
          ? { error: message }
          : request.format === 'openai'
          ? { error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', code: null } }
          : {
              error: {
                code: status,
                message,
                status: status === 429 ? 'RESOURCE_EXHAUSTED' : status === 401 ? 'UNAUTHENTICATED' : 'INTERNAL',
                ...(reply.retryAfter ? { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${reply.retryAfter}s` }] } : {}),
              },
            };
      return json(res, status, body, headers);
    }
    const events = request.format === 'openai' ? this.openaiEvents(reply) : request.format === 'ollama' ? ollamaEvents(reply) : geminiEvents(reply);
    if (!request.stream) {
      const whole = request.format === 'openai' ? this.openaiCompletion(reply) : request.format === 'ollama' ? ollamaCompletion(reply) : geminiCompletion(reply);
      return json(res, 200, whole);
    }
    const ndjson = request.format === 'ollama';
    const frame = (data: unknown) => (ndjson ? `${JSON.stringify(data)}\n` : `data: ${JSON.stringify(data)}\n\n`);
    res.writeHead(200, { 'content-type': ndjson ? 'application/x-ndjson' : 'text/event-stream', 'cache-control': 'no-cache', connection: 'keep-alive' });
    const cutAt = Math.max(1, Math.floor(events.length / 2));
    for (const [index, event] of events.entries()) {
      if (res.destroyed) return;
      if (index === cutAt && (reply.fault === 'stall' || reply.fault === 'reset-mid-stream' || reply.fault === 'cut-in-text')) {
        if (reply.fault === 'stall') return; // keep the connection open, send nothing more
        if (reply.fault === 'reset-mid-stream') res.socket?.destroy();
        else res.end();
        return;
      }
      if (reply.fault === 'malformed' && index === 1) {
        res.write(ndjson ? '{"message": {"content": "unterminated\n' : 'data: {"choices": [{"delta": {"content": "unterminated\n\n');
        res.end();
        return;
      }
      if (reply.fault === 'cut-in-tool-args' && event.cutHere) {
        res.write(frame(event.data));
        res.end();
        return;
      }
      res.write(frame(event.data));
      if (reply.chunkDelayMs) await new Promise((r) => setTimeout(r, reply.chunkDelayMs));
    }
    if (request.format === 'openai') res.write('data: [DONE]\n\n');
    res.end();
  }

  /** Streams a generated answer with backpressure; stops as soon as the client goes away. */
  private async answerRepeated(res: http.ServerResponse, request: RecordedRequest, repeat: { chunk: string; times: number }): Promise<void> {
    const openai = request.format === 'openai';
    const write = async (text: string) => {
      if (res.destroyed) return false;
      request.bytesWritten += Buffer.byteLength(text);
      if (!res.write(text)) {
        await new Promise<void>((resolve) => {
          const done = () => {
            res.off('drain', done).off('close', done);
            resolve();
          };
          res.on('drain', done).on('close', done);
        });
      }
      return !res.destroyed;
    };
    const escaped = JSON.stringify(repeat.chunk).slice(1, -1);
    let piece: string;
    let tail: string;
    if (request.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      const data = openai
        ? { id: 'chatcmpl-repeat', object: 'chat.completion.chunk', created: 1, model: 'scripted-model', choices: [{ index: 0, delta: { content: repeat.chunk }, finish_reason: null }] }
        : { candidates: [{ content: { role: 'model', parts: [{ text: repeat.chunk }] }, index: 0 }] };
      piece = `data: ${JSON.stringify(data)}\n\n`;
      const last = openai
        ? { id: 'chatcmpl-repeat', object: 'chat.completion.chunk', created: 1, model: 'scripted-model', choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] }
        : { candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }] };
      tail = `data: ${JSON.stringify(last)}\n\n${openai ? 'data: [DONE]\n\n' : ''}`;
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!(await write(openai ? '{"id":"chatcmpl-repeat","object":"chat.completion","created":1,"model":"scripted-model","choices":[{"index":0,"message":{"role":"assistant","content":"' : '{"candidates":[{"content":{"role":"model","parts":[{"text":"'))) return;
      piece = escaped;
      tail = openai ? '"},"finish_reason":"stop"}]}' : '"}]},"finishReason":"STOP","index":0}]}';
    }
    for (let i = 0; i < repeat.times; i++) if (!(await write(piece))) return;
    if (await write(tail)) res.end();
  }

  private openaiEvents(reply: ScriptedReply): StreamEvent[] {
    const id = `chatcmpl-${this.nextId++}`;
    const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
      id,
      object: 'chat.completion.chunk',
      created: 1_700_000_000,
      model: 'scripted-model',
      choices: [{ index: 0, delta, finish_reason: finish }],
    });
    const events: StreamEvent[] = [{ data: chunk({ role: 'assistant', content: '' }) }];
    for (const text of textChunks(reply)) events.push({ data: chunk({ content: text }) });
    for (const [index, call] of (reply.toolCalls ?? []).entries()) {
      const args = argumentText(call);
      events.push({ data: chunk({ tool_calls: [{ index, id: call.id ?? `call_${this.nextId++}`, type: 'function', function: { name: call.name, arguments: '' } }] }) });
      const pieces = split(args, 3);
      pieces.forEach((piece, p) => events.push({ data: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), cutHere: p === 0 && pieces.length > 1 }));
    }
    events.push({ data: chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop') });
    return events;
  }

  private openaiCompletion(reply: ScriptedReply): Record<string, unknown> {
    const toolCalls = (reply.toolCalls ?? []).map((call) => ({
      id: call.id ?? `call_${this.nextId++}`,
      type: 'function',
      function: { name: call.name, arguments: argumentText(call) },
    }));
    return {
      id: `chatcmpl-${this.nextId++}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: 'scripted-model',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.text ?? (reply.chunks ? reply.chunks.join('') : null), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
          finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
        },
      ],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
  }
}

interface StreamEvent {
  data: unknown;
  cutHere?: boolean;
}

/** Ollama's /api/chat stream: one JSON object a line, tool calls whole, `done` on the last. */
function ollamaEvents(reply: ScriptedReply): StreamEvent[] {
  const line = (message: Record<string, unknown>, done = false) => ({
    model: 'scripted-ollama',
    created_at: '2026-01-01T00:00:00Z',
    message: { role: 'assistant', content: '', ...message },
    done,
    ...(done ? { done_reason: 'stop', prompt_eval_count: 10, eval_count: 5 } : {}),
  });
  const events: StreamEvent[] = textChunks(reply).map((content) => ({ data: line({ content }) }));
  const calls = ollamaCalls(reply);
  if (calls.length) events.push({ data: line({ tool_calls: calls }), cutHere: true });
  events.push({ data: line({}, true) });
  return events;
}

function ollamaCompletion(reply: ScriptedReply): Record<string, unknown> {
  const calls = ollamaCalls(reply);
  return {
    model: 'scripted-ollama',
    message: { role: 'assistant', content: reply.text ?? (reply.chunks ? reply.chunks.join('') : ''), ...(calls.length ? { tool_calls: calls } : {}) },
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 10,
    eval_count: 5,
  };
}

function ollamaCalls(reply: ScriptedReply): unknown[] {
  return (reply.toolCalls ?? []).map((call) => ({ function: { name: call.name, arguments: typeof call.arguments === 'string' ? safeParse(call.arguments) : call.arguments } }));
}

function geminiEvents(reply: ScriptedReply): StreamEvent[] {
  const candidate = (parts: unknown[], finishReason?: string) => ({
    candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    ...(finishReason ? { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 } } : {}),
  });
  const events: StreamEvent[] = textChunks(reply).map((text) => ({ data: candidate([{ text }]) }));
  const calls = geminiCallParts(reply);
  if (calls.length) events.push({ data: candidate(calls), cutHere: true });
  events.push({ data: candidate(calls.length ? [] : [{ text: '' }], 'STOP') });
  return events;
}

function geminiCompletion(reply: ScriptedReply): Record<string, unknown> {
  const parts = [...(reply.text || reply.chunks ? [{ text: reply.text ?? reply.chunks!.join('') }] : []), ...geminiCallParts(reply)];
  return { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 } };
}

function geminiCallParts(reply: ScriptedReply): unknown[] {
  return (reply.toolCalls ?? []).map((call, i) => ({
    functionCall: { ...(reply.withCallIds ? { id: call.id ?? `gem-${i}` } : {}), name: call.name, args: typeof call.arguments === 'string' ? safeParse(call.arguments) : call.arguments },
    ...(reply.thoughtSignature ? { thoughtSignature: reply.thoughtSignature } : {}),
  }));
}

function textChunks(reply: ScriptedReply): string[] {
  if (reply.chunks) return reply.chunks;
  if (!reply.text) return [];
  return split(reply.text, Math.min(4, reply.text.length));
}

function argumentText(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** Splits text into `parts` nearly equal pieces (tool-call deltas split across chunks). */
function split(text: string, parts: number): string[] {
  if (parts <= 1 || text.length < parts) return [text];
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

async function readJson(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  let text = '';
  for await (const chunk of req) text += chunk;
  try {
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

function json(res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}
