import type { Stats } from 'node:fs';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { builtin, type BuiltinImplementation, type ToolHandler } from './builtinTool';
import { unasked, type ConsentPlan } from './consent';
import { formatBytes, looksBinary, openRegularFile, statOf } from './fileSystem';
import { indexableEncoding, readLineWindow } from './lineIndex';
import { LIMITS } from './manifest';
import { sensitiveReadQuestion } from './sensitiveFiles';
import { ToolRefusedError } from './toolErrors';
import type { ToolContext } from './types';
import { resolveWorkspacePath, WorkspacePathError, type ResolvedPath } from './workspacePaths';

/** Files up to this size are read whole; bigger ones are streamed line by line. */
const WHOLE_READ_BYTES = 20 * 1024 * 1024;
const BYTE_ENCODINGS = new Set(['base64', 'hex']);

interface ReadPlan {
  target: ResolvedPath;
  /** The file consent was worked out for: a different file at open time is judged again. */
  identity: { dev: number; ino: number };
}

async function readConsent(args: Record<string, unknown>, ctx: ToolContext, signal?: AbortSignal): Promise<ConsentPlan<ReadPlan>> {
  const target = await resolveWorkspacePath(ctx, args.path, { signal });
  const stat = await regularFileStat(target);
  const plan = unasked('read_file', { target, identity: { dev: stat.dev, ino: stat.ino } });
  const question = await sensitiveReadQuestion(ctx, target, stat, signal);
  if (question) plan.questions.push(question);
  return plan;
}

const runReadFile: ToolHandler<ReadPlan> = async (args, ctx, { signal, plan }) => {
  const { target, identity } = plan.prepared;
  const { handle, stat } = await openRegularFile(target);
  try {
    // Another file at the path since consent (swapped in while a person decided): judged again, never read unasked.
    if ((stat.dev !== identity.dev || stat.ino !== identity.ino) && (await sensitiveReadQuestion(ctx, target, stat, signal))) {
      throw new ToolRefusedError(`"${target.display}" was replaced while waiting; it was not read.`);
    }
    signal?.throwIfAborted();
    const encoding = normalizeEncoding(args.encoding);
    if (BYTE_ENCODINGS.has(encoding)) return await readBytes(handle, stat.size, encoding as 'base64' | 'hex');
    if (encoding !== 'utf16le' && (await looksBinary(handle))) {
      return (
        `"${target.display}" looks like a binary file (${formatBytes(stat.size)}); it was not read as text. ` +
        'Pass encoding "base64" to get its bytes.'
      );
    }
    signal?.throwIfAborted();
    const offset = (args.offset as number | undefined) ?? 1;
    const limit = (args.limit as number | undefined) ?? LIMITS.readFileDefaultLines;
    if (stat.size <= WHOLE_READ_BYTES) {
      const text = await handle.readFile({ encoding, signal });
      const paged = args.offset !== undefined || args.limit !== undefined;
      if (!paged && text.length <= LIMITS.readFileMaxChars && countLines(text) <= limit) return text;
      const lines = splitLines(text);
      if (offset > lines.length) return `"${target.display}" has ${lines.length} lines; offset ${offset} is past the end.`;
      return window(lines.slice(offset - 1, offset - 1 + limit), offset, target.display, lines.length);
    }
    if (indexableEncoding(encoding)) return await indexedWindow(handle, target, stat, { encoding, offset, limit, size: stat.size, signal });
    return await streamWindow(handle, target, { encoding, offset, limit, size: stat.size, signal });
  } finally {
    await handle.close();
  }
};

export const readFile = builtin(readConsent, runReadFile);

/** What is at a path read_file reads: a regular file, or a clear error before anyone is asked. */
async function regularFileStat(target: ResolvedPath): Promise<Stats> {
  const stat = await statOf(target, 'File');
  if (stat.isDirectory()) throw new WorkspacePathError(`"${target.display}" is a directory; use list_dir to see what it holds.`);
  if (!stat.isFile()) throw new WorkspacePathError(`"${target.display}" is not a regular file; it was not read.`);
  return stat;
}

// The path is resolved and checked in consent, so `policy explain` and the registry agree on a path outside.
export const listDir: BuiltinImplementation = builtin(
  async (args, ctx, signal) => {
    const target = await resolveWorkspacePath(ctx, args.path ?? '.', { signal });
    const stat = await statOf(target, 'Directory');
    if (!stat.isDirectory()) throw new WorkspacePathError(`"${target.display}" is a file, not a directory; use read_file to read it.`);
    return unasked('list_dir', { target });
  },
  async (_args, _ctx, { signal, plan }) => {
    const { target } = plan.prepared;
    signal?.throwIfAborted();
    const entries = await fs.readdir(target.absolute, { withFileTypes: true });
    signal?.throwIfAborted();
    const rows = await Promise.all(
      entries.map(async (entry) => {
        let isDir = entry.isDirectory();
        if (entry.isSymbolicLink()) isDir = (await fs.stat(path.join(target.absolute, entry.name)).catch(() => undefined))?.isDirectory() ?? false;
        const suffix = entry.isSymbolicLink() ? ' (symlink)' : '';
        return { name: entry.name, isDir, label: `${entry.name}${isDir ? '/' : ''}${suffix}` };
      }),
    );
    signal?.throwIfAborted();
    if (rows.length === 0) return `"${target.display}" is empty.`;
    rows.sort((a, b) => (a.isDir === b.isDir ? compareNames(a.name, b.name) : a.isDir ? -1 : 1));
    const shown = rows.slice(0, LIMITS.listDirMaxEntries).map((r) => r.label);
    if (rows.length > shown.length) {
      shown.push(`[${rows.length - shown.length} more entries not shown; use search_files to narrow down.]`);
    }
    return shown.join('\n');
  },
);

function normalizeEncoding(value: unknown): BufferEncoding {
  if (value === undefined || value === 'utf-8') return 'utf8';
  return value as BufferEncoding;
}

async function readBytes(handle: fs.FileHandle, size: number, encoding: 'base64' | 'hex'): Promise<string> {
  const maxBytes = encoding === 'base64' ? Math.floor((LIMITS.readFileMaxChars * 3) / 4) : LIMITS.readFileMaxChars / 2;
  const buffer = Buffer.alloc(Math.min(size, maxBytes));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  const encoded = buffer.subarray(0, bytesRead).toString(encoding);
  if (size <= maxBytes) return encoded;
  return `${encoded}\n\n[Truncated: the first ${formatBytes(bytesRead)} of ${formatBytes(size)}, ${encoding}-encoded.]`;
}

function countLines(text: string): number {
  let lines = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < text.length - 1; i = text.indexOf('\n', i + 1)) lines++;
  return lines;
}

/**
 * Formats the lines of a window that starts at line `offset` (1-based), capped in characters,
 * with a notice saying how to go on. `total` is undefined when the file was not read to its end.
 */
function window(lines: string[], offset: number, display: string, total: number | undefined): string {
  const cut = LIMITS.readFileMaxChars / 4;
  const picked: string[] = [];
  let chars = 0;
  for (const raw of lines) {
    const line = raw.length > cut ? `${raw.slice(0, cut)}… [line cut at ${cut} characters]` : raw;
    if (chars + line.length > LIMITS.readFileMaxChars && picked.length > 0) break;
    picked.push(line);
    chars += line.length + 1;
  }
  const last = offset + picked.length - 1;
  const body = picked.join('\n');
  if (offset === 1 && total !== undefined && last >= total) return body;
  const of = total !== undefined ? ` of ${total}` : '';
  const next = total === undefined || last < total ? ` To read on, call read_file with offset ${last + 1}.` : '';
  return `${body}\n\n[Showing lines ${offset}-${last}${of} of "${display}".${next}]`;
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

interface StreamWindow {
  encoding: BufferEncoding;
  offset: number;
  limit: number;
  size: number;
  signal?: AbortSignal;
}

/**
 * For files too big to read whole: the window read from the nearest known line checkpoint
 * (lineIndex.ts), so paging through a big file never reads it from the start again.
 */
async function indexedWindow(handle: fs.FileHandle, target: ResolvedPath, stat: Stats, options: StreamWindow): Promise<string> {
  const { encoding, offset, limit, size, signal } = options;
  const cut = LIMITS.readFileMaxChars / 4;
  // One character past the cut, so `window` sees the line was longer and says so.
  const found = await readLineWindow(handle, target.absolute, stat, { offset, limit, maxLineChars: cut + 1, maxChars: LIMITS.readFileMaxChars, signal }, encoding);
  const display = `${target.display}, ${formatBytes(size)}`;
  if (found.lines.length === 0) return `"${display}" has ${found.totalLines ?? 0} lines; offset ${offset} is past the end.`;
  return window(found.lines, offset, display, found.totalLines);
}

/** For files too big to read whole, in an encoding whose lines are not split by byte: stream to the window and stop there. */
async function streamWindow(handle: fs.FileHandle, target: ResolvedPath, options: StreamWindow): Promise<string> {
  const { encoding, offset, limit, size, signal } = options;
  const stream = handle.createReadStream({ encoding, start: 0, autoClose: false });
  const lines = readline.createInterface({ input: stream, crlfDelay: Infinity });
  const picked: string[] = [];
  let lineNumber = 0;
  let more = false;
  try {
    for await (const line of lines) {
      signal?.throwIfAborted();
      lineNumber++;
      if (lineNumber < offset) continue;
      if (lineNumber >= offset + limit) {
        more = true;
        break;
      }
      picked.push(line);
    }
  } finally {
    lines.close();
    stream.destroy();
  }
  const display = `${target.display}, ${formatBytes(size)}`;
  if (picked.length === 0) return `"${display}" has ${lineNumber} lines; offset ${offset} is past the end.`;
  return window(picked, offset, display, more ? undefined : lineNumber);
}

function compareNames(a: string, b: string): number {
  return a.localeCompare(b, 'en', { sensitivity: 'base', numeric: true }) || (a < b ? -1 : a > b ? 1 : 0);
}
