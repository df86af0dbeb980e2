import { boundedText, describeBody, MAX_ERROR_MESSAGE_CHARS } from './errorText';
import { isProviderName, PROVIDER_LABELS } from './providerNames';

/** The longest wait a Retry-After may ask for before it is treated as nonsense (a day). */
export const MAX_RETRY_AFTER_MS = 24 * 60 * 60 * 1000;

/** What kind of failure, so the UI can offer the right next step. */
export type ProviderErrorKind =
  | 'auth'
  | 'rate_limit'
  | 'not_found'
  | 'bad_request'
  | 'server'
  | 'network'
  | 'timeout'
  | 'protocol'
  | 'aborted';

export interface ProviderErrorInit {
  kind: ProviderErrorKind;
  provider: string;
  status?: number;
  /** For rate limits: how long the service asked us to wait. */
  retryAfterMs?: number;
  /** How many times the request was sent again automatically before this error was given up on. */
  retries?: number;
  cause?: unknown;
}

/**
 * A provider failure with a message a person can act on. The message is always one clean line
 * of at most MAX_ERROR_MESSAGE_CHARS, whatever the server sent.
 */
export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly kind: ProviderErrorKind;
  readonly provider: string;
  readonly status?: number;
  readonly retryAfterMs?: number;
  readonly retries: number;

  constructor(message: string, init: ProviderErrorInit) {
    super(boundedText(message, MAX_ERROR_MESSAGE_CHARS), { cause: init.cause });
    this.kind = init.kind;
    this.provider = init.provider;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
    this.retries = init.retries ?? 0;
  }

  /** Worth trying again as it is (after a wait): rate limits, server errors, network trouble. */
  get retryable(): boolean {
    return this.kind === 'rate_limit' || this.kind === 'server' || this.kind === 'network' || this.kind === 'timeout';
  }
}

export function labelOf(provider: string): string {
  return isProviderName(provider) ? PROVIDER_LABELS[provider] : provider;
}

/**
 * Who a message is about: "the server at 127.0.0.1:1234" for an OpenAI-compatible endpoint
 * other than OpenAI's own (LM Studio, vLLM, a proxy), else the provider's display name.
 */
export function endpointName(provider: string, url?: string): string {
  const host = customHost(provider, url);
  return host ? `the server at ${host}` : labelOf(provider);
}

/** A provider as the model switcher names it: OpenAI, Ollama, Gemini, VS Code, or the host of a custom server. */
export function providerDisplayName(provider: string, url?: string): string {
  return customHost(provider, url) ?? (provider === 'vscode' ? 'VS Code' : labelOf(provider));
}

/** The host of a base URL that is not the provider's own service; undefined for OpenAI itself, Ollama and Gemini. */
export function customHost(provider: string, url?: string): string | undefined {
  if (provider !== 'openai' || !url) return undefined;
  let host: string;
  try {
    host = new URL(url).host;
  } catch {
    return boundedText(url, 120);
  }
  return host === 'api.openai.com' ? undefined : boundedText(host, 120);
}

/** The same error, saying that Toolbelt already sent the request again `retries` times. */
export function withRetryNote(error: ProviderError, retries: number): ProviderError {
  if (retries <= 0) return error;
  const note = `Toolbelt tried ${retries + 1} times.`;
  const message = boundedText(error.message, MAX_ERROR_MESSAGE_CHARS - note.length - 1);
  return new ProviderError(`${message} ${note}`, { kind: error.kind, provider: error.provider, status: error.status, retryAfterMs: error.retryAfterMs, retries, cause: error });
}

/** Starts a message with a capital: "the server at …" becomes "The server at …". */
export function sentence(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

/**
 * Turns an HTTP status and the body the service sent (JSON, HTML, text or junk: reduced by
 * `describeBody`) into a ProviderError naming the status and the endpoint.
 */
export function httpError(provider: string, status: number, body: string, context: { model: string; url: string; retryAfterMs?: number }): ProviderError {
  // A custom server is named by its host, which says where it is; OpenAI, Ollama and Gemini by name and address.
  const label = sentence(endpointName(provider, context.url));
  const detail = describeBody(body);
  const said = detail ? `: ${detail}` : '';
  const at = customHost(provider, context.url) ? '' : ` at ${boundedText(context.url, 120)}`;
  const wait = saneRetryAfter(context.retryAfterMs);
  if (status === 401 || status === 403) {
    return new ProviderError(`${label} rejected the API key (HTTP ${status})${at}${said}. Set a valid key with "Toolbelt: Set API Key".`, { kind: 'auth', provider, status });
  }
  if (status === 404) {
    return new ProviderError(`${label} does not know the model "${boundedText(context.model, 80)}"${at} (HTTP 404)${said}. Check toolbelt.model and toolbelt.baseUrl.`, { kind: 'not_found', provider, status });
  }
  if (status === 429) {
    const next = wait !== undefined ? ` Try again in ${formatWait(wait)}.` : ' Try again shortly.';
    return new ProviderError(`${label} is rate limiting requests (HTTP 429)${at}${said}.${next}`, { kind: 'rate_limit', provider, status, retryAfterMs: wait });
  }
  if (status >= 500) {
    return new ProviderError(`${label} had a server error (HTTP ${status})${at}${said}. Try again.`, { kind: 'server', provider, status });
  }
  return new ProviderError(`${label} refused the request (HTTP ${status})${at}${said}.`, { kind: 'bad_request', provider, status });
}

/** A usable wait: undefined for a negative or unreadable one, at most a day for an absurd one. */
export function saneRetryAfter(ms: number | undefined): number | undefined {
  if (ms === undefined || Number.isNaN(ms) || ms < 0) return undefined;
  return Math.min(ms, MAX_RETRY_AFTER_MS);
}

export function networkError(provider: string, url: string, cause: unknown): ProviderError {
  const code = errorCode(cause);
  const hint = provider === 'ollama' && code === 'ECONNREFUSED' ? ' Is Ollama running (`ollama serve`)?' : ' Is the server running? Check `toolbelt.baseUrl` and your connection.';
  const where = customHost(provider, url) ? endpointName(provider, url) : `${labelOf(provider)} at ${url}`;
  return new ProviderError(`Cannot reach ${where}${code ? ` (${code})` : ''}.${hint}`, { kind: 'network', provider, cause });
}

export function idleTimeoutError(provider: string, ms: number, url?: string): ProviderError {
  return new ProviderError(`${sentence(endpointName(provider, url))} sent nothing for ${formatWait(ms)}; the request was stopped. Try again, or raise toolbelt.chat.requestTimeoutSeconds.`, {
    kind: 'timeout',
    provider,
  });
}

export function abortedError(provider: string): ProviderError {
  return new ProviderError('Stopped.', { kind: 'aborted', provider });
}

/** Parses Retry-After (seconds or an HTTP date) and retry-after-ms; undefined when absent. */
export function retryAfterMs(headers: { get(name: string): string | null } | undefined, now = Date.now()): number | undefined {
  const ms = headers?.get('retry-after-ms');
  if (ms && Number.isFinite(Number(ms))) return saneRetryAfter(Math.max(0, Number(ms)));
  const value = headers?.get('retry-after')?.trim();
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value)) return saneRetryAfter(Number(value) * 1000);
  // Only a real HTTP date (it names a weekday or a month), not any number Date.parse accepts.
  if (!/[a-z]{3}/i.test(value)) return undefined;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : saneRetryAfter(Math.max(0, date - now));
}

export function formatWait(ms: number): string {
  const seconds = Math.ceil(ms / 1000);
  return seconds >= 120 ? `${Math.ceil(seconds / 60)} min` : `${seconds} s`;
}

function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && /^E[A-Z]+/.test(code)) return code;
  }
  return undefined;
}
