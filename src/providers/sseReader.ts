import { wholeLines } from './httpBody';

/** One server-sent event: its `event:` name (null when none was given) and its `data:` lines joined. */
export interface SseEvent {
  event: string | null;
  data: string;
}

/**
 * A server-sent event parser fed with text as it arrives; `feed` returns the events completed by
 * it. Fed whole lines (httpBody's line-ending chunks), it never keeps a partial line, so each
 * byte is scanned once however long the line; a line cut across feeds is joined once, when its
 * end arrives. Comments, `id:` and `retry:` are ignored (a chat answer is never resumed).
 */
export class SseParser {
  private partial = '';
  private event: string | null = null;
  private data: string[] = [];
  /** A feed that ended in `\r`: a `\n` starting the next one belongs to that line ending. */
  private afterCarriageReturn = false;

  feed(text: string): SseEvent[] {
    const events: SseEvent[] = [];
    if (this.afterCarriageReturn && text.charCodeAt(0) === 0x0a) text = text.slice(1);
    if (text === '') return events;
    this.afterCarriageReturn = text.charCodeAt(text.length - 1) === 0x0d;
    // Most servers end lines with \n alone; the others are split by the slower pattern.
    const lines = text.indexOf('\r') < 0 ? text.split('\n') : text.split(/\r\n|\r|\n/);
    // The last piece has no line ending yet: it waits for the next feed (a rope, not a copy).
    const rest = lines.pop() ?? '';
    if (lines.length === 0) {
      this.partial += rest;
      return events;
    }
    if (this.partial) lines[0] = this.partial + lines[0];
    this.partial = rest;
    for (const line of lines) this.line(line, events);
    return events;
  }

  /** The stream ended: an event left without its closing blank line is dropped, as the spec says. */
  end(): void {
    this.partial = '';
    this.event = null;
    this.data = [];
  }

  private line(line: string, events: SseEvent[]): void {
    if (line === '') {
      if (this.data.length > 0) events.push({ event: this.event, data: this.data.length === 1 ? this.data[0] : this.data.join('\n') });
      this.event = null;
      this.data = [];
      return;
    }
    if (line.charCodeAt(0) === 0x3a) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(line.charCodeAt(colon + 1) === 0x20 ? colon + 2 : colon + 1);
    if (field === 'data') this.data.push(value);
    else if (field === 'event') this.event = value;
  }
}

/** A response body read in pieces that end at a line break; `cancel()` stops the download at once. */
export interface LineChunks {
  /** The next piece, or undefined at the end (or after `cancel()`). */
  next(): Promise<Uint8Array | undefined>;
  cancel(): void;
}

/**
 * The body as guardedFetch hands it over: an event stream already comes in whole lines (with the
 * line limit); any other body (a server that ignored `stream: true`) gets the same treatment here.
 */
export function lineChunks(body: AsyncIterable<Uint8Array> | ReadableStream<Uint8Array> | null, provider: string): LineChunks {
  if (!body) return { next: () => Promise.resolve(undefined), cancel: () => undefined };
  if ('getReader' in body) {
    const reader = wholeLines(body, provider).getReader();
    let cancelled = false;
    return {
      next: async () => (cancelled ? undefined : (await reader.read()).value),
      cancel: () => {
        if (cancelled) return;
        cancelled = true;
        reader.cancel().catch(() => undefined);
      },
    };
  }
  const iterator = body[Symbol.asyncIterator]();
  let ended = false;
  return {
    next: async () => {
      if (ended) return undefined;
      const { done, value } = await iterator.next();
      if (done) ended = true;
      return done ? undefined : value;
    },
    cancel: () => {
      if (ended) return;
      ended = true;
      // The line-chunk iterator's return() cancels its reader: a pending next() ends at once.
      iterator.return?.().catch(() => undefined);
    },
  };
}
