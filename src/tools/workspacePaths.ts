import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ToolRefusedError } from './toolErrors';
import type { ToolContext } from './types';

/** A path that cannot be used as given (missing, malformed, a loop of links); the message is for the model. */
export class WorkspacePathError extends Error {
  override name = 'WorkspacePathError';
}

/**
 * A path a tool may not touch, or a consent that was not given: outside the workspace, an escape
 * through a symlink, a NUL byte, `~`, a protected write nobody confirmed, a declined approval.
 */
export class PathRefusedError extends ToolRefusedError {
  override name = 'PathRefusedError';
}

/** Links followed in one resolution at most; the Linux kernel stops at the same count (ELOOP). */
export const MAX_LINK_HOPS = 40;
/** Longer inputs are refused before touching the file system (PATH_MAX on Linux). */
export const MAX_PATH_CHARS = 4096;

export interface ResolvedPath {
  /** The real absolute path to operate on (symlinks in its parents resolved). */
  absolute: string;
  /** The real absolute path of the workspace folder it lies in. */
  root: string;
  /** Path inside that folder, with "/" separators; "" for the folder itself. */
  relative: string;
  /** How to name it to the model and the user: relative, "<folderName>/..." for other roots. */
  display: string;
  /** Whether something exists there now (a dangling symlink counts). */
  exists: boolean;
  /** The path as the model gave it (trimmed, file URL decoded), for messages and re-checks. */
  input: string;
  /** Whether a final symlink was followed (see ResolveOptions). */
  followFinalLink: boolean;
}

export interface ResolveOptions {
  /**
   * When the last component is a symlink, operate on its target (read, write) rather than the
   * link itself (remove, move). Either way the result must lie inside the workspace.
   */
  followFinalLink?: boolean;
  /** Stop: checked between every file-system step. */
  signal?: AbortSignal;
}

interface Root {
  name?: string;
  path: string;
  primary: boolean;
}

/**
 * Resolves a path a model gave into a real path inside the workspace, or throws
 * WorkspacePathError (unusable) or PathRefusedError (not allowed). Relative paths resolve against
 * the first folder; "<folderName>/..." reaches another root of a multi-root workspace. `..` may
 * not leave the folder, absolute paths must lie inside a folder, and the check runs on real
 * paths, so a symlink cannot lead out. Links are followed at most MAX_LINK_HOPS times.
 */
export async function resolveWorkspacePath(ctx: ToolContext, input: unknown, options: ResolveOptions = {}): Promise<ResolvedPath> {
  const followFinalLink = options.followFinalLink ?? true;
  const { signal } = options;
  signal?.throwIfAborted();
  const raw = checkInput(input);
  const { root, rest, absoluteInput } = await pickRoot(ctx, raw);
  const candidate = absoluteInput ? path.normalize(rest) : path.resolve(root.path, rest);
  if (!isInside(root.path, candidate)) throw outside(raw);

  const realRoot = await realpathOrThrow(root.path, raw);
  const { real, exists } = await realLocation(realRoot, path.relative(root.path, candidate), { followFinalLink, raw, signal });
  if (!isInside(realRoot, real)) {
    throw new PathRefusedError(`Path "${shorten(raw)}" leads outside the workspace through a symbolic link; it was refused.`);
  }
  const relative = toPosix(path.relative(realRoot, real));
  const display = root.primary ? relative || '.' : joinDisplay(root.name ?? '', relative);
  return { absolute: real, root: realRoot, relative, display, exists, input: raw, followFinalLink };
}

/**
 * While a person decided, a folder on the way may have been swapped for a symlink (or back):
 * resolve every target again and refuse when one no longer lands where it was approved.
 */
export async function assertUnchanged(ctx: ToolContext, targets: readonly ResolvedPath[], signal?: AbortSignal): Promise<void> {
  for (const target of targets) {
    const again = await resolveWorkspacePath(ctx, target.input, { followFinalLink: target.followFinalLink, signal });
    if (again.absolute !== target.absolute) {
      throw new PathRefusedError(
        `"${target.display}" changed while waiting for confirmation (a folder or symbolic link on the way was replaced); nothing was changed.`,
      );
    }
  }
}

function checkInput(input: unknown): string {
  if (typeof input !== 'string') throw new WorkspacePathError(`A path must be a string, got ${input === null ? 'null' : typeof input}.`);
  let raw = input.trim();
  if (raw === '') throw new WorkspacePathError('The path is empty.');
  if (raw.startsWith('file://') && !raw.includes('\0')) {
    try {
      raw = fileURLToPath(raw);
    } catch {
      throw new WorkspacePathError(`"${shorten(raw)}" is not a usable file URL.`);
    }
  }
  if (raw.includes('\0')) throw new PathRefusedError('The path contains a NUL byte; it was refused.');
  if (raw.length > MAX_PATH_CHARS) {
    throw new WorkspacePathError(`The path "${shorten(raw)}" is ${raw.length} characters long; at most ${MAX_PATH_CHARS} are allowed.`);
  }
  if (raw === '~' || raw.startsWith('~/')) {
    throw new PathRefusedError(`"${raw}" points into the home directory; only paths inside the workspace are allowed.`);
  }
  return raw;
}

function workspaceRoots(ctx: ToolContext): Root[] {
  if (!ctx.workspaceRoot || !path.isAbsolute(ctx.workspaceRoot)) {
    throw new WorkspacePathError('No workspace folder is open, so file tools have nowhere to work.');
  }
  const primary: Root = { path: path.normalize(ctx.workspaceRoot), primary: true };
  const others: Root[] = [];
  for (const [name, folder] of Object.entries(ctx.workspaceRoots ?? {})) {
    const normalized = path.normalize(folder);
    if (normalized === primary.path) primary.name = name;
    else if (path.isAbsolute(normalized)) others.push({ name, path: normalized, primary: false });
  }
  return [primary, ...others];
}

async function pickRoot(ctx: ToolContext, raw: string): Promise<{ root: Root; rest: string; absoluteInput: boolean }> {
  const roots = workspaceRoots(ctx);
  if (path.isAbsolute(raw)) {
    const normalized = path.normalize(raw);
    const root = roots.find((r) => isInside(r.path, normalized));
    if (root) return { root, rest: normalized, absoluteInput: true };
    // The folder may have been opened through a symlink while the model names its real path.
    for (const r of roots) {
      const real = await fs.realpath(r.path).catch(() => undefined);
      if (real && isInside(real, normalized)) return { root: { ...r, path: real }, rest: normalized, absoluteInput: true };
    }
    throw outside(raw);
  }
  const [first, ...remaining] = raw.split(/[\\/]+/);
  const named = roots.slice(1).find((r) => r.name === first);
  if (named) return { root: named, rest: remaining.join('/') || '.', absoluteInput: false };
  return { root: roots[0], rest: raw, absoluteInput: false };
}

interface WalkOptions {
  followFinalLink: boolean;
  /** The path as the model gave it, for messages. */
  raw: string;
  signal?: AbortSignal;
}

/**
 * The real path of `rest` below the real folder `realRoot`, walked one component at a time the
 * way the kernel does: each symlink is read and its target spliced in, at most MAX_LINK_HOPS
 * times in all, so a loop (`a -> b -> a`, `self -> self`) or an endless chain ends with an error
 * instead of running forever. What does not exist yet is appended as written (`exists: false`);
 * a dangling final link resolves to where writing it would create its target.
 */
async function realLocation(realRoot: string, rest: string, options: WalkOptions): Promise<{ real: string; exists: boolean }> {
  let pending = segments(rest);
  let current = realRoot;
  let hops = 0;
  while (pending.length > 0) {
    options.signal?.throwIfAborted();
    const name = pending[0];
    if (name === '..') current = path.dirname(current);
    if (name === '..' || name === '.') {
      pending = pending.slice(1);
      continue;
    }
    const next = path.join(current, name);
    const isLast = pending.length === 1;
    const stat = await lstatStep(next, options.raw);
    if (stat?.isSymbolicLink() && (!isLast || options.followFinalLink)) {
      hops++;
      if (hops > MAX_LINK_HOPS) {
        throw new WorkspacePathError(
          `Path "${shorten(options.raw)}" runs into a loop of symbolic links (or a chain of more than ${MAX_LINK_HOPS}); it was not followed.`,
        );
      }
      const target = await readlinkStep(next, options.raw);
      if (path.isAbsolute(target)) current = path.parse(target).root;
      pending = [...segments(target), ...pending.slice(1)];
      continue;
    }
    if (!stat || (!isLast && !stat.isDirectory())) {
      // Nothing (or no folder) here: the rest is new. `..` after a new name cancels it on paper;
      // walk on with what is left so that anything existing beyond it is still checked.
      if (pending.includes('..')) {
        pending = segments(path.normalize(pending.join(path.sep)));
        continue;
      }
      return { real: path.join(current, ...pending), exists: false };
    }
    current = next;
    pending = pending.slice(1);
  }
  return { real: current, exists: true };
}

/** A backslash separates only on Windows; elsewhere it is part of a name. */
const SEPARATORS = path.sep === '\\' ? /[\\/]+/ : /\/+/;

function segments(p: string): string[] {
  return p.split(SEPARATORS).filter((s) => s !== '' && s !== '.');
}

/** lstat for the walk: undefined when nothing is there (or a parent is not a folder). */
async function lstatStep(p: string, raw: string) {
  try {
    return await fs.lstat(p);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw walkError(raw, code, error);
  }
}

async function readlinkStep(p: string, raw: string): Promise<string> {
  try {
    return await fs.readlink(p);
  } catch (error) {
    throw walkError(raw, (error as NodeJS.ErrnoException).code, error);
  }
}

function walkError(raw: string, code: string | undefined, error: unknown): WorkspacePathError {
  if (code === 'ENAMETOOLONG') return new WorkspacePathError(`Path "${shorten(raw)}" has a name too long for the file system.`);
  return new WorkspacePathError(`Cannot resolve "${shorten(raw)}": ${code ?? String(error)}`);
}

async function realpathOrThrow(p: string, raw: string): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch (error) {
    throw new WorkspacePathError(`Cannot resolve "${shorten(raw)}": its workspace folder is unusable (${(error as NodeJS.ErrnoException).code ?? String(error)}).`);
  }
}

/** Long inputs are named by their start, so an error stays readable. */
function shorten(raw: string): string {
  return raw.length > 200 ? `${raw.slice(0, 200)}…` : raw;
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

function outside(raw: string): PathRefusedError {
  return new PathRefusedError(`Path "${shorten(raw)}" is outside the workspace; use a path relative to the workspace root.`);
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function joinDisplay(name: string, relative: string): string {
  return relative ? `${name}/${relative}` : name;
}
