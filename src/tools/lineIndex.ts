import type { promises as fs, Stats } from 'node:fs';

/**
 * Line windows of big files without reading them from the start every time. Lines end at "\n"
 * (a "\r" before it is dropped); a last line without "\n" still counts. Reading a window records
 * where every LINES_PER_CHECKPOINT-th line starts, so the next call for a later window seeks to
 * the nearest checkpoint and reads only from there. The checkpoints of a few files are kept,
 * each under the file's identity (device, inode, size, mtime, ctime): a file that changed gets a
 * fresh index, and a checkpoint that no longer sits after a "\n" throws the index away.
 */
export const LINES_PER_CHECKPOINT = 1000;
/** Files whose checkpoints are kept; the least recently used goes first. */
export const INDEXED_FILES = 8;
const CHUNK_BYTES = 256 * 1024;
const NEWLINE = 0x0a;

interface FileLines {
  identity: string;
  /** checkpoints[k]: the byte where line k * LINES_PER_CHECKPOINT + 1 starts (checkpoints[0] = 0). */
  checkpoints: number[];
  /** Lines in the file, once some read reached its end. */
  totalLines?: number;
}

export interface LineWindowRequest {
  /** First line wanted, 1-based. */
  offset: number;
  /** Lines wanted at most. */
  limit: number;
  /** A longer line is kept to this many characters; the rest of it is skipped, not kept. */
  maxLineChars: number;
  /** Stop once the lines kept hold more than this many characters. */
  maxChars: number;
  signal?: AbortSignal;
}

export interface LineWindow {
  /** The lines from `offset` on, without their line ends, each at most `maxLineChars` long. */
  lines: string[];
  /** Lines in the whole file, when known (the end was reached now or on an earlier call). */
  totalLines?: number;
  /** Bytes this call read from the file. */
  bytesRead: number;
}

/** Encodings whose "\n" is the single byte 0x0a and never part of another character. */
export function indexableEncoding(encoding: BufferEncoding): boolean {
  return encoding === 'utf8' || encoding === 'latin1' || encoding === 'ascii';
}

const indexes = new Map<string, FileLines>();

/** Forgets every index (for tests). */
export function clearLineIndexes(): void {
  indexes.clear();
}

/** How many files have an index now (for tests). */
export function indexedFileCount(): number {
  return indexes.size;
}

/**
 * The lines `offset`… of an open file in an `indexableEncoding`. Reads in chunks of 256 KB,
 * each an await, so the event loop is never held for long; checks `signal` per chunk.
 */
export async function readLineWindow(handle: fs.FileHandle, file: string, stat: Stats, request: LineWindowRequest, encoding: BufferEncoding = 'utf8'): Promise<LineWindow> {
  const index = indexFor(file, stat);
  if (index.totalLines !== undefined && request.offset > index.totalLines) return { lines: [], totalLines: index.totalLines, bytesRead: 0 };
  const reader = new ChunkReader(handle, request.signal);
  const k = Math.min(Math.floor((request.offset - 1) / LINES_PER_CHECKPOINT), index.checkpoints.length - 1);
  let position = index.checkpoints[k];
  let line = k * LINES_PER_CHECKPOINT + 1;
  if (position > 0 && (await reader.byteAt(position - 1)) !== NEWLINE) {
    // The file changed in a way its identity did not show: start over from the top.
    indexes.delete(file);
    return readLineWindow(handle, file, stat, request, encoding);
  }
  const collector = new LineCollector(request, encoding);
  // A checkpoint past the start always follows a "\n".
  let endsWithNewline = position > 0;
  for (;;) {
    const chunk = await reader.at(position);
    if (!chunk) break;
    endsWithNewline = chunk[chunk.length - 1] === NEWLINE;
    let start = 0;
    for (;;) {
      const end = chunk.indexOf(NEWLINE, start);
      const wanted = line >= request.offset;
      if (wanted) collector.add(chunk, start, end < 0 ? chunk.length : end);
      if (end < 0) break;
      start = end + 1;
      line++;
      if ((line - 1) % LINES_PER_CHECKPOINT === 0) record(index, line, position + start);
      if (wanted && collector.finishLine()) {
        // Full exactly at the end of the file: then its length is known too.
        if (position + start >= stat.size) index.totalLines = line - 1;
        return collector.result(index.totalLines, reader.bytesRead);
      }
    }
    position += chunk.length;
  }
  // The end: a last line without "\n" counts, the empty rest after a final "\n" does not.
  const total = endsWithNewline || position === 0 ? line - 1 : line;
  if (line >= request.offset && line === total) collector.finishLine();
  index.totalLines = total;
  return collector.result(total, reader.bytesRead);
}

function record(index: FileLines, line: number, byte: number): void {
  const k = (line - 1) / LINES_PER_CHECKPOINT;
  if (k === index.checkpoints.length) index.checkpoints.push(byte);
}

function indexFor(file: string, stat: Stats): FileLines {
  const identity = `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeMs}:${stat.ctimeMs}`;
  let index = indexes.get(file);
  if (index?.identity !== identity) index = { identity, checkpoints: [0] };
  // Re-inserted: a Map iterates in insertion order, so its first key is the least recently used.
  indexes.delete(file);
  indexes.set(file, index);
  while (indexes.size > INDEXED_FILES) indexes.delete(indexes.keys().next().value as string);
  return index;
}

/** Reads a file forwards in big chunks, and single bytes where a check needs one. */
class ChunkReader {
  bytesRead = 0;
  private readonly buffer = Buffer.allocUnsafe(CHUNK_BYTES);

  constructor(
    private readonly handle: fs.FileHandle,
    private readonly signal: AbortSignal | undefined,
  ) {}

  /** The bytes from `position` on (a view, valid until the next call), or undefined at the end. */
  async at(position: number): Promise<Buffer | undefined> {
    this.signal?.throwIfAborted();
    const { bytesRead } = await this.handle.read(this.buffer, 0, CHUNK_BYTES, position);
    this.bytesRead += bytesRead;
    return bytesRead > 0 ? this.buffer.subarray(0, bytesRead) : undefined;
  }

  async byteAt(position: number): Promise<number | undefined> {
    const one = Buffer.alloc(1);
    const { bytesRead } = await this.handle.read(one, 0, 1, position);
    this.bytesRead += bytesRead;
    return bytesRead === 1 ? one[0] : undefined;
  }
}

/** Gathers the wanted lines' bytes, keeping no more of a line than its cut needs. */
class LineCollector {
  private readonly lines: string[] = [];
  private parts: Buffer[] = [];
  private partBytes = 0;
  private lineBytes = 0;
  private chars = 0;
  /** Enough bytes for `maxLineChars` characters in any indexable encoding, and a "\r". */
  private readonly keepBytes: number;

  constructor(
    private readonly request: LineWindowRequest,
    private readonly encoding: BufferEncoding,
  ) {
    this.keepBytes = request.maxLineChars * 4 + 1;
  }

  add(chunk: Buffer, start: number, end: number): void {
    this.lineBytes += end - start;
    const room = this.keepBytes - this.partBytes;
    if (room <= 0 || end <= start) return;
    // Copied: the chunk's buffer is reused by the next read.
    const piece = Buffer.from(chunk.subarray(start, Math.min(end, start + room)));
    this.parts.push(piece);
    this.partBytes += piece.length;
  }

  /** Ends the current line; true when the window is full. */
  finishLine(): boolean {
    let text = Buffer.concat(this.parts, this.partBytes).toString(this.encoding);
    if (this.lineBytes === this.partBytes && text.endsWith('\r')) text = text.slice(0, -1);
    if (text.length > this.request.maxLineChars) text = text.slice(0, this.request.maxLineChars);
    this.lines.push(text);
    this.chars += text.length + 1;
    this.parts = [];
    this.partBytes = 0;
    this.lineBytes = 0;
    return this.lines.length >= this.request.limit || this.chars > this.request.maxChars;
  }

  result(totalLines: number | undefined, bytesRead: number): LineWindow {
    return { lines: this.lines, totalLines, bytesRead };
  }
}
