import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../pathChecks';

/** The files name resolution reads, which some hosts keep under /run (systemd-resolved's stub-resolv.conf). */
const RESOLVER_FILES: readonly string[] = Object.freeze(['/etc/resolv.conf', '/etc/hosts', '/etc/nsswitch.conf', '/etc/host.conf', '/etc/gai.conf']);

export interface RuntimeDirs {
  /** Replaced by an empty folder: `/run` (and `/var/run` where it is a folder of its own), `$XDG_RUNTIME_DIR` elsewhere. */
  masked: string[];
  /** Mounted again, read-only, inside the masked folders: the resolver files that lead there, `PATH` entries there. */
  kept: string[];
}

/**
 * Where the host keeps its sockets — the D-Bus buses, ssh and gpg agents, VS Code's IPC and
 * git-askpass sockets, docker and podman — and what of it the sandbox still needs. A read-only
 * mount does not stop `connect()`, so these folders are replaced whole. `$XDG_RUNTIME_DIR` is not
 * masked where it holds the home folder or a workspace folder, or lies in a workspace folder (a
 * strange setup, where masking it would hide or freeze them); the system-call filter still keeps
 * every Unix socket out of reach.
 */
export async function runtimeDirs(runtimeCandidates: readonly (string | undefined)[], pathVariable: string | undefined, home: string, roots: readonly string[]): Promise<RuntimeDirs> {
  const masked: string[] = [];
  // `/var/run` is usually a link to `/run`: a link is left alone, it leads into the masked folder.
  for (const dir of ['/run', '/var/run']) if ((await fs.lstat(dir).catch(() => undefined))?.isDirectory()) masked.push(dir);
  for (const candidate of runtimeCandidates) {
    const runtime = candidate && path.isAbsolute(candidate) ? await fs.realpath(candidate).catch(() => undefined) : undefined;
    if (!runtime || isInside('/tmp', runtime) || masked.some((dir) => isInside(dir, runtime)) || !(await isFolder(runtime))) continue;
    if ([home, ...roots].some((p) => isInside(runtime, p)) || roots.some((root) => isInside(root, runtime))) continue;
    masked.push(runtime);
  }
  // Strictly inside: a PATH entry naming a masked folder itself does not bring it back whole.
  const under = (p: string) => masked.some((dir) => isInside(dir, p) && p !== dir);
  const resolved = await Promise.all(RESOLVER_FILES.map((file) => fs.realpath(file).catch(() => undefined)));
  const pathEntries = (pathVariable ?? '').split(path.delimiter).filter((entry) => path.isAbsolute(entry)).map((entry) => path.normalize(entry));
  const existing = await Promise.all(pathEntries.map(async (entry) => (under(entry) && (await isFolder(entry)) ? entry : undefined)));
  const kept = [...resolved, ...existing].filter((p): p is string => p !== undefined && under(p));
  return { masked, kept: [...new Set(kept)] };
}

async function isFolder(dir: string): Promise<boolean> {
  return (await fs.stat(dir).catch(() => undefined))?.isDirectory() ?? false;
}
