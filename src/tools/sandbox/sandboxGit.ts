import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { isInside } from '../pathChecks';
import type { Uncreatable } from './sandboxMountPoints';

/** What the sandbox does to keep the repositories of a workspace from running code on the host later. */
export interface GitProtection {
  /** `.git` folders, bound onto themselves: a mount point cannot be renamed, so `.git` cannot be swapped. */
  pinned: string[];
  /** Read-only where they exist. */
  readOnly: string[];
  /** Made (for as long as a sandbox runs) where absent, then read-only. */
  uncreatable: Uncreatable[];
}

/** Submodule repositories nested this deep in `.git/modules` are protected; deeper ones are left as they are. */
const MAX_MODULE_DEPTH = 4;

/**
 * Everything in a repository folder that decides what git runs: `config` (core.fsmonitor,
 * core.hooksPath, aliases), `hooks/`, `commondir` (which would move config and hooks elsewhere:
 * its placeholder says `.`, which git reads as "here") and `config.worktree`. The rest of `.git`
 * stays writable, as `git add` and `git commit` need.
 */
function protectGitDir(gitDir: string, into: GitProtection): void {
  into.uncreatable.push(
    { path: path.join(gitDir, 'hooks'), kind: 'dir' },
    { path: path.join(gitDir, 'config'), kind: 'file' },
    { path: path.join(gitDir, 'commondir'), kind: 'file', content: '.\n' },
    { path: path.join(gitDir, 'config.worktree'), kind: 'file' },
  );
  into.readOnly.push(...['hooks', 'config', 'commondir', 'config.worktree'].map((name) => path.join(gitDir, name)));
}

/**
 * The protection for every `.git` the scan found: a folder is pinned and protected, with the
 * submodule repositories inside it; a `.git` file (a worktree or submodule checkout) is made
 * read-only, so it cannot be pointed elsewhere, and the repository folder it names is protected
 * when it lies inside a workspace folder (outside, everything is read-only already).
 */
export async function gitProtection(entries: readonly { path: string; kind: 'file' | 'dir' }[], roots: readonly string[]): Promise<GitProtection> {
  const protection: GitProtection = { pinned: [], readOnly: [], uncreatable: [] };
  for (const entry of entries) {
    if (entry.kind === 'dir') {
      protection.pinned.push(entry.path);
      protectGitDir(entry.path, protection);
      for (const module of await submoduleGitDirs(entry.path, 0)) protectGitDir(module, protection);
      for (const worktree of await linkedWorktrees(entry.path)) {
        protection.readOnly.push(...['commondir', 'gitdir', 'config.worktree'].map((name) => path.join(worktree, name)));
        protection.uncreatable.push({ path: path.join(worktree, 'config.worktree'), kind: 'file' });
      }
      await protectConfigTargets(path.dirname(entry.path), roots, protection);
      continue;
    }
    protection.readOnly.push(entry.path);
    const target = await gitDirOfFile(entry.path);
    if (target && roots.some((root) => target.startsWith(`${root}${path.sep}`))) protectGitDir(target, protection);
  }
  return protection;
}

/** The repositories of submodules in `<gitDir>/modules` (names with slashes nest folders), with theirs. */
async function submoduleGitDirs(gitDir: string, depth: number): Promise<string[]> {
  const found: string[] = [];
  const walk = async (folder: string, level: number): Promise<void> => {
    if (level > MAX_MODULE_DEPTH) return;
    for (const name of await fs.readdir(folder).catch(() => [] as string[])) {
      const candidate = path.join(folder, name);
      if (!(await fs.stat(candidate).then((s) => s.isDirectory(), () => false))) continue;
      if (await fs.stat(path.join(candidate, 'HEAD')).then(() => true, () => false)) {
        found.push(candidate);
        if (depth + 1 < MAX_MODULE_DEPTH) found.push(...(await submoduleGitDirs(candidate, depth + 1)));
      } else await walk(candidate, level + 1);
    }
  };
  await walk(path.join(gitDir, 'modules'), 0);
  return found;
}

/** The folder a `.git` file names (`gitdir: <path>`), resolved against the file's folder. */
async function gitDirOfFile(file: string): Promise<string | undefined> {
  const text = await fs.readFile(file, 'utf8').catch(() => '');
  const match = /^gitdir:\s*(.+?)\s*$/m.exec(text.slice(0, 4096));
  if (!match) return undefined;
  const target = path.resolve(path.dirname(file), match[1]);
  return fs.realpath(target).catch(() => undefined);
}

/** `.git/worktrees/<name>`: each linked worktree's own folder, whose `commondir` and `config.worktree` decide its config. */
async function linkedWorktrees(gitDir: string): Promise<string[]> {
  const folder = path.join(gitDir, 'worktrees');
  const names = await fs.readdir(folder).catch(() => [] as string[]);
  return names.map((name) => path.join(folder, name));
}

/**
 * Keys of git's config whose value is a program git runs (the first word, where it is a path) or a
 * folder of hooks. A value that leads into a workspace folder would let a command plant what git
 * on the host runs later (husky's `core.hooksPath = .husky/_`, an fsmonitor script in the tree).
 */
const PROGRAM_KEYS = [
  /^core\.(fsmonitor|sshcommand|pager|editor|askpass|hookspath)$/,
  /^sequence\.editor$/,
  /^diff\.external$/,
  /^gpg(\.[^.]+)?\.program$/,
  /^credential(\..+)?\.helper$/,
  /^filter\..+\.(clean|smudge|process)$/,
  /^merge\..+\.driver$/,
  /^diff\..+\.(textconv|command)$/,
  /^alias\..+$/,
];
const INCLUDE_KEY = /^include(if\..+)?\.path$/;
const CONFIG_TIMEOUT_MS = 3000;

/**
 * Makes read-only what the repository's effective config (the person's, the system's and the
 * repository's, includes resolved) names inside a workspace folder: every config file it was read
 * from, every include target (made where absent, so that a command cannot create it), the hooks
 * folder of `core.hooksPath`, and programs it runs. Read with `git config --list --show-origin`,
 * which runs nothing.
 */
async function protectConfigTargets(top: string, roots: readonly string[], into: GitProtection): Promise<void> {
  const listing = await new Promise<string | undefined>((resolve) => {
    execFile('git', ['--no-optional-locks', '-C', top, 'config', '--list', '--show-origin', '-z'], { timeout: CONFIG_TIMEOUT_MS, maxBuffer: 4 * 1024 * 1024 }, (error, stdout) =>
      resolve(error ? undefined : stdout),
    );
  });
  if (listing === undefined) return;
  const inRoot = (p: string) => roots.some((root) => isInside(root, p) && p !== root);
  const fields = listing.split('\0');
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const origin = fields[i];
    const newline = fields[i + 1].indexOf('\n');
    const key = (newline < 0 ? fields[i + 1] : fields[i + 1].slice(0, newline)).toLowerCase();
    const value = newline < 0 ? '' : fields[i + 1].slice(newline + 1);
    const from = origin.startsWith('file:') ? path.resolve(top, origin.slice('file:'.length)) : undefined;
    if (from && inRoot(from)) into.readOnly.push(from);
    if (INCLUDE_KEY.test(key) && value) {
      // An include is relative to the file that names it.
      const target = path.resolve(from ? path.dirname(from) : top, value.replace(/^~(?=\/)/, process.env.HOME ?? '~'));
      if (inRoot(target)) {
        into.readOnly.push(target);
        into.uncreatable.push({ path: target, kind: 'file' });
      }
      continue;
    }
    if (!PROGRAM_KEYS.some((pattern) => pattern.test(key))) continue;
    const word = key === 'core.hookspath' ? value : (/^!?\s*("[^"]+"|'[^']+'|\S+)/.exec(value)?.[1] ?? '').replace(/^["']|["']$/g, '');
    if (!word.includes('/') && key !== 'core.hookspath') continue;
    const target = path.resolve(top, word.replace(/^~(?=\/)/, process.env.HOME ?? '~'));
    if (inRoot(target)) into.readOnly.push(target);
  }
}
