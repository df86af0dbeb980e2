import { abortedError, ProviderError, withRetryNote } from './errors';
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
      if (!(error instanceof ProviderError) || !error.retryable || error.kind === 'timeout' || attempt >= maxRetries) throw noteRetries(error, attempt);
      const wait = error.retryAfterMs ?? Math.min(4000, 500 * 2 ** attempt);
      if (wait > maxWait) throw noteRetries(error, attempt);
      await sleep(wait, signal, error.provider);
    }
  }
}

/** A failure after automatic retries says so; the person should not retry blindly what already failed three times. */
function noteRetries(error: unknown, retries: number): unknown {
  return error instanceof ProviderError && error.kind !== 'aborted' ? withRetryNote(error, retries) : error;
}

/**
 * Watches a stream for silence: the SDKs' own timeouts stop at the response headers, and a
 * stalled stream would otherwise hang the chat forever. The stream calls `touch()` per chunk
 * (a timer refresh, no allocation on the hot path); after `idleMs` without one, `onIdle`
 * aborts the request and `fired` tells the caller that the failure was the silence.
 */
export class IdleWatch {
  private timer: NodeJS.Timeout | undefined;
  fired = false;

  constructor(
    private readonly idleMs: number,
    private readonly onIdle: () => void,
  ) {}

  start(): this {
    this.timer = setTimeout(() => {
      this.fired = true;
      this.onIdle();
    }, this.idleMs);
    return this;
  }

  touch(): void {
    this.timer?.refresh();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}

/**
 * An AbortController that follows the caller's signal, so a provider (idle timeout) or the Agent
 * (an answer past its limit) can also abort on its own. `release()` stops following, so a signal
 * that lives for a whole turn does not gather one listener per request.
 */
export function linkedController(signal?: AbortSignal): AbortController & { release(): void } {
  const controller = new AbortController();
  const follow = () => controller.abort(signal?.reason);
  if (signal?.aborted) controller.abort(signal.reason);
  else signal?.addEventListener('abort', follow, { once: true });
  return Object.assign(controller, { release: () => signal?.removeEventListener('abort', follow) });
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
