import { abortedError, idleTimeoutError, ProviderError } from './errors';
import type { ProviderTimeouts } from './types';

export const DEFAULT_IDLE_TIMEOUT_MS = 60_000;
export const DEFAULT_MAX_RETRY_WAIT_MS = 10_000;
export const DEFAULT_MAX_RETRIES = 2;

/**
 * Sends a request, retrying rate limits, server errors and connection failures (never a
 * request that already produced an answer). A Retry-After longer than `maxRetryWaitMs` is
 * not waited out: the rate-limit error goes to the user at once, saying how long to wait.
 */
export async function withRetries<T>(send: () => Promise<T>, options: ProviderTimeouts, signal?: AbortSignal): Promise<T> {
  const maxRetries = options.maxRetries ?? DEFAULT_MAX_RETRIES;
  const maxWait = options.maxRetryWaitMs ?? DEFAULT_MAX_RETRY_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    try {
      return await send();
    } catch (error) {
      if (!(error instanceof ProviderError) || !error.retryable || error.kind === 'timeout' || attempt >= maxRetries) throw error;
      const wait = error.retryAfterMs ?? Math.min(4000, 500 * 2 ** attempt);
      if (wait > maxWait) throw error;
      await sleep(wait, signal, error.provider);
    }
  }
}

/**
 * Yields from `source` but gives up when nothing arrives for `idleMs`: the SDKs' own timeouts
 * stop at the response headers, and a stalled stream would otherwise hang the chat forever.
 */
export async function* guardIdle<T>(source: AsyncIterable<T>, idleMs: number, provider: string, abort: () => void): AsyncGenerator<T> {
  const iterator = source[Symbol.asyncIterator]();
  let finished = false;
  try {
    for (;;) {
      let timer: NodeJS.Timeout | undefined;
      const next = iterator.next();
      next.catch(() => undefined);
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => {
          // Reject first: aborting makes the pending read fail too, and that must not win the race.
          reject(idleTimeoutError(provider, idleMs));
          abort();
        }, idleMs);
      });
      let result: IteratorResult<T>;
      try {
        result = await Promise.race([next, timeout]);
      } finally {
        clearTimeout(timer);
      }
      if (result.done) {
        finished = true;
        return;
      }
      yield result.value;
    }
  } finally {
    if (!finished) void Promise.resolve(iterator.return?.()).catch(() => undefined);
  }
}

/** An AbortController that follows the caller's signal, so a provider can also abort on its own (idle timeout). */
export function linkedController(signal?: AbortSignal): AbortController {
  const controller = new AbortController();
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', () => controller.abort(signal.reason), { once: true });
  return controller;
}

function sleep(ms: number, signal: AbortSignal | undefined, provider: string): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(provider));
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(abortedError(provider));
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

let callCounter = 0;

/** An id for a tool call the service sent without one, unique within this process. */
export function generatedCallId(): string {
  callCounter = (callCounter + 1) % Number.MAX_SAFE_INTEGER;
  return `call_tb${Date.now().toString(36)}${callCounter}`;
}
