import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { ModelListRoutes } from './modelListRoutes';

import type { ScriptedReply } from './modelServerScript';
import type { WireFormat } from './modelServerWire';
import { anthropicWire } from './modelServerWireAnthropic';
import { geminiWire } from './modelServerWireGemini';
import { ollamaWire } from './modelServerWireOllama';
import { openaiWire } from './modelServerWireOpenAI';
import { responsesWire } from './modelServerWireResponses';

export type { Fault, RawReply, ScriptedReply, ScriptedToolCall } from './modelServerScript';

/**
 * A scripted language model on 127.0.0.1 that speaks OpenAI's Chat Completions and Responses,
 * Anthropic's Messages, Ollama's /api/chat and Gemini's generateContent, JSON and streamed, and
 * injects faults. Tests queue replies; every
 * request is recorded. How each provider encodes a reply is in modelServerWire<Provider>.ts.
 */

export interface RecordedRequest {
  format: 'openai' | 'gemini' | 'ollama' | 'anthropic' | 'responses';
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

const WIRE: Record<RecordedRequest['format'], WireFormat> = { openai: openaiWire, ollama: ollamaWire, gemini: geminiWire, anthropic: anthropicWire, responses: responsesWire };

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

  /** ANTHROPIC_BASE_URL for Claude Code (a bare origin: it adds /v1/messages). */
  get anthropicBaseUrl(): string {
    return this.origin;
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
    // Claude Code counts tokens before long prompts; a fixed count keeps it going.
    if (req.method === 'POST' && url.pathname === '/v1/messages/count_tokens') return json(res, 200, { input_tokens: 10 });
    const gemini = /^\/v1beta\/models\/[^/:]+:(streamGenerateContent|generateContent)$/.exec(url.pathname);
    const openai = req.method === 'POST' && url.pathname === '/v1/chat/completions';
    const ollama = req.method === 'POST' && url.pathname === '/api/chat';
    const anthropic = req.method === 'POST' && url.pathname === '/v1/messages';
    const responses = req.method === 'POST' && url.pathname === '/v1/responses';
    if (!gemini && !openai && !ollama && !anthropic && !responses) return json(res, 404, { error: { message: `No route ${req.method} ${url.pathname}` } });
    const format = gemini ? 'gemini' : ollama ? 'ollama' : anthropic ? 'anthropic' : responses ? 'responses' : 'openai';
    const stream = gemini ? gemini[1] === 'streamGenerateContent' : ollama ? body.stream !== false : body.stream === true;
    const recorded: RecordedRequest = { format, path: url.pathname, stream, headers: req.headers, body, bytesWritten: 0, clientClosed: false };
    res.on('close', () => {
      if (!res.writableFinished) recorded.clientClosed = true;
    });
    this.requests.push(recorded);
    const model = String(body.model ?? '');
    if ((format === 'openai' || format === 'ollama') && this.textOnly.has(model) && Array.isArray(body.tools) && body.tools.length > 0) {
      const error = `registry.ollama.ai/library/${model} does not support tools`;
      return json(res, 400, format === 'ollama' ? { error } : { error: { message: error, type: 'api_error', code: null } });
    }
    const reply = this.queue.shift() ?? this.fallback(recorded);
    await this.answer(res, recorded, reply);
  }

  private async answer(res: http.ServerResponse, request: RecordedRequest, reply: ScriptedReply): Promise<void> {
    const wire = WIRE[request.format];
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
      else res.write(wire.stalledJsonStart);
      return; // keep the connection open, send nothing more
    }
    if (reply.repeat) return this.answerRepeated(res, request, wire.repeat, reply.repeat);
    if (reply.fault === 'reset') {
      res.socket?.destroy();
      return;
    }
    if (reply.fault === 'http') {
      const status = reply.status ?? 500;
      const message = reply.errorMessage ?? `Scripted HTTP ${status}`;
      const headers: Record<string, string> = reply.retryAfter ? { 'retry-after': reply.retryAfter } : {};
      return json(res, status, wire.errorBody(status, message, reply.retryAfter), headers);
    }
    const nextId = () => this.nextId++;
    const events = wire.events(reply, nextId);
    if (!request.stream) return json(res, 200, wire.completion(reply, nextId));
    const { frame } = wire.stream;
    res.writeHead(200, { 'content-type': wire.stream.contentType, 'cache-control': 'no-cache', connection: 'keep-alive' });
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
        res.write(wire.stream.malformed);
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
    if (wire.stream.end) res.write(wire.stream.end);
    res.end();
  }

  /** Streams a generated answer with backpressure; stops as soon as the client goes away. */
  private async answerRepeated(res: http.ServerResponse, request: RecordedRequest, encoding: WireFormat['repeat'], repeat: { chunk: string; times: number }): Promise<void> {
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
    let piece: string;
    let tail: string;
    if (request.stream) {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      piece = encoding.event(repeat.chunk);
      tail = encoding.tail;
    } else {
      res.writeHead(200, { 'content-type': 'application/json' });
      if (!(await write(encoding.jsonHead))) return;
      piece = JSON.stringify(repeat.chunk).slice(1, -1);
      tail = encoding.jsonTail;
    }
    for (let i = 0; i < repeat.times; i++) if (!(await write(piece))) return;
    if (await write(tail)) res.end();
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
