import { DEFAULT_BASE_URLS } from './defaults';
import { customHost, endpointName, formatWait, ProviderError, sentence } from './errors';
import { describeBody } from './errorText';
import type { ServiceName } from './providerNames';

/**
 * The models a server offers, from its own list: OpenAI-compatible `/v1/models` (OpenAI, LM
 * Studio, vLLM, llama.cpp), Ollama's `/api/tags`, Gemini's `models` list. Pure Node (fetch);
 * every call is bounded in time and size and honours an AbortSignal.
 */

export interface ListedModel {
  id: string;
  /** What else the server says of it (size, display name), for the picker's description. */
  detail?: string;
}

export interface ModelListRequest {
  provider: ServiceName;
  /** As in `toolbelt.baseUrl`; empty uses the provider's default. */
  baseUrl?: string;
  apiKey?: string;
  signal?: AbortSignal;
  /** Longest wait for the whole list (default 8 s). */
  timeoutMs?: number;
  /** Largest body read (default 4 MB). */
  maxBytes?: number;
}

export const MODEL_LIST_TIMEOUT_MS = 8_000;
export const MODEL_LIST_MAX_BYTES = 4 * 1024 * 1024;
/** More than anyone scrolls through in a picker. */
export const MODEL_LIST_MAX_MODELS = 2_000;

export async function listModels(request: ModelListRequest): Promise<ListedModel[]> {
  const base = (request.baseUrl?.trim() || DEFAULT_BASE_URLS[request.provider]).replace(/\/+$/, '');
  const { url, headers } = listEndpoint(request.provider, base, request.apiKey);
  const text = await getText(url, headers, { ...request, base });
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw listError(request.provider, base, 'protocol', `sent a model list that is not JSON: ${describeBody(text) || 'an empty reply'}`);
  }
  const models = readModels(request.provider, parsed);
  if (!models) throw listError(request.provider, base, 'protocol', 'sent a reply that holds no model list');
  const seen = new Set<string>();
  return models.filter((m) => m.id && !seen.has(m.id) && seen.add(m.id)).slice(0, MODEL_LIST_MAX_MODELS);
}

/** The list's address for a base URL as the person wrote it. */
export function listEndpoint(provider: ServiceName, base: string, apiKey?: string): { url: string; headers: Record<string, string> } {
  switch (provider) {
    case 'ollama':
      // The setting may hold the OpenAI-compatible path (…/v1); the list is at the origin.
      return { url: `${base.replace(/\/v1$/, '')}/api/tags`, headers: {} };
    case 'gemini':
      return { url: `${base.replace(/\/v1(beta)?$/, '')}/v1beta/models?pageSize=1000`, headers: apiKey ? { 'x-goog-api-key': apiKey } : {} };
    default:
      return { url: `${base}/models`, headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {} };
  }
}

export interface LocalServer {
  /** Which settings reach it: Ollama's own, or an OpenAI-compatible endpoint. */
  provider: 'ollama' | 'openai';
  name: 'Ollama' | 'LM Studio';
  baseUrl: string;
  models: ListedModel[];
}

/** The addresses Ollama and LM Studio listen on by default. */
export const LOCAL_SERVERS: readonly Omit<LocalServer, 'models'>[] = [
  { provider: 'ollama', name: 'Ollama', baseUrl: 'http://127.0.0.1:11434' },
  { provider: 'openai', name: 'LM Studio', baseUrl: 'http://127.0.0.1:1234/v1' },
];

/** Which local servers answer now, asked at once with a short timeout; one that does not answer is simply absent. */
export async function detectLocalServers(options: { signal?: AbortSignal; timeoutMs?: number; servers?: readonly Omit<LocalServer, 'models'>[] } = {}): Promise<LocalServer[]> {
  const found = await Promise.all(
    (options.servers ?? LOCAL_SERVERS).map(async (server) => {
      try {
        const models = await listModels({ provider: server.provider, baseUrl: server.baseUrl, signal: options.signal, timeoutMs: options.timeoutMs ?? 1_200 });
        return { ...server, models };
      } catch {
        return undefined;
      }
    }),
  );
  return found.filter((s): s is LocalServer => s !== undefined);
}

function readModels(provider: ServiceName, parsed: unknown): ListedModel[] | undefined {
  const record = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {};
  const entries = provider === 'ollama' ? record.models : provider === 'gemini' ? record.models : record.data;
  if (!Array.isArray(entries)) return undefined;
  const models: ListedModel[] = [];
  for (const entry of entries.slice(0, MODEL_LIST_MAX_MODELS * 2)) {
    if (!entry || typeof entry !== 'object') continue;
    const e = entry as Record<string, unknown>;
    if (provider === 'ollama') {
      const id = text(e.name) ?? text(e.model);
      if (id) models.push({ id, detail: typeof e.size === 'number' && e.size > 1e6 ? `${(e.size / 1e9).toFixed(1)} GB` : undefined });
    } else if (provider === 'gemini') {
      const methods = Array.isArray(e.supportedGenerationMethods) ? e.supportedGenerationMethods : ['generateContent'];
      const id = text(e.name)?.replace(/^models\//, '');
      if (id && methods.includes('generateContent')) models.push({ id, detail: text(e.displayName) });
    } else {
      const id = text(e.id);
      if (id) models.push({ id, detail: text(e.owned_by) });
    }
  }
  return models;
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.trim() && value.length <= 300 ? value.trim() : undefined;
}

async function getText(url: string, headers: Record<string, string>, request: ModelListRequest & { base: string }): Promise<string> {
  const timeoutMs = request.timeoutMs ?? MODEL_LIST_TIMEOUT_MS;
  const maxBytes = request.maxBytes ?? MODEL_LIST_MAX_BYTES;
  const controller = new AbortController();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    controller.abort();
  }, timeoutMs);
  const follow = () => controller.abort();
  if (request.signal?.aborted) controller.abort();
  else request.signal?.addEventListener('abort', follow, { once: true });
  const { provider, base } = request;
  try {
    const response = await fetch(url, { headers: { accept: 'application/json', ...headers }, signal: controller.signal, redirect: 'error' });
    const body = await readCapped(response, maxBytes, response.ok);
    if (response.status === 401 || response.status === 403) {
      throw listError(provider, base, 'auth', `rejected the API key (HTTP ${response.status})${said(body)}. Set a valid key with "Toolbelt: Set API Key"`, response.status);
    }
    if (response.status === 404) throw listError(provider, base, 'not_found', `has no model list at ${url.replace(/\?.*$/, '')} (HTTP 404). Check the base URL`, 404);
    if (!response.ok) throw listError(provider, base, response.status >= 500 ? 'server' : 'bad_request', `could not list its models (HTTP ${response.status})${said(body)}`, response.status);
    if (body === undefined) throw listError(provider, base, 'protocol', `sent a model list over ${Math.round(maxBytes / 1024)} KB; Toolbelt reads no more`);
    return body;
  } catch (error) {
    if (error instanceof ProviderError) throw error;
    if (timedOut) throw listError(provider, base, 'timeout', `did not send its model list within ${formatWait(timeoutMs)}. Is the server running?`);
    if (request.signal?.aborted) throw new ProviderError('Stopped.', { kind: 'aborted', provider });
    const code = errorCode(error);
    throw listError(provider, base, 'network', `cannot be reached${code ? ` (${code})` : ''}. Is the server running, and is the address right?`);
  } finally {
    clearTimeout(timer);
    request.signal?.removeEventListener('abort', follow);
  }
}

/** The body as text, or undefined when it is larger than `maxBytes` (only an error body is cut instead). */
async function readCapped(response: Response, maxBytes: number, strict: boolean): Promise<string | undefined> {
  if (!response.body) return '';
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > maxBytes) {
      await reader.cancel().catch(() => undefined);
      if (strict) return undefined;
      break;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function said(body: string | undefined): string {
  const detail = body ? describeBody(body) : '';
  return detail ? `: ${detail}` : '';
}

function listError(provider: ServiceName, base: string, kind: ProviderError['kind'], what: string, status?: number): ProviderError {
  const where = customHost(provider, base) ? endpointName(provider, base) : `${endpointName(provider, base)} at ${base}`;
  return new ProviderError(`${sentence(where)} ${what}${/[.?!]$/.test(what) ? '' : '.'}`, { kind, provider, status });
}

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z_]+$/.test(code)) return code;
  }
  return undefined;
}
