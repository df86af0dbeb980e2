import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ApprovedBy, ToolStatus } from './interface';
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
  /** The arguments, every string longer than MAX_ARGUMENT_CHARS cut. */
  args: Record<string, unknown>;
  status: ToolStatus;
  durationMs: number;
  /** Length of the result text, in characters. */
  resultChars: number;
  /** Absent when the call never reached the tool (an unknown tool, a turn stopped before it). */
  approvedBy?: ApprovedBy;
}

/** Where records go and come back from; the file log, or memory where there is no storage folder. */
export interface ToolCallSink {
  append(record: ToolCallRecord): void;
  /** Every record kept, oldest first. */
  read(): Promise<ToolCallRecord[]>;
  /** Resolves when every record appended so far is written (or its write failed). */
  flush(): Promise<void>;
}

export const MAX_ARGUMENT_CHARS = 200;
export const DEFAULT_MAX_LOG_BYTES = 5 * 1024 * 1024;
export const TOOL_LOG_FILE = 'tool-calls.jsonl';
/** Deeper argument structure than this is summarised; tool arguments come from JSON and are shallow. */
const MAX_DEPTH = 8;

export function toRecord(report: ToolRunReport, chatId: string): ToolCallRecord {
  const { result } = report;
  const record: ToolCallRecord = {
    time: new Date(report.startedAt).toISOString(),
    chatId,
    tool: report.name,
    args: cutArguments(report.args),
    status: result.status,
    durationMs: Math.round(result.durationMs),
    resultChars: result.text.length,
  };
  if (result.approvedBy) record.approvedBy = result.approvedBy;
  if (report.caller) record.caller = report.caller.label ?? report.caller.kind;
  return record;
}

/** The arguments with every string value (at any depth) longer than `max` characters cut to `max`, saying how long it was. */
export function cutArguments(args: Record<string, unknown>, max = MAX_ARGUMENT_CHARS): Record<string, unknown> {
  const cut = cutValue(args, max, 0);
  return cut && typeof cut === 'object' && !Array.isArray(cut) ? (cut as Record<string, unknown>) : {};
}

function cutValue(value: unknown, max: number, depth: number): unknown {
  if (typeof value === 'string') return value.length > max ? `${value.slice(0, max)}… [cut: ${value.length} characters]` : value;
  if (value === null || typeof value === 'number' || typeof value === 'boolean') return value;
  if (typeof value !== 'object') return value === undefined ? null : cutValue(String(value), max, depth);
  if (depth >= MAX_DEPTH) return '[nested too deep]';
  if (Array.isArray(value)) return value.map((item) => cutValue(item, max, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key.length > max ? key.slice(0, max) : key] = cutValue(item, max, depth + 1);
  return out;
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
    this.pending.push(`${JSON.stringify(record)}\n`);
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
    this.records.push(record);
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
