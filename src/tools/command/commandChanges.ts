import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** What git says of one repository at a workspace folder: each path's status, its index entry, and when its file last changed. */
interface RepositoryState {
  root: string;
  status: Map<string, string>;
  /** Path → `tag mode` from `git ls-files -s -v` (a lowercase tag: assume-unchanged; `S`: skip-worktree; mode 160000: a gitlink). */
  index: Map<string, string>;
  /** For paths already changed before the command: their mtime, so a second change to them shows. */
  mtimes: Map<string, number>;
}

export interface WorkspaceState {
  repositories: RepositoryState[];
}

const GIT_TIMEOUT_MS = 3000;
const MAX_BUFFER = 32 * 1024 * 1024;
const NAMES_SHOWN = 20;

/**
 * Runs git read-only: no index refresh written back (`--no-optional-locks`), no fsmonitor program
 * (the repository's config could name one), no pager, no prompt.
 */
function git(root: string, args: readonly string[], signal?: AbortSignal): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(
      'git',
      ['--no-optional-locks', '-c', 'core.fsmonitor=false', '-c', 'core.untrackedCache=false', '-C', root, ...args],
      { timeout: GIT_TIMEOUT_MS, maxBuffer: MAX_BUFFER, signal, env: { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', LC_ALL: 'C' } },
      (error, stdout) => resolve(error ? undefined : stdout),
    );
  });
}

/**
 * The state of each workspace folder that is the top of a git repository, for comparing before
 * and after a command (see describeChanges). A folder without git, or where git fails or takes
 * longer than 3 s, is left out: its changes are not listed.
 */
export async function workspaceState(roots: readonly string[], signal?: AbortSignal): Promise<WorkspaceState> {
  const states = await Promise.all(roots.map((root) => repositoryState(root, signal)));
  return { repositories: states.filter((s): s is RepositoryState => s !== undefined) };
}

/** Folders known to be the top of a repository (a folder that is not may become one: not remembered). */
const repositoryTops = new Set<string>();

async function isRepositoryTop(root: string, signal?: AbortSignal): Promise<boolean> {
  if (repositoryTops.has(root)) return true;
  const top = (await git(root, ['rev-parse', '--show-toplevel'], signal))?.trim();
  if (!top || path.resolve(top) !== path.resolve(await fs.realpath(root).catch(() => root))) return false;
  repositoryTops.add(root);
  return true;
}

async function repositoryState(root: string, signal?: AbortSignal): Promise<RepositoryState | undefined> {
  if (!(await isRepositoryTop(root, signal))) return undefined;
  const [status, index] = await Promise.all([
    git(root, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignore-submodules=all'], signal),
    git(root, ['ls-files', '-s', '-v', '-z'], signal),
  ]);
  if (status === undefined || index === undefined) return undefined;
  const state: RepositoryState = { root, status: new Map(), index: new Map(), mtimes: new Map() };
  const records = status.split('\0');
  for (let i = 0; i < records.length; i++) {
    const record = records[i];
    if (record.length < 4) continue;
    const code = record.slice(0, 2);
    state.status.set(record.slice(3), code);
    // A rename or copy names its source next.
    if (code[0] === 'R' || code[0] === 'C') i++;
  }
  for (const record of index.split('\0')) {
    const match = /^(\S) (\d+) [0-9a-f]+ \d+\t(.*)$/s.exec(record);
    if (match) state.index.set(match[3], `${match[1]} ${match[2]}`);
  }
  await Promise.all(
    [...state.status.keys()].map(async (file) => {
      const stat = await fs.lstat(path.join(root, file)).catch(() => undefined);
      if (stat) state.mtimes.set(file, stat.mtimeMs);
    }),
  );
  return state;
}

/**
 * What a command changed, in lines for its result: the workspace files it changed (by git's
 * status, and the mtime of files already changed before it), gitlinks it added (an embedded
 * repository, whose own config git on the host may act on) and index flags it set
 * (assume-unchanged and skip-worktree hide a change from `git status` and Source Control).
 */
export async function describeChanges(before: WorkspaceState, after: WorkspaceState): Promise<string[]> {
  const lines: string[] = [];
  for (const earlier of before.repositories) {
    const later = after.repositories.find((r) => r.root === earlier.root);
    if (!later) continue;
    const changed: string[] = [];
    for (const [file, code] of later.status) {
      if (earlier.status.get(file) !== code || (earlier.mtimes.has(file) && later.mtimes.get(file) !== earlier.mtimes.get(file))) changed.push(`${code.trim() || 'M'} ${file}`);
    }
    for (const [file, code] of earlier.status) if (!later.status.has(file)) changed.push(`reverted ${file} (was ${code.trim()})`);
    if (changed.length > 0) {
      const shown = changed.slice(0, NAMES_SHOWN).join(', ') + (changed.length > NAMES_SHOWN ? `, and ${changed.length - NAMES_SHOWN} more` : '');
      lines.push(`Changed in ${path.basename(earlier.root)}: ${shown}.`);
    }
    const gitlinks = [...later.index].filter(([file, entry]) => entry.endsWith(' 160000') && !earlier.index.get(file)?.endsWith(' 160000')).map(([file]) => file);
    if (gitlinks.length > 0) lines.push(`New gitlink (an embedded repository) in the index: ${gitlinks.slice(0, NAMES_SHOWN).join(', ')}. Review it before git on the host works in it.`);
    const hidden = [...later.index].filter(([file, entry]) => hidesChanges(entry) && !hidesChanges(earlier.index.get(file))).map(([file]) => file);
    if (hidden.length > 0) lines.push(`Index flags set (assume-unchanged or skip-worktree): ${hidden.slice(0, NAMES_SHOWN).join(', ')}. git status and Source Control no longer show changes to them; \`git update-index --no-assume-unchanged --no-skip-worktree <file>\` undoes it.`);
  }
  return lines;
}

function hidesChanges(entry: string | undefined): boolean {
  if (!entry) return false;
  const tag = entry[0];
  return tag === 'S' || tag === 's' || (tag >= 'a' && tag <= 'z');
}
