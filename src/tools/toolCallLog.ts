import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ApprovedBy, ToolStatus } from './interface';
import { boundArguments, cutString, LOG_LIMITS, logArguments } from './logArguments';
import type { ToolRunReport } from './registry';

/** One tool call as the log keeps it: what ran, how it ended, who let it run. Never the result text. */
export interface ToolCallRecord {
  /** When the call was asked for, ISO 8601. */
  time: string;
  /** The conversation the call belongs to (its caller's chat id); `none` for a call without a caller. */
  chatId: string;
  /** Who asked: `Toolbelt chat`, `@toolbelt`, `VS Code's chat`, an MCP client's name. */
  caller?: string;
  tool: string;
  /**
   * The arguments, bounded (logArguments.ts): strings over MAX_ARGUMENT_CHARS, long arrays, many
   * keys and deep nesting cut with a notice; `write_file` content and every value of a call naming
   * a sensitive file replaced by its size.
   */
  args: Record<string, unknown>;
  status: ToolStatus;
  durationMs: number;
  /** Length of the result text, in characters. */
  resultChars: number;
  /** Absent when the call never reached the tool (an unknown tool, a turn stopped before it). */
  approvedBy?: ApprovedBy;
  /** How a command or an MCP server's tool ran, e.g. `sandboxed, network off`. */
  containment?: string;
}

/** Where records go and come back from; the file log, or memory where there is no storage folder. */
export interface ToolCallSink {
  append(record: ToolCallRecord): void;
  /** Every record kept, oldest first. */
  read(): Promise<ToolCallRecord[]>;
  /** Resolves when every record appended so far is written (or its write failed). */
  flush(): Promise<void>;
}

export const MAX_ARGUMENT_CHARS = LOG_LIMITS.stringChars;
export const DEFAULT_MAX_LOG_BYTES = 5 * 1024 * 1024;
export const TOOL_LOG_FILE = 'tool-calls.jsonl';
/** No line of the log is longer than this, newline included, whatever a call's arguments were. */
export const MAX_RECORD_BYTES = LOG_LIMITS.recordBytes;

export interface ToRecordOptions {
  /** `toolbelt.tools.sensitiveFiles` (the default list when absent): content naming these files is never logged. */
  sensitiveGlobs?: readonly string[];
}

export function toRecord(report: ToolRunReport, chatId: string, options: ToRecordOptions = {}): ToolCallRecord {
  const { result } = report;
  const record: ToolCallRecord = {
    time: new Date(report.startedAt).toISOString(),
    chatId: cutString(chatId),
    tool: cutString(report.name),
    args: logArguments(report.args, { ...options, ...(report.contentArguments && { contentArguments: report.contentArguments }) }),
    status: result.status,
    durationMs: Math.round(result.durationMs),
    resultChars: result.text.length,
  };
  if (result.approvedBy) record.approvedBy = result.approvedBy;
  if (result.containment) record.containment = result.containment;
  // An MCP client names itself: its name is cut like any other string.
  if (report.caller) record.caller = cutString(report.caller.label ?? report.caller.kind);
  return record;
}

/** The arguments bounded as the log keeps them (strings, arrays, keys, depth, total size), without withholding anything. */
export function cutArguments(args: Record<string, unknown>): Record<string, unknown> {
  return boundArguments(args);
}

/**
 * One record as one JSON line within MAX_RECORD_BYTES, whatever its fields hold (records made
 * elsewhere, fields added later): past the limit, its arguments are bounded tighter, then replaced
 * by a notice, and any other long field is cut.
 */
export function recordLine(record: ToolCallRecord): string {
  let line = `${JSON.stringify(record)}\n`;
  if (Buffer.byteLength(line) <= MAX_RECORD_BYTES) return line;
  const bytes = Buffer.byteLength(line);
  const args = record.args && typeof record.args === 'object' ? boundArguments(record.args, { stringChars: 40, arrayItems: 5, objectKeys: 10, depth: 2, argumentBytes: 1024 }) : {};
  const smaller: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) smaller[key] = key === 'args' ? args : shortField(value);
  line = `${JSON.stringify(smaller)}\n`;
  if (Buffer.byteLength(line) <= MAX_RECORD_BYTES) return line;
  // Last resort: the record's own fields, short; other fields only while they are small and few.
  const last: Record<string, unknown> = {};
  let others = 0;
  for (const [key, value] of Object.entries(smaller)) {
    if (key === 'args') last.args = { '…': `[cut: the record took ${bytes} bytes]` };
    else if (RECORD_FIELDS.has(key)) last[key] = value;
    else if (others < 8 && key.length <= 40 && Buffer.byteLength(JSON.stringify(value) ?? '') <= 256) {
      last[key] = value;
      others++;
    }
  }
  return `${JSON.stringify(last)}\n`;
}

const RECORD_FIELDS = new Set(['time', 'chatId', 'tool', 'status', 'durationMs', 'resultChars', 'approvedBy']);

function shortField(value: unknown): unknown {
  if (typeof value === 'string') return cutString(value);
  if (value && typeof value === 'object') return boundArguments({ value }, { stringChars: 40, arrayItems: 5, objectKeys: 10, depth: 2, argumentBytes: 512 }).value;
  return value;
}

export interface ToolCallLogOptions {
  /** The folder the log lives in; made on the first write. */
  folder: string;
  /** When the current file would grow past this, it becomes `<name>.1.jsonl` (replacing the previous one). */
  maxBytes?: number;
  fileName?: string;
  /** Told of a write that failed; its records are dropped. */
  onError?: (error: unknown) => void;
}

/**
 * JSON lines in a file, appended off the event loop: records queue up and one writer appends
 * them in batches, so lines never interleave. Rotated by size, keeping one previous file.
 * Nothing touches the disk before the first record.
 */
export class ToolCallLog implements ToolCallSink {
  readonly file: string;
  readonly previousFile: string;
  private readonly maxBytes: number;
  private pending: string[] = [];
  private writing: Promise<void> | undefined;
  private size: number | undefined;

  constructor(private readonly options: ToolCallLogOptions) {
    const name = options.fileName ?? TOOL_LOG_FILE;
    const ext = path.extname(name);
    this.file = path.join(options.folder, name);
    this.previousFile = path.join(options.folder, `${name.slice(0, name.length - ext.length)}.1${ext}`);
    this.maxBytes = Math.max(1, options.maxBytes ?? DEFAULT_MAX_LOG_BYTES);
  }

  append(record: ToolCallRecord): void {
    this.pending.push(recordLine(record));
    this.startWriting();
  }

  async flush(): Promise<void> {
    while (this.writing) await this.writing;
  }

  async read(): Promise<ToolCallRecord[]> {
    await this.flush();
    const [previous, current] = await Promise.all([readIfThere(this.previousFile), readIfThere(this.file)]);
    return [...parseLines(previous), ...parseLines(current)];
  }

  private startWriting(): void {
    if (this.writing) return;
    this.writing = this.drain().finally(() => {
      this.writing = undefined;
      if (this.pending.length > 0) this.startWriting();
    });
  }

  private async drain(): Promise<void> {
    while (this.pending.length > 0) {
      const lines = this.pending;
      this.pending = [];
      try {
        await this.write(lines);
      } catch (error) {
        this.options.onError?.(error);
      }
    }
  }

  /** Appends the lines, rotating first whenever the next line would take the file past its limit. */
  private async write(lines: string[]): Promise<void> {
    if (this.size === undefined) {
      await fs.mkdir(this.options.folder, { recursive: true });
      this.size = await sizeOf(this.file);
    }
    let chunk = '';
    let chunkBytes = 0;
    for (const line of lines) {
      const bytes = Buffer.byteLength(line);
      if (this.size + chunkBytes + bytes > this.maxBytes && this.size + chunkBytes > 0) {
        if (chunk) await fs.appendFile(this.file, chunk);
        await this.rotate();
        chunk = '';
        chunkBytes = 0;
      }
      chunk += line;
      chunkBytes += bytes;
    }
    if (chunk) await fs.appendFile(this.file, chunk);
    this.size += chunkBytes;
  }

  private async rotate(): Promise<void> {
    await fs.rename(this.file, this.previousFile).catch((error: NodeJS.ErrnoException) => {
      if (error.code !== 'ENOENT') throw error;
    });
    this.size = 0;
  }
}

/** For a window without a storage folder: the latest records in memory. */
export class MemoryToolCallLog implements ToolCallSink {
  private readonly records: ToolCallRecord[] = [];

  constructor(private readonly limit = 1000) {}

  append(record: ToolCallRecord): void {
    // Bounded as the file's lines are: the memory log holds the latest records, not the largest.
    this.records.push(JSON.parse(recordLine(record)) as ToolCallRecord);
    if (this.records.length > this.limit) this.records.splice(0, this.records.length - this.limit);
  }

  async read(): Promise<ToolCallRecord[]> {
    return [...this.records];
  }

  async flush(): Promise<void> {}
}

async function sizeOf(file: string): Promise<number> {
  try {
    return (await fs.stat(file)).size;
  } catch {
    return 0;
  }
}

async function readIfThere(file: string): Promise<string> {
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/** The well-formed records of a log file; a torn or edited line is skipped. */
export function parseLines(text: string): ToolCallRecord[] {
  const records: ToolCallRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      const value: unknown = JSON.parse(line);
      if (isRecord(value)) records.push(value);
    } catch {
      // skipped
    }
  }
  return records;
}

function isRecord(value: unknown): value is ToolCallRecord {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return false;
  const r = value as Partial<ToolCallRecord>;
  return typeof r.tool === 'string' && typeof r.time === 'string' && typeof r.status === 'string' && typeof r.args === 'object' && r.args !== null;
}
