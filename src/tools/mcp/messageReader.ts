import { StringDecoder } from 'node:string_decoder';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedJsonParser, type BoundedJsonLimits, type JsonCuts } from './boundedJson';

/** Where a message cut on arrival says what was left out: `result._meta["toolbelt/cut"]` (callResult.ts words it). */
export const CUT_META_KEY = 'toolbelt/cut';

export interface MessageCut extends JsonCuts {
  /** The size of the message as the server sent it. */
  bytes: number;
}

export interface MessageReaderOptions {
  /** A line up to this size is parsed whole; a longer one is read as it arrives, within `oversized`. */
  maxMessageBytes: number;
  /** A line past this size is not read on: the reader stops and says so (`overLimit`). */
  stopMessageBytes?: number;
  oversized: BoundedJsonLimits;
}

export interface MessageHandlers {
  message(message: JSONRPCMessage): void;
  /** A line that is not a JSON-RPC message (at most its first 200 characters of a long one). */
  malformed(line: string): void;
  /** A message over maxMessageBytes was read, and what of it was left out. */
  oversized?(cut: MessageCut): void;
  /** A line crossed stopMessageBytes: nothing after it is read (the caller stops the server). */
  overLimit?(bytes: number): void;
}

const NEWLINE = 0x0a;
const HEAD_CHARS = 200;

interface BoundedLine {
  parser: BoundedJsonParser;
  decoder: StringDecoder;
  /** The line's first characters, for the report when it is not JSON. */
  head: string;
  failed: boolean;
}

/**
 * Splits a server's stdout into newline-delimited JSON-RPC messages. A message larger than
 * maxMessageBytes is not buffered whole: from that size on it is parsed as it arrives, strings cut
 * and items dropped within `oversized`, and it still answers its request — so a 50 MB result is
 * cut rather than ending the connection, and memory stays near maxMessageBytes. A line past
 * stopMessageBytes ends the reading at the chunk that crosses it, newline or not.
 */
export class MessageReader {
  private chunks: Buffer[] = [];
  private lineBytes = 0;
  private bounded: BoundedLine | undefined;
  private stopped = false;

  constructor(
    private readonly options: MessageReaderOptions,
    private readonly handlers: MessageHandlers,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length && !this.stopped) {
      const newline = chunk.indexOf(NEWLINE, start);
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    this.lineBytes += piece.length;
    if (this.options.stopMessageBytes !== undefined && this.lineBytes > this.options.stopMessageBytes) return this.stop();
    if (this.bounded) return this.feed(this.bounded, piece);
    this.chunks.push(piece);
    if (this.lineBytes <= this.options.maxMessageBytes) return;
    const bounded: BoundedLine = { parser: new BoundedJsonParser(this.options.oversized), decoder: new StringDecoder('utf8'), head: '', failed: false };
    this.bounded = bounded;
    for (const buffered of this.chunks) this.feed(bounded, buffered);
    this.chunks = [];
  }

  private feed(line: BoundedLine, piece: Buffer): void {
    this.write(line, line.decoder.write(piece));
  }

  private write(line: BoundedLine, text: string): void {
    if (line.head.length < HEAD_CHARS) line.head += text.slice(0, HEAD_CHARS - line.head.length);
    if (line.failed) return;
    try {
      line.parser.write(text);
    } catch {
      line.failed = true;
    }
  }

  private stop(): void {
    const bytes = this.lineBytes;
    this.stopped = true;
    this.chunks = [];
    this.bounded = undefined;
    this.handlers.overLimit?.(bytes);
  }

  private endLine(): void {
    if (this.stopped) return;
    const { bounded, chunks, lineBytes } = this;
    this.chunks = [];
    this.lineBytes = 0;
    this.bounded = undefined;
    if (!bounded) return this.handleLine(Buffer.concat(chunks).toString('utf8'));
    this.write(bounded, bounded.decoder.end());
    let value: unknown;
    try {
      if (bounded.failed) throw new SyntaxError('not JSON');
      value = bounded.parser.end();
    } catch {
      return this.handlers.malformed(`${bounded.head.trim()}… (${lineBytes} bytes)`);
    }
    if (!isJsonRpc(value)) return this.handlers.malformed(`${bounded.head.trim()}… (${lineBytes} bytes)`);
    const cut: MessageCut = { bytes: lineBytes, ...bounded.parser.cuts };
    const result = (value as { result?: unknown }).result;
    if ((cut.strings > 0 || cut.items > 0 || cut.deep > 0) && isPlainObject(result)) {
      result._meta = { ...(isPlainObject(result._meta) ? result._meta : {}), [CUT_META_KEY]: cut };
    }
    this.handlers.oversized?.(cut);
    this.handlers.message(value);
  }

  private handleLine(raw: string): void {
    const line = raw.trim();
    if (line === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      return this.handlers.malformed(line);
    }
    if (!isJsonRpc(message)) return this.handlers.malformed(line);
    // Only Toolbelt says what it cut; a server's own claim is dropped.
    const result = (message as { result?: unknown }).result;
    if (isPlainObject(result) && isPlainObject(result._meta) && Object.hasOwn(result._meta, CUT_META_KEY)) delete result._meta[CUT_META_KEY];
    this.handlers.message(message);
  }
}

function isJsonRpc(value: unknown): value is JSONRPCMessage {
  return typeof value === 'object' && value !== null && (value as { jsonrpc?: unknown }).jsonrpc === '2.0';
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
