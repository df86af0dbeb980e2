import { createHash, randomBytes } from 'node:crypto';
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { formatBytes } from '../fileSystem';
import { exists, isInside } from '../pathChecks';

/*
 * The states the checkpoint store keeps: what is at a path (never following a link), a signature
 * that is equal for two states exactly when they are, and how to write a state back.
 */

export type Snapshot =
  | { kind: 'absent' }
  /** `hash` is the content's sha256, or `big:<size>:<mtime>` for a file over the size limit. */
  | { kind: 'file'; mode: number; size: number; hash: string; stored: boolean; missing?: string }
  | { kind: 'link'; target: string }
  | { kind: 'dir'; mode: number; children: Record<string, Snapshot> }
  /** A FIFO, socket or device: seen, never restorable. */
  | { kind: 'other'; mode: number };

/** A file (or a file inside a folder) that cannot be brought back, and why. */
export interface MissingFile {
  path: string;
  reason: string;
}

const READ_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0) | (constants.O_NOFOLLOW ?? 0);

export interface BlobSink {
  blobs: string;
  budget: { remaining: number };
  /** Files whose content is not kept (a secret no person agreed to change). */
  secret?: (abs: string) => boolean;
}

export const SECRET_NOT_KEPT = 'it may hold secrets (toolbelt.tools.sensitiveFiles) and no person approved this change: no copy was kept';

/** The state of a path, never following a link; with a sink, file contents are stored too. */
export async function scan(abs: string, maxFileBytes: number, sink?: BlobSink): Promise<Snapshot> {
  const stat = await fs.lstat(abs).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return undefined;
    throw error;
  });
  if (!stat) return { kind: 'absent' };
  const mode = stat.mode & 0o7777;
  if (stat.isSymbolicLink()) return { kind: 'link', target: await fs.readlink(abs) };
  if (stat.isDirectory()) {
    const children: Record<string, Snapshot> = {};
    for (const name of (await fs.readdir(abs)).sort()) children[name] = await scan(path.join(abs, name), maxFileBytes, sink);
    return { kind: 'dir', mode, children };
  }
  if (!stat.isFile()) return { kind: 'other', mode };
  if (stat.size > maxFileBytes) {
    const missing = `${formatBytes(stat.size)}, over the ${formatBytes(maxFileBytes)} limit for checkpoint copies: no copy was kept`;
    return { kind: 'file', mode, size: stat.size, hash: `big:${stat.size}:${stat.mtimeMs}`, stored: false, missing };
  }
  const content = await fs.readFile(abs, { flag: READ_FLAGS });
  const hash = createHash('sha256').update(content).digest('hex');
  if (!sink) return { kind: 'file', mode, size: content.length, hash, stored: false };
  if (sink.secret?.(abs)) return { kind: 'file', mode, size: content.length, hash, stored: false, missing: SECRET_NOT_KEPT };
  const missing = await storeBlob(sink, hash, content);
  return { kind: 'file', mode, size: content.length, hash, stored: missing === undefined, ...(missing ? { missing } : {}) };
}

/** Stores content under its hash; returns why it was not stored, if it was not. */
async function storeBlob(sink: BlobSink, hash: string, content: Buffer): Promise<string | undefined> {
  const file = path.join(sink.blobs, hash);
  if (await exists(file)) return undefined;
  if (content.length > sink.budget.remaining) return 'the checkpoint storage limit was reached during this turn: no copy was kept';
  sink.budget.remaining -= content.length;
  const temp = path.join(sink.blobs, `.${hash}.${randomBytes(6).toString('hex')}.tmp`);
  await fs.writeFile(temp, content, { flag: 'wx', mode: 0o600 });
  await fs.rename(temp, file);
  return undefined;
}

/** A short string equal for two states exactly when type, mode and content (deeply) are equal. */
export function signature(snapshot: Snapshot): string {
  switch (snapshot.kind) {
    case 'absent':
      return 'absent';
    case 'file':
      return `file:${snapshot.mode.toString(8)}:${snapshot.hash}`;
    case 'link':
      return `link:${snapshot.target}`;
    case 'other':
      return `other:${snapshot.mode.toString(8)}`;
    case 'dir': {
      const hash = createHash('sha256');
      for (const name of Object.keys(snapshot.children).sort()) hash.update(`${name}\0${signature(snapshot.children[name])}\n`);
      return `dir:${snapshot.mode.toString(8)}:${hash.digest('hex')}`;
    }
  }
}

export type FileSnapshot = Extract<Snapshot, { kind: 'file' }> & { display: string };

export function filesOf(snapshot: Snapshot, display = ''): FileSnapshot[] {
  if (snapshot.kind === 'file') return [{ ...snapshot, display }];
  if (snapshot.kind !== 'dir') return [];
  return Object.entries(snapshot.children).flatMap(([name, child]) => filesOf(child, `${display}/${name}`));
}

export function missingFiles(snapshot: Snapshot, display: string): MissingFile[] {
  return filesOf(snapshot, display)
    .filter((f) => !f.stored)
    .map((f) => ({ path: f.display, reason: f.missing ?? 'no copy was kept' }));
}

/** The path with its parent folders resolved (the last component stays as it is: it may be a link). */
export async function realParentPath(abs: string): Promise<string> {
  const resolved = path.resolve(abs);
  const rest: string[] = [path.basename(resolved)];
  for (let dir = path.dirname(resolved); ; dir = path.dirname(dir)) {
    const real = await fs.realpath(dir).catch(() => undefined);
    if (real !== undefined) return path.join(real, ...rest);
    if (path.dirname(dir) === dir) return resolved;
    rest.unshift(path.basename(dir));
  }
}

/**
 * Refuses to restore through anything but real folders inside the workspace: a folder on the way
 * since replaced by a link (even one leading inside, say into .git/hooks) or by a file stops it.
 * Recorded paths are real paths below the real root, so each existing step must be a folder.
 */
export async function assertRealFoldersInside(root: string, abs: string): Promise<void> {
  const realRoot = await fs.realpath(root);
  const parent = path.dirname(path.resolve(abs));
  if (!isInside(realRoot, parent)) throw new Error('it is no longer inside the workspace');
  let dir = realRoot;
  for (const name of path.relative(realRoot, parent).split(path.sep).filter(Boolean)) {
    dir = path.join(dir, name);
    const stat = await fs.lstat(dir).catch(() => undefined);
    if (!stat) return;
    if (stat.isSymbolicLink()) throw new Error(`a folder on its way (${path.relative(realRoot, dir)}) is now a link; undo does not follow it`);
    if (!stat.isDirectory()) throw new Error(`a folder on its way (${path.relative(realRoot, dir)}) is now a file`);
  }
}

/** Writes a snapshot at `abs` (which must not exist); what cannot be written goes to `skipped`. */
export async function materialize(snapshot: Snapshot, blobs: string, abs: string, display: string, skipped: MissingFile[]): Promise<void> {
  if (snapshot.kind === 'link') await fs.symlink(snapshot.target, abs);
  else if (snapshot.kind === 'other') skipped.push({ path: display, reason: 'was not a file, folder or link; it cannot be restored' });
  else if (snapshot.kind === 'file' && !snapshot.stored) skipped.push({ path: display, reason: snapshot.missing ?? 'no copy was kept' });
  else if (snapshot.kind === 'file') {
    const content = await readBlob(blobs, snapshot.hash);
    const temp = path.join(path.dirname(abs), `.${path.basename(abs)}.${randomBytes(6).toString('hex')}.tmp`);
    await fs.writeFile(temp, content, { flag: 'wx', mode: 0o600 });
    // Never a set-user or set-group id bit: undo may run as root.
    await fs.chmod(temp, snapshot.mode & RESTORED_MODE_BITS);
    await fs.rename(temp, abs);
  } else if (snapshot.kind === 'dir') {
    await fs.mkdir(abs);
    for (const [name, child] of Object.entries(snapshot.children)) await materialize(child, blobs, path.join(abs, name), `${display}/${name}`, skipped);
    await fs.chmod(abs, snapshot.mode & RESTORED_MODE_BITS);
  }
}

const RESTORED_MODE_BITS = 0o1777;

/** Throws unless every stored copy a snapshot needs can be read as it was stored (called before anything at its path is removed). */
export async function checkBlobs(snapshot: Snapshot, blobs: string): Promise<void> {
  for (const file of filesOf(snapshot)) if (file.stored) await readBlob(blobs, file.hash);
}

/**
 * A stored copy, only if it is a regular file (never through a link) whose content still hashes to
 * its name: a copy swapped for a link to another file, or edited, is refused.
 */
async function readBlob(blobs: string, hash: string): Promise<Buffer> {
  const handle = await fs.open(path.join(blobs, hash), READ_FLAGS).catch((error: NodeJS.ErrnoException) => {
    throw new Error(error.code === 'ELOOP' ? 'its stored copy is a link; undo does not follow it' : `its stored copy cannot be read (${error.code ?? error.message})`);
  });
  try {
    if (!(await handle.stat()).isFile()) throw new Error('its stored copy is not a file');
    const content = await handle.readFile();
    if (createHash('sha256').update(content).digest('hex') !== hash) throw new Error('its stored copy was changed since it was made');
    return content;
  } finally {
    await handle.close();
  }
}

/** A blob's name: the sha256 of its content, and nothing else. */
const BLOB_NAME = /^[0-9a-f]{64}$/;

/**
 * Throws unless `value` is a snapshot this store could have written: blob names are hashes, names
 * inside a folder are single path components, modes are permission bits. Records are read from a
 * folder something else may have written; nothing in them is trusted before this check.
 */
export function checkSnapshot(value: unknown, where: string): asserts value is Snapshot {
  const fail = (what: string): never => {
    throw new Error(`${where}: ${what}`);
  };
  if (typeof value !== 'object' || value === null) fail('not a snapshot');
  const snapshot = value as Record<string, unknown>;
  const isMode = (mode: unknown) => Number.isInteger(mode) && (mode as number) >= 0 && (mode as number) <= 0o7777;
  switch (snapshot.kind) {
    case 'absent':
      return;
    case 'file':
      if (!isMode(snapshot.mode)) fail('a file mode that is not permission bits');
      if (typeof snapshot.hash !== 'string' || typeof snapshot.size !== 'number') fail('a file without hash or size');
      if (snapshot.stored === true && !BLOB_NAME.test(snapshot.hash as string)) fail(`a stored copy named ${JSON.stringify(snapshot.hash)}, which is not a sha256`);
      return;
    case 'link':
      if (typeof snapshot.target !== 'string' || snapshot.target === '' || snapshot.target.includes('\0')) fail('a link without a target');
      return;
    case 'other':
      if (!isMode(snapshot.mode)) fail('a mode that is not permission bits');
      return;
    case 'dir': {
      if (!isMode(snapshot.mode)) fail('a folder mode that is not permission bits');
      if (typeof snapshot.children !== 'object' || snapshot.children === null) fail('a folder without children');
      for (const [name, child] of Object.entries(snapshot.children as Record<string, unknown>)) {
        if (!isPathComponent(name)) fail(`a name inside a folder that is not one path component: ${JSON.stringify(name)}`);
        checkSnapshot(child, `${where}/${name}`);
      }
      return;
    }
    default:
      fail(`an unknown kind ${JSON.stringify(snapshot.kind)}`);
  }
}

function isPathComponent(name: string): boolean {
  return name !== '' && name !== '.' && name !== '..' && !name.includes('/') && !name.includes(path.sep) && !name.includes('\0');
}
