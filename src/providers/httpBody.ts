import { MAX_ERROR_BODY_BYTES } from './errorText';
import { labelOf, ProviderError } from './errors';
import type { IdleWatch } from './streaming';

/** The largest whole JSON reply (a non-streamed answer) read into memory; larger ones fail clearly. */
export const MAX_JSON_REPLY_BYTES = 32 * 1024 * 1024;

/**
 * Reads a whole response body as text, touching the idle watch per chunk (so a server that
 * sends headers and then stalls is stopped by it) and refusing more than `maxBytes`.
 */
export async function readBodyText(body: ReadableStream<Uint8Array> | null, idle: IdleWatch, provider: string, maxBytes = MAX_JSON_REPLY_BYTES): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let bytes = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      idle.touch();
      bytes += value.byteLength;
      if (bytes > maxBytes) {
        throw new ProviderError(`The answer from ${labelOf(provider)} is larger than ${Math.round(maxBytes / 1024 / 1024)} MB; it was not read. Ask for a shorter answer.`, {
          kind: 'protocol',
          provider,
        });
      }
      parts.push(decoder.decode(value, { stream: true }));
    }
    parts.push(decoder.decode());
    return parts.join('');
  } finally {
    reader.cancel().catch(() => undefined);
  }
}

/**
 * Reads at most `maxBytes` of an error body, waiting at most `idleMs` for each chunk; whatever
 * arrived by then is the body. The rest is never downloaded, so no error body can hang a
 * request or fill memory.
 */
export async function readErrorBody(body: ReadableStream<Uint8Array> | null, idleMs: number, maxBytes = MAX_ERROR_BODY_BYTES): Promise<string> {
  if (!body) return '';
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let text = '';
  let bytes = 0;
  try {
    while (bytes < maxBytes) {
      let timer: NodeJS.Timeout | undefined;
      const stalled = new Promise<'stalled'>((resolve) => (timer = setTimeout(() => resolve('stalled'), idleMs)));
      const next = await Promise.race([reader.read(), stalled]).finally(() => clearTimeout(timer));
      if (next === 'stalled' || next.done) break;
      bytes += next.value.byteLength;
      text += decoder.decode(next.value.subarray(0, Math.max(0, next.value.byteLength - (bytes - maxBytes))), { stream: true });
    }
  } catch {
    // A body that breaks off: what arrived is all there is.
  } finally {
    reader.cancel().catch(() => undefined);
  }
  return text;
}

/** The longest single line of a server-sent event stream; one answer is cut far earlier, at MAX_ANSWER_CHARS. */
export const MAX_SSE_LINE_BYTES = 16 * 1024 * 1024;

/**
 * A fetch for the OpenAI SDK. Error replies come back with their body cut to a bounded prefix,
 * read under the idle timeout, so the SDK never reads a huge or stalled error body whole; event
 * streams come back with whole lines (see `wholeLines`).
 */
export function guardedFetch(provider: string, idleMs: number): (input: string | URL | Request, init?: RequestInit) => Promise<Response> {
  return async (input, init) => {
    const response = await fetch(input, init);
    if (!response.body) return response;
    if (response.status >= 400) {
      const headers = new Headers(response.headers);
      headers.delete('content-length');
      headers.delete('content-encoding');
      return new Response(await readErrorBody(response.body, idleMs), { status: response.status, statusText: response.statusText, headers });
    }
    if (/text\/event-stream/i.test(response.headers.get('content-type') ?? '')) return withBody(response, new WholeLineChunks(response.body, provider));
    return response;
  };
}

/** What the SDK reads of a streamed response besides its body. */
const STREAMED_RESPONSE_KEYS = new Set<string | symbol>(['status', 'statusText', 'ok', 'headers', 'url', 'redirected', 'type']);

/**
 * The response with another body, for the SDK's event-stream reader (which takes any async
 * iterable as a body). A view rather than a `new Response`: that would copy every header and
 * build two more web streams per request, on the hot path of every tool round. Nothing else of
 * the original can be reached through it, so the unguarded body cannot be read by mistake.
 */
function withBody(response: Response, body: AsyncIterable<Uint8Array>): Response {
  return new Proxy(response, {
    get(target, key) {
      if (key === 'body') return body;
      return STREAMED_RESPONSE_KEYS.has(key) ? (Reflect.get(target, key, target) as unknown) : undefined;
    },
  });
}

/**
 * `wholeLines` as a plain async iterable: the same pieces, ending at a line break, and the same
 * limit on one line, without a web stream in between.
 */
class WholeLineChunks implements AsyncIterableIterator<Uint8Array> {
  private readonly reader: ReadableStreamDefaultReader<Uint8Array>;
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;
  private ended = false;

  constructor(
    body: ReadableStream<Uint8Array>,
    private readonly provider: string,
    private readonly maxLineBytes = MAX_SSE_LINE_BYTES,
  ) {
    this.reader = body.getReader();
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  async next(): Promise<IteratorResult<Uint8Array>> {
    while (!this.ended) {
      const { done, value: chunk } = await this.reader.read();
      if (done) {
        this.ended = true;
        if (!this.pendingBytes) break;
        const rest = concat(this.pending, this.pendingBytes);
        this.pending = [];
        this.pendingBytes = 0;
        return { done: false, value: rest };
      }
      const lastBreak = chunk.lastIndexOf(0x0a);
      if (lastBreak < 0) {
        this.pending.push(chunk);
        this.pendingBytes += chunk.byteLength;
        if (this.pendingBytes > this.maxLineBytes) {
          await this.return();
          throw new ProviderError(`${labelOf(this.provider)} sent one line longer than ${Math.round(this.maxLineBytes / 1024 / 1024)} MB; the answer was stopped.`, {
            kind: 'protocol',
            provider: this.provider,
          });
        }
        continue;
      }
      const whole = chunk.subarray(0, lastBreak + 1);
      const value = this.pending.length === 0 ? whole : concat([...this.pending, whole], this.pendingBytes + whole.byteLength);
      const rest = chunk.subarray(lastBreak + 1);
      this.pending = rest.byteLength ? [rest] : [];
      this.pendingBytes = rest.byteLength;
      return { done: false, value };
    }
    return { done: true, value: undefined };
  }

  /** Stops reading: the download is cancelled. */
  async return(): Promise<IteratorResult<Uint8Array>> {
    this.ended = true;
    this.pending = [];
    this.pendingBytes = 0;
    await this.reader.cancel().catch(() => undefined);
    return { done: true, value: undefined };
  }
}

/**
 * Passes a byte stream on in pieces that end at a line break. SSE parsers append every chunk to
 * the unfinished line and scan it again, which is quadratic in the line's length: a hostile 10 MB
 * line would burn the CPU for a minute. Handing over each line whole makes it linear, and a line
 * longer than `maxLineBytes` ends the stream with a clear error.
 */
export function wholeLines(body: ReadableStream<Uint8Array>, provider: string, maxLineBytes = MAX_SSE_LINE_BYTES): ReadableStream<Uint8Array> {
  // Pull-based rather than pipeThrough(TransformStream): one stream instead of three, which is
  // measurably cheaper per chunk on the hot path of every streamed answer.
  const reader = body.getReader();
  let pending: Uint8Array[] = [];
  let pendingBytes = 0;
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      for (;;) {
        const { done, value: chunk } = await reader.read();
        if (done) {
          if (pendingBytes) controller.enqueue(concat(pending, pendingBytes));
          pending = [];
          pendingBytes = 0;
          controller.close();
          return;
        }
        const lastBreak = chunk.lastIndexOf(0x0a);
        if (lastBreak < 0) {
          pending.push(chunk);
          pendingBytes += chunk.byteLength;
          if (pendingBytes > maxLineBytes) {
            controller.error(
              new ProviderError(`${labelOf(provider)} sent one line longer than ${Math.round(maxLineBytes / 1024 / 1024)} MB; the answer was stopped.`, { kind: 'protocol', provider }),
            );
            void reader.cancel().catch(() => undefined);
            return;
          }
          continue;
        }
        const whole = chunk.subarray(0, lastBreak + 1);
        controller.enqueue(pending.length === 0 ? whole : concat([...pending, whole], pendingBytes + whole.byteLength));
        const rest = chunk.subarray(lastBreak + 1);
        pending = rest.byteLength ? [rest] : [];
        pendingBytes = rest.byteLength;
        return;
      }
    },
    cancel(reason) {
      return reader.cancel(reason);
    },
  });
}

function concat(parts: Uint8Array[], bytes: number): Uint8Array {
  const out = new Uint8Array(bytes);
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.byteLength;
  }
  return out;
}
