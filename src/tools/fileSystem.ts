import { randomBytes } from 'node:crypto';
import { constants, promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import * as readline from 'node:readline';
import { indexableEncoding, readLineWindow } from './lineIndex';
import { LIMITS } from './manifest';
import { requireSensitiveConsent, requireSensitiveMoveConsent } from './sensitiveFiles';
import { PathRefusedError, requireConsent, resolveWorkspacePath, WorkspacePathError, type ResolvedPath } from './workspacePaths';
import type { ToolHandler } from './builtinTool';

/** Files up to this size are read whole; bigger ones are streamed line by line. */
const WHOLE_READ_BYTES = 20 * 1024 * 1024;
const BINARY_SNIFF_BYTES = 8192;
const BYTE_ENCODINGS = new Set(['base64', 'hex']);
/** Never blocks on a FIFO that appeared after the check, never follows a link swapped in. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

export const readFile: ToolHandler = async (args, ctx, { signal, approval }) => {
  const target = await resolveWorkspacePath(ctx, args.path, { signal });
  const { handle, stat } = await openRegularFile(target);
  try {
    // Asked with the file already open: what the person allows is the file that is read.
    await requireSensitiveConsent(ctx, target, { tool: 'read_file', args, signal, approval });
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

export const writeFile: ToolHandler = async (args, ctx, { signal }) => {
  const target = await resolveWorkspacePath(ctx, args.path, { signal });
  const content = args.content as string;
  const existing = await writableFileStat(target);
  await requireConsent(ctx, { tool: 'write_file', args, summary: `Write ${target.display}`, targets: [target], signal });
  signal?.throwIfAborted();
  await writeFileAtomic(target.absolute, content, signal);
  const bytes = Buffer.byteLength(content, 'utf8');
  return `${existing ? 'Overwrote' : 'Created'} "${target.display}" (${formatBytes(bytes)}).`;
};

export const listDir: ToolHandler = async (args, ctx, { signal }) => {
  const target = await resolveWorkspacePath(ctx, args.path ?? '.', { signal });
  const stat = await statOf(target, 'Directory');
  if (!stat.isDirectory()) throw new WorkspacePathError(`"${target.display}" is a file, not a directory; use read_file to read it.`);
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
};

export const makeDirectory: ToolHandler = async (args, ctx, { signal }) => {
  const target = await resolveWorkspacePath(ctx, args.path, { signal });
  const existing = await fs.stat(target.absolute).catch(() => undefined);
  if (existing?.isDirectory()) return `Directory "${target.display}" already exists.`;
  if (existing) throw new WorkspacePathError(`"${target.display}" exists and is a file.`);
  await requireConsent(ctx, { tool: 'mkdir', args, summary: `Create directory ${target.display}`, targets: [target], signal });
  signal?.throwIfAborted();
  await fs.mkdir(target.absolute, { recursive: true });
  return `Created directory "${target.display}".`;
};

export const remove: ToolHandler = async (args, ctx, { signal }) => {
  const target = await resolveWorkspacePath(ctx, args.path, { followFinalLink: false, signal });
  if (target.relative === '') throw new PathRefusedError('Refusing to delete a workspace folder itself.');
  const stat = await fs.lstat(target.absolute).catch(() => undefined);
  if (!stat) throw new WorkspacePathError(`"${target.display}" does not exist.`);
  const recursive = args.recursive === true;
  const isDir = stat.isDirectory();
  if (isDir && !recursive && (await fs.readdir(target.absolute)).length > 0) {
    throw new WorkspacePathError(`Directory "${target.display}" is not empty; pass recursive: true to delete it with everything in it.`);
  }
  const what = isDir ? `directory ${target.display}${recursive ? ' and everything in it' : ''}` : target.display;
  await requireConsent(ctx, { tool: 'remove', args, summary: `Delete ${what}`, targets: [target], destructive: true, signal });
  signal?.throwIfAborted();
  await fs.rm(target.absolute, { recursive: isDir, force: false });
  return `Deleted ${isDir ? 'directory' : 'file'} "${target.display}".`;
};

export const move: ToolHandler = async (args, ctx, { signal, approval }) => {
  const source = await resolveWorkspacePath(ctx, args.source, { followFinalLink: false, signal });
  const destination = await resolveWorkspacePath(ctx, args.destination, { followFinalLink: false, signal });
  if (source.relative === '') throw new PathRefusedError('Refusing to move a workspace folder itself.');
  if (!source.exists) throw new WorkspacePathError(`Source "${source.display}" does not exist.`);
  if (source.absolute === destination.absolute) throw new WorkspacePathError('Source and destination are the same path.');
  if (destination.absolute.startsWith(source.absolute + path.sep)) {
    throw new WorkspacePathError(`Cannot move "${source.display}" into itself ("${destination.display}").`);
  }
  if (destination.relative === '') throw new PathRefusedError('Refusing to replace a workspace folder.');
  const overwrite = args.overwrite === true;
  if (destination.exists && !overwrite) {
    throw new WorkspacePathError(`Destination "${destination.display}" already exists; pass overwrite: true to replace it.`);
  }
  const isDirectory = (await fs.lstat(source.absolute).catch(() => undefined))?.isDirectory() ?? false;
  await requireSensitiveMoveConsent(ctx, source, destination, isDirectory, { tool: 'move', args, signal, approval });
  await requireConsent(ctx, {
    tool: 'move',
    args,
    summary: `Move ${source.display} to ${destination.display}${destination.exists ? ' (replacing it)' : ''}`,
    targets: [source, destination],
    signal,
  });
  signal?.throwIfAborted();
  await fs.mkdir(path.dirname(destination.absolute), { recursive: true });
  if (destination.exists) await fs.rm(destination.absolute, { recursive: true, force: true });
  try {
    await fs.rename(source.absolute, destination.absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
    // Another root on another device: copy, then delete the original.
    await fs.cp(source.absolute, destination.absolute, { recursive: true, errorOnExist: true, verbatimSymlinks: true });
    await fs.rm(source.absolute, { recursive: true });
  }
  return `Moved "${source.display}" to "${destination.display}".`;
};

/**
 * What is at a path a tool is about to write as a file: nothing, or a regular file. A folder, a
 * FIFO, a socket or a device is refused, so nothing is replaced that was never a file.
 */
export async function writableFileStat(target: ResolvedPath): Promise<Stats | undefined> {
  const existing = await fs.stat(target.absolute).catch(() => undefined);
  if (existing?.isDirectory()) throw new WorkspacePathError(`"${target.display}" is a directory; it cannot be written as a file.`);
  if (existing && !existing.isFile()) {
    throw new WorkspacePathError(`"${target.display}" is not a regular file (a pipe, socket or device); it was not written.`);
  }
  return existing;
}

/**
 * Writes through a temp file in the same directory and a rename, so no reader sees half a file.
 * The temp file is created exclusively, so this never opens a FIFO or follows a link.
 */
export async function writeFileAtomic(file: string, content: string, signal?: AbortSignal): Promise<void> {
  const dir = path.dirname(file);
  await fs.mkdir(dir, { recursive: true });
  const mode = (await fs.stat(file).catch(() => undefined))?.mode;
  const temp = path.join(dir, `.${path.basename(file)}.${randomBytes(6).toString('hex')}.tmp`);
  try {
    await fs.writeFile(temp, content, { encoding: 'utf8', mode, flag: 'wx', signal });
    await fs.rename(temp, file);
  } catch (error) {
    await fs.rm(temp, { force: true });
    throw error;
  }
}

export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

async function statOf(target: ResolvedPath, kind: 'File' | 'Directory') {
  try {
    return await fs.stat(target.absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new WorkspacePathError(`${kind} "${target.display}" does not exist.`);
    throw error;
  }
}

function normalizeEncoding(value: unknown): BufferEncoding {
  if (value === undefined || value === 'utf-8') return 'utf8';
  return value as BufferEncoding;
}

/**
 * Opens a regular file without ever opening a FIFO or a device: stat first and refuse anything
 * else, then open without blocking and without following a final link, and check it is still the
 * file that was stat'ed (a FIFO or link swapped in between is refused, not waited on).
 */
export async function openRegularFile(target: ResolvedPath): Promise<{ handle: fs.FileHandle; stat: Stats }> {
  const checked = await statOf(target, 'File');
  if (checked.isDirectory()) throw new WorkspacePathError(`"${target.display}" is a directory; use list_dir to see what it holds.`);
  if (!checked.isFile()) throw new WorkspacePathError(`"${target.display}" is not a regular file; it was not read.`);
  let handle: fs.FileHandle;
  try {
    handle = await fs.open(target.absolute, READ_FLAGS);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') throw new WorkspacePathError(`File "${target.display}" does not exist.`);
    if (code === 'ELOOP') throw new WorkspacePathError(`"${target.display}" was replaced by a symbolic link while being opened; it was not read.`);
    throw error;
  }
  const stat = await handle.stat();
  if (!stat.isFile() || stat.ino !== checked.ino || stat.dev !== checked.dev) {
    await handle.close();
    throw new WorkspacePathError(`"${target.display}" was replaced while being opened; it was not read.`);
  }
  return { handle, stat };
}

async function readBytes(handle: fs.FileHandle, size: number, encoding: 'base64' | 'hex'): Promise<string> {
  const maxBytes = encoding === 'base64' ? Math.floor((LIMITS.readFileMaxChars * 3) / 4) : LIMITS.readFileMaxChars / 2;
  const buffer = Buffer.alloc(Math.min(size, maxBytes));
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  const encoded = buffer.subarray(0, bytesRead).toString(encoding);
  if (size <= maxBytes) return encoded;
  return `${encoded}\n\n[Truncated: the first ${formatBytes(bytesRead)} of ${formatBytes(size)}, ${encoding}-encoded.]`;
}

export async function looksBinary(handle: fs.FileHandle): Promise<boolean> {
  const buffer = Buffer.alloc(BINARY_SNIFF_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  return buffer.subarray(0, bytesRead).includes(0);
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
