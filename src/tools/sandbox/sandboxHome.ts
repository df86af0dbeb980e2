import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { exists, isInside } from '../pathChecks';

/**
 * What of the home folder tools need, shown read-only: git's own configuration (the person's
 * identity; never `.git-credentials` or `.config/git/credentials`) and the usual toolchain roots.
 * A version manager's whole folder counts, since its shims run what lies beside them.
 */
export const HOME_TOOLCHAIN_PATHS: readonly string[] = Object.freeze([
  '.gitconfig',
  '.config/git/config',
  '.config/git/ignore',
  '.config/git/attributes',
  '.nvm',
  '.volta',
  '.fnm',
  '.pyenv',
  '.rbenv',
  '.asdf',
  '.local/share/mise',
  '.sdkman',
  '.cargo/bin',
  '.rustup',
  '.local/bin',
  'go/bin',
  '.bun/bin',
  '.deno/bin',
  '.local/share/pnpm',
]);

/** Size of the empty home a sandbox sees: what a command writes there is dropped when it ends. */
export const PRIVATE_HOME_BYTES = 256 * 1024 * 1024;

export interface HomeView {
  /** Replaced by an empty, writable folder of PRIVATE_HOME_BYTES; undefined where the home folder stays as it is. */
  privateHome?: string;
  /** Shown again, read-only, inside it (each one exists). */
  kept: string[];
  /** Repositories above a workspace folder, inside the home folder: shown whole, read-only, so git works from a subfolder. */
  repositories: string[];
}

/**
 * The home folder as a sandbox sees it: empty, with only what tools need shown again read-only —
 * git's configuration, toolchain roots, every `PATH` entry under it, the repository a workspace
 * folder lies in, and the person's `readablePaths` — so that other projects, shell histories,
 * editor state and credentials of every kind stay out of reach, not only the ones a list names.
 * The home folder is left as it is where a workspace folder is the home folder or holds it, and
 * where it is `/` or missing.
 */
export async function homeView(home: string, roots: readonly string[], pathVariable: string | undefined, readable: readonly string[]): Promise<HomeView> {
  const real = await fs.realpath(home).catch(() => undefined);
  if (!real || real === '/' || !(await fs.stat(real).catch(() => undefined))?.isDirectory() || roots.some((root) => isInside(root, real))) {
    return { kept: [], repositories: [] };
  }
  const inside = (p: string) => isInside(real, p) && p !== real;
  const pathEntries = (pathVariable ?? '').split(path.delimiter).filter((entry) => path.isAbsolute(entry)).map((entry) => path.normalize(entry));
  const candidates = [...HOME_TOOLCHAIN_PATHS.map((p) => path.join(real, p)), ...pathEntries, ...readable];
  const resolved = await Promise.all(candidates.map((p) => fs.realpath(p).catch(() => undefined)));
  const kept = [...new Set(resolved.filter((p): p is string => p !== undefined && inside(p)))];
  const repositories: string[] = [];
  for (const root of roots) {
    const top = await repositoryAbove(root, real);
    if (top && !repositories.includes(top)) repositories.push(top);
  }
  return { privateHome: real, kept, repositories };
}

/** The nearest folder above `root` (and below `home`) holding `.git`, if any. */
async function repositoryAbove(root: string, home: string): Promise<string | undefined> {
  if (!isInside(home, root) || root === home) return undefined;
  for (let folder = path.dirname(root); folder !== home && isInside(home, folder); folder = path.dirname(folder)) {
    if (await exists(path.join(folder, '.git'))) return folder;
  }
  return undefined;
}
