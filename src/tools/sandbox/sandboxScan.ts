import { promises as fs, type Dirent } from 'node:fs';
import * as path from 'node:path';
import { sensitiveGlobFor } from '../sensitiveFiles';

/** What the sandbox must cover in one workspace folder, as absolute paths. */
export interface WorkspaceScan {
  /** Files and folders that match the sensitive-file globs (dangling links left out). */
  sensitive: { path: string; kind: 'file' | 'dir' }[];
  /** Every `.git` (a repository folder, or a worktree's / submodule's `.git` file). */
  gitEntries: { path: string; kind: 'file' | 'dir' }[];
  /** Every `*.code-workspace` file. */
  workspaceFiles: string[];
  /** Every `.vscode` folder below the top one (VS Code reads them as folder settings in a multi-root setup). */
  settingsFolders: string[];
  /** Folders looked at, and of those, read again because they changed. */
  folders: number;
  reread: number;
}

type Kind = 'file' | 'dir' | 'link' | 'other';

/** One folder as the scan needs it: only the entries that matter, worked out when it was read. */
interface Listing {
  mtimeMs: number;
  ino: number;
  /** Read so soon after a change that another change in the same timestamp tick could be missed: read again next time. */
  racy: boolean;
  subfolders: string[];
  sensitive: { name: string; kind: Kind }[];
  git: { name: string; kind: 'file' | 'dir' }[];
  workspaceFiles: string[];
  settingsFolders: string[];
}

/** Not scanned: dependencies hold no secrets of the person's, and thousands of folders. */
const SKIPPED_FOLDERS = new Set(['node_modules']);
const CONCURRENCY = 32;
/** Folders remembered per workspace folder; past it the cache starts over (the next scan reads everything). */
const MAX_CACHED_FOLDERS = 200_000;
/**
 * File systems stamp times coarsely (a few ms on ext4), so a listing read within this long of its
 * folder's mtime may miss an entry added in the same tick without the mtime moving: not trusted.
 */
const RACY_MS = 2000;

/**
 * Finds, before each sandboxed command, the files the sandbox hides or protects, without reading
 * the whole tree each time: a folder's listing (reduced to the entries that matter) is kept with
 * its mtime and inode, and read again only when those changed (adding, removing or renaming an
 * entry changes its folder's mtime). Each scan still stats every folder once; `node_modules`
 * folders and the inside of `.git` are skipped.
 */
export class WorkspaceScanner {
  private readonly caches = new Map<string, { globs: string; listings: Map<string, Listing> }>();

  async scan(root: string, globs: readonly string[], signal?: AbortSignal): Promise<WorkspaceScan> {
    const globsKey = JSON.stringify(globs);
    let cache = this.caches.get(root);
    if (!cache || cache.globs !== globsKey || cache.listings.size > MAX_CACHED_FOLDERS) this.caches.set(root, (cache = { globs: globsKey, listings: new Map() }));
    const { listings } = cache;
    const result: WorkspaceScan = { sensitive: [], gitEntries: [], workspaceFiles: [], settingsFolders: [], folders: 0, reread: 0 };
    const seen = new Set<string>();
    let queue: string[] = [''];
    while (queue.length > 0) {
      signal?.throwIfAborted();
      const next: string[] = [];
      for (let i = 0; i < queue.length; i += CONCURRENCY) {
        await Promise.all(
          queue.slice(i, i + CONCURRENCY).map(async (relative) => {
            const listing = await this.listing(root, relative, listings, globs, result);
            if (!listing) return;
            seen.add(relative);
            await collect(root, relative, listing, result, next);
          }),
        );
      }
      queue = next;
    }
    for (const relative of listings.keys()) if (!seen.has(relative)) listings.delete(relative);
    return result;
  }

  /** The folder as the scan needs it: remembered while its mtime and inode stay the same, read otherwise. */
  private async listing(root: string, relative: string, listings: Map<string, Listing>, globs: readonly string[], result: WorkspaceScan): Promise<Listing | undefined> {
    const absolute = relative ? path.join(root, relative) : root;
    const stat = await fs.lstat(absolute).catch(() => undefined);
    if (!stat?.isDirectory()) return undefined;
    result.folders++;
    const known = listings.get(relative);
    if (known && !known.racy && known.mtimeMs === stat.mtimeMs && known.ino === stat.ino) return known;
    const readAt = Date.now();
    const dirents = await fs.readdir(absolute, { withFileTypes: true }).catch(() => [] as Dirent[]);
    const listing: Listing = { mtimeMs: stat.mtimeMs, ino: stat.ino, racy: readAt - stat.mtimeMs < RACY_MS, subfolders: [], sensitive: [], git: [], workspaceFiles: [], settingsFolders: [] };
    for (const dirent of dirents) {
      const { name } = dirent;
      const kind = kindOf(dirent);
      if (name === '.git' && (kind === 'dir' || kind === 'file')) listing.git.push({ name, kind });
      else if (kind === 'dir' && SKIPPED_FOLDERS.has(name)) continue;
      else if (sensitiveGlobFor(globs, [relative ? `${relative}/${name}` : name]) !== undefined) listing.sensitive.push({ name, kind });
      else {
        if (kind === 'file' && name.endsWith('.code-workspace')) listing.workspaceFiles.push(name);
        if (kind === 'dir' && name === '.vscode' && relative) listing.settingsFolders.push(name);
        if (kind === 'dir') listing.subfolders.push(name);
      }
    }
    listings.set(relative, listing);
    result.reread++;
    return listing;
  }
}

/** Adds a folder's entries to the result (absolute paths) and its subfolders to the next round. */
async function collect(root: string, relative: string, listing: Listing, result: WorkspaceScan, next: string[]): Promise<void> {
  const absolute = relative ? path.join(root, relative) : root;
  for (const git of listing.git) result.gitEntries.push({ path: path.join(absolute, git.name), kind: git.kind });
  for (const name of listing.workspaceFiles) result.workspaceFiles.push(path.join(absolute, name));
  for (const name of listing.settingsFolders) result.settingsFolders.push(path.join(absolute, name));
  for (const name of listing.subfolders) next.push(relative ? `${relative}/${name}` : name);
  for (const entry of listing.sensitive) {
    const file = path.join(absolute, entry.name);
    // A link is hidden where it leads (a mount follows it); a dangling one has nothing to hide.
    const kind = entry.kind === 'link' ? await targetKind(file) : entry.kind;
    if (kind === 'file' || kind === 'dir') result.sensitive.push({ path: file, kind });
  }
}

function kindOf(entry: Dirent): Kind {
  if (entry.isDirectory()) return 'dir';
  if (entry.isFile()) return 'file';
  if (entry.isSymbolicLink()) return 'link';
  return 'other';
}

async function targetKind(link: string): Promise<Kind | undefined> {
  const stat = await fs.stat(link).catch(() => undefined);
  if (!stat) return undefined;
  return stat.isDirectory() ? 'dir' : stat.isFile() ? 'file' : 'other';
}
