import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ToolContext } from './types';

/*
 * A hard link is the same file under another name: `notes.txt` linked to `.env` holds the secret
 * while its name matches no glob. Sensitive files are therefore also known by what they are — the
 * device and inode of each file a glob matches — and a file with more than one link is judged by
 * that identity. Only files with more than one link pay for it: finding the sensitive files means
 * walking the workspace (kept for a few seconds, for a run of reads and searches).
 */

/** Entries walked at most; past this the workspace is too big to rule a link out, and the file counts as sensitive. */
export const LINK_SCAN_MAX_ENTRIES = 200_000;
/** How long one walk's findings are reused. */
const CACHE_MS = 5000;
/** Never walked for sensitive files: version control data, not the workspace's files. */
const SKIPPED_DIRS = new Set(['.git']);

export interface FileIdentity {
  dev: number;
  ino: number;
  nlink: number;
}

interface Found {
  /** `dev:ino` → the glob its name matched. */
  byIdentity: Map<string, string>;
  /** The walk stopped at LINK_SCAN_MAX_ENTRIES. */
  incomplete: boolean;
  at: number;
}

const cache = new Map<string, Promise<Found>>();

/** Which glob a workspace-relative path matches (sensitiveFiles.ts's matcher). */
export type GlobMatcher = (relative: string) => string | undefined;

/** The glob a file with more than one link is sensitive by (one of its other names matches it), or undefined. */
export async function sensitiveLinkGlob(ctx: ToolContext, identity: FileIdentity, match: GlobMatcher, signal?: AbortSignal, now: () => number = Date.now): Promise<string | undefined> {
  if (identity.nlink <= 1 || !ctx.sensitiveGlobs?.length) return undefined;
  const found = await sensitiveIdentities(ctx, match, signal, now);
  const glob = found.byIdentity.get(`${identity.dev}:${identity.ino}`);
  if (glob !== undefined) return glob;
  return found.incomplete ? `(a hard link in a workspace of more than ${LINK_SCAN_MAX_ENTRIES.toLocaleString('en')} entries)` : undefined;
}

/** Identities of the workspace's sensitive files, from a recent walk or a new one. */
async function sensitiveIdentities(ctx: ToolContext, match: GlobMatcher, signal: AbortSignal | undefined, now: () => number): Promise<Found> {
  const roots = [ctx.workspaceRoot, ...Object.values(ctx.workspaceRoots ?? {})].filter((root, i, all) => root && all.indexOf(root) === i);
  const key = JSON.stringify([roots, ctx.sensitiveGlobs]);
  const cached = cache.get(key);
  if (cached) {
    const found = await cached.catch(() => undefined);
    if (found && now() - found.at < CACHE_MS) return found;
  }
  const walking = walk(roots, match, signal, now);
  cache.set(key, walking);
  walking.catch(() => cache.delete(key));
  return walking;
}

async function walk(roots: string[], match: GlobMatcher, signal: AbortSignal | undefined, now: () => number): Promise<Found> {
  const found: Found = { byIdentity: new Map(), incomplete: false, at: now() };
  let seen = 0;
  for (const root of roots) {
    const queue = [''];
    while (queue.length > 0) {
      signal?.throwIfAborted();
      const dir = queue.pop()!;
      const entries = await fs.readdir(path.join(root, dir), { withFileTypes: true }).catch(() => []);
      for (const entry of entries) {
        if (++seen > LINK_SCAN_MAX_ENTRIES) {
          found.incomplete = true;
          return found;
        }
        const relative = dir ? `${dir}/${entry.name}` : entry.name;
        if (entry.isDirectory()) {
          if (!SKIPPED_DIRS.has(entry.name)) queue.push(relative);
          continue;
        }
        if (!entry.isFile()) continue;
        const glob = match(relative);
        if (glob === undefined) continue;
        const stat = await fs.stat(path.join(root, relative)).catch(() => undefined);
        if (stat) found.byIdentity.set(`${stat.dev}:${stat.ino}`, glob);
      }
    }
  }
  return found;
}
