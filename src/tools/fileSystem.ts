import { randomBytes } from 'node:crypto';
import { constants, promises as fs, type Stats } from 'node:fs';
import * as path from 'node:path';
import { WorkspacePathError, type ResolvedPath } from './workspacePaths';

// What the file tools share: opening a file safely, writing one atomically, sizes for people.

const BINARY_SNIFF_BYTES = 8192;
/** Never blocks on a FIFO that appeared after the check, never follows a link swapped in. */
const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

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

export async function statOf(target: ResolvedPath, kind: 'File' | 'Directory') {
  try {
    return await fs.stat(target.absolute);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new WorkspacePathError(`${kind} "${target.display}" does not exist.`);
    throw error;
  }
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

export async function looksBinary(handle: fs.FileHandle): Promise<boolean> {
  const buffer = Buffer.alloc(BINARY_SNIFF_BYTES);
  const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
  return buffer.subarray(0, bytesRead).includes(0);
}

