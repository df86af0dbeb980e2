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
  cause?: unknown;
}

/** A provider failure with a message a person can act on. */
export class ProviderError extends Error {
  override name = 'ProviderError';
  readonly kind: ProviderErrorKind;
  readonly provider: string;
  readonly status?: number;
  readonly retryAfterMs?: number;

  constructor(message: string, init: ProviderErrorInit) {
    super(message, { cause: init.cause });
    this.kind = init.kind;
    this.provider = init.provider;
    this.status = init.status;
    this.retryAfterMs = init.retryAfterMs;
  }

  /** Worth trying again as it is (after a wait): rate limits, server errors, network trouble. */
  get retryable(): boolean {
    return this.kind === 'rate_limit' || this.kind === 'server' || this.kind === 'network' || this.kind === 'timeout';
  }
}

export const PROVIDER_LABELS: Record<string, string> = { openai: 'OpenAI', ollama: 'Ollama', gemini: 'Gemini' };

export function labelOf(provider: string): string {
  return PROVIDER_LABELS[provider] ?? provider;
}

/** Turns an HTTP status and the service's own message into a ProviderError. */
export function httpError(provider: string, status: number, detail: string, context: { model: string; url: string; retryAfterMs?: number }): ProviderError {
  const label = labelOf(provider);
  const said = detail ? `: ${detail}` : '';
  if (status === 401 || status === 403) {
    return new ProviderError(`${label} rejected the API key (HTTP ${status})${said}. Set a valid key with "Toolbelt: Set API Key".`, { kind: 'auth', provider, status });
  }
  if (status === 404) {
    return new ProviderError(`${label} does not know the model "${context.model}" at ${context.url} (HTTP 404)${said}. Check toolbelt.model and toolbelt.baseUrl.`, { kind: 'not_found', provider, status });
  }
  if (status === 429) {
    const wait = context.retryAfterMs !== undefined ? ` Try again in ${formatWait(context.retryAfterMs)}.` : ' Try again shortly.';
    return new ProviderError(`${label} is rate limiting requests (HTTP 429)${said}.${wait}`, { kind: 'rate_limit', provider, status, retryAfterMs: context.retryAfterMs });
  }
  if (status >= 500) {
    return new ProviderError(`${label} had a server error (HTTP ${status})${said}. Try again.`, { kind: 'server', provider, status });
  }
  return new ProviderError(`${label} refused the request (HTTP ${status})${said}.`, { kind: 'bad_request', provider, status });
}

export function networkError(provider: string, url: string, cause: unknown): ProviderError {
  const code = errorCode(cause);
  const hint = provider === 'ollama' && code === 'ECONNREFUSED' ? ' Is Ollama running (`ollama serve`)?' : ' Check toolbelt.baseUrl and your connection.';
  return new ProviderError(`Cannot reach ${labelOf(provider)} at ${url}${code ? ` (${code})` : ''}.${hint}`, { kind: 'network', provider, cause });
}

export function idleTimeoutError(provider: string, ms: number): ProviderError {
  return new ProviderError(`${labelOf(provider)} sent nothing for ${formatWait(ms)}; the request was stopped. Try again, or raise toolbelt.chat.requestTimeoutSeconds.`, {
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
  if (ms && Number.isFinite(Number(ms))) return Math.max(0, Number(ms));
  const value = headers?.get('retry-after');
  if (!value) return undefined;
  if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
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
