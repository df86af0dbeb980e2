import { abortedError, formatWait, httpError, labelOf, networkError, ProviderError, retryAfterMs } from './errors';
import { readErrorBody } from './httpBody';

export interface JsonPost {
  provider: string;
  model: string;
  /** The endpoint as the person configured it, named in errors. */
  baseURL: string;
  url: string;
  body: string;
  headers?: Record<string, string>;
  method?: 'POST' | 'GET';
  controller: AbortController;
  /** Longest wait for the response headers. */
  idleMs: number;
  /** Reads a service's own error body for a status or retry delay it states there. */
  refineError?: (body: string, response: Response) => { status?: number; retryAfterMs?: number };
}

const HEADERS_TIMEOUT = 'headers timeout';

/**
 * Sends JSON over fetch for the providers that do not use an SDK (Gemini, Ollama's own API):
 * a bounded wait for the headers, and an error reply turned into a ProviderError from a bounded
 * prefix of its body, so no reply can hang the request or flood the message.
 */
export async function postJson(request: JsonPost): Promise<Response> {
  const { controller, idleMs } = request;
  const timer = setTimeout(() => controller.abort(new Error(HEADERS_TIMEOUT)), idleMs);
  let response: Response;
  try {
    response = await fetch(request.url, {
      method: request.method ?? 'POST',
      headers: { 'content-type': 'application/json', ...request.headers },
      body: request.method === 'GET' ? undefined : request.body,
      signal: controller.signal,
    });
  } catch (error) {
    if (controller.signal.reason instanceof Error && controller.signal.reason.message === HEADERS_TIMEOUT) {
      throw new ProviderError(`${labelOf(request.provider)} did not answer within ${formatWait(idleMs)}. Try again.`, { kind: 'timeout', provider: request.provider });
    }
    throw fetchFailure(error, controller, request.provider, request.baseURL);
  } finally {
    clearTimeout(timer);
  }
  if (!response.ok) {
    const text = await readErrorBody(response.body, idleMs);
    const refined = request.refineError?.(text, response) ?? {};
    throw httpError(request.provider, refined.status ?? response.status, text, {
      model: request.model,
      url: request.baseURL,
      retryAfterMs: refined.retryAfterMs ?? retryAfterMs(response.headers),
    });
  }
  return response;
}

/** What a failed fetch (or a failure while reading its body) means to a person. */
export function fetchFailure(error: unknown, controller: AbortController, provider: string, baseURL: string): ProviderError {
  if (error instanceof ProviderError && error.kind === 'timeout') return error;
  if (controller.signal.aborted) return abortedError(provider);
  if (error instanceof ProviderError) return error;
  if (error instanceof TypeError && /fetch failed|network/i.test(error.message)) return networkError(provider, baseURL, error);
  const message = error instanceof Error ? error.message : String(error);
  return new ProviderError(`${labelOf(provider)} sent a reply Toolbelt could not read (${message}). Try again.`, { kind: 'protocol', provider, cause: error });
}

export function safeJson<T>(text: string): T | undefined {
  try {
    return JSON.parse(text) as T;
  } catch {
    return undefined;
  }
}
