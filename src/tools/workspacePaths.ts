import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConfirmationRequest, ToolContext } from './types';

/** A path a tool may not touch, or a consent that was not given; the message is for the model. */
export class WorkspacePathError extends Error {
  override name = 'WorkspacePathError';
}

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
}

export interface ResolveOptions {
  /**
   * When the last component is a symlink, operate on its target (read, write) rather than the
   * link itself (remove, move). Either way the result must lie inside the workspace.
   */
  followFinalLink?: boolean;
}

interface Root {
  name?: string;
  path: string;
  primary: boolean;
}

/**
 * Resolves a path a model gave into a real path inside the workspace, or throws
 * WorkspacePathError. Relative paths resolve against the first folder; "<folderName>/..."
 * reaches another root of a multi-root workspace. `..` may not leave the folder, absolute paths
 * must lie inside a folder, and the check runs on real paths, so a symlink cannot lead out.
 */
export async function resolveWorkspacePath(ctx: ToolContext, input: unknown, options: ResolveOptions = {}): Promise<ResolvedPath> {
  const followFinalLink = options.followFinalLink ?? true;
  const raw = checkInput(input);
  const { root, rest, absoluteInput } = await pickRoot(ctx, raw);
  const candidate = absoluteInput ? path.normalize(rest) : path.resolve(root.path, rest);
  if (!isInside(root.path, candidate)) throw outside(raw);

  const realRoot = await realpathOrThrow(root.path);
  const { real, exists } = await realLocation(candidate, followFinalLink);
  if (!isInside(realRoot, real)) {
    throw new WorkspacePathError(`Path "${raw}" leads outside the workspace through a symbolic link; it was refused.`);
  }
  const relative = toPosix(path.relative(realRoot, real));
  const display = root.primary ? relative || '.' : joinDisplay(root.name ?? '', relative);
  return { absolute: real, root: realRoot, relative, display, exists };
}

/** `.git/`, `.vscode/` and `*.code-workspace`: writing them needs the user's say. */
export function isProtectedPath(relative: string): boolean {
  const segments = relative.split(/[\\/]/).filter(Boolean).map((s) => s.toLowerCase());
  if (segments.some((s) => s === '.git' || s === '.vscode')) return true;
  const last = segments[segments.length - 1] ?? '';
  return last.endsWith('.code-workspace');
}

export interface ConsentRequest {
  tool: string;
  args: Record<string, unknown>;
  summary: string;
  targets: ResolvedPath[];
  /** The tool needs consent for every call, whatever the path. */
  destructive?: boolean;
  signal?: AbortSignal;
}

/**
 * Asks the user through `ctx.confirm` when a call is destructive or writes a protected path.
 * Without a confirm hook a destructive tool runs (enabling it was the consent) but a protected
 * write is refused. Throws WorkspacePathError when refused.
 */
export async function requireConsent(ctx: ToolContext, request: ConsentRequest): Promise<void> {
  const protectedTargets = request.targets.filter((t) => isProtectedPath(t.relative));
  if (!request.destructive && protectedTargets.length === 0) return;
  if (!ctx.confirm) {
    if (protectedTargets.length === 0) return;
    throw new WorkspacePathError(
      `"${protectedTargets[0].display}" is a protected path (.git/, .vscode/, *.code-workspace); ` +
        'changing it needs the user\'s confirmation, and none can be asked here. It was not changed.',
    );
  }
  const confirmation: ConfirmationRequest = {
    tool: request.tool,
    reason: protectedTargets.length > 0 ? 'protected' : 'destructive',
    summary: request.summary,
    args: request.args,
    paths: request.targets.map((t) => t.display),
    signal: request.signal,
  };
  const approved = await ctx.confirm(confirmation);
  if (!approved) throw new WorkspacePathError(`The user declined: ${request.summary}. Nothing was changed.`);
}

function checkInput(input: unknown): string {
  if (typeof input !== 'string') throw new WorkspacePathError(`A path must be a string, got ${input === null ? 'null' : typeof input}.`);
  let raw = input.trim();
  if (raw === '') throw new WorkspacePathError('The path is empty.');
  if (raw.includes('\0')) throw new WorkspacePathError('The path contains a NUL byte; it was refused.');
  if (raw.startsWith('file://')) {
    try {
      raw = fileURLToPath(raw);
    } catch {
      throw new WorkspacePathError(`"${raw}" is not a usable file URL.`);
    }
  }
  if (raw === '~' || raw.startsWith('~/')) {
    throw new WorkspacePathError(`"${raw}" points into the home directory; only paths inside the workspace are allowed.`);
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

/** The real path of `candidate`: its deepest existing ancestor resolved, the rest appended. */
async function realLocation(candidate: string, followFinalLink: boolean): Promise<{ real: string; exists: boolean }> {
  const finalStat = await lstatOrUndefined(candidate);
  if (finalStat && !(finalStat.isSymbolicLink() && followFinalLink)) {
    if (finalStat.isSymbolicLink() || candidate === path.parse(candidate).root) {
      return { real: path.join(await realpathOrThrow(path.dirname(candidate)), path.basename(candidate)), exists: true };
    }
    return { real: await realpathOrThrow(candidate), exists: true };
  }
  if (finalStat) {
    try {
      return { real: await fs.realpath(candidate), exists: true };
    } catch {
      // A dangling link: where it would write is its target, resolved like a new path.
      const target = await fs.readlink(candidate);
      const real = await realLocation(path.resolve(path.dirname(candidate), target), true);
      return { real: real.real, exists: false };
    }
  }
  const missing: string[] = [];
  let existing = candidate;
  for (;;) {
    const parent = path.dirname(existing);
    missing.unshift(path.basename(existing));
    existing = parent;
    if ((await lstatOrUndefined(existing)) || parent === path.dirname(parent)) break;
  }
  const base = await realLocation(existing, true);
  return { real: path.join(base.real, ...missing), exists: false };
}

async function lstatOrUndefined(p: string) {
  try {
    return await fs.lstat(p);
  } catch {
    return undefined;
  }
}

async function realpathOrThrow(p: string): Promise<string> {
  try {
    return await fs.realpath(p);
  } catch (error) {
    throw new WorkspacePathError(`Cannot resolve "${p}": ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
}

function isInside(root: string, candidate: string): boolean {
  const rel = path.relative(root, candidate);
  return rel === '' || (!rel.startsWith('..' + path.sep) && rel !== '..' && !path.isAbsolute(rel));
}

function outside(raw: string): WorkspacePathError {
  return new WorkspacePathError(`Path "${raw}" is outside the workspace; use a path relative to the workspace root.`);
}

function toPosix(p: string): string {
  return p.split(path.sep).join('/');
}

function joinDisplay(name: string, relative: string): string {
  return relative ? `${name}/${relative}` : name;
}
