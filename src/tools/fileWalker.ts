import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';

/** Ignore files the walker honours in every directory, as ripgrep does. */
const IGNORE_FILES = ['.gitignore', '.ignore', '.rgignore'];
/** A bound on one walk, so a pathological tree cannot stall a tool call. */
const MAX_VISITED = 200_000;

interface IgnoreScope {
  /** Directory the rules live in, relative to the walk's root ("" for the root). */
  dir: string;
  rules: Ignore;
}

/** What the walk is doing: listing, or matching the exclude globs or ignore-file rules. */
export type WalkPhase = 'walk' | 'exclude' | 'ignore';

/**
 * Files under `root` in path order, like `rg --files --hidden --sort path`: `.git` skipped,
 * `.gitignore`/`.ignore` rules honoured at every level, symlinks not followed, `exclude` globs
 * (workspace-relative) left out. Yields paths relative to `root` with "/" separators.
 * The exclude globs and ignore rules come from the workspace and compile to backtracking
 * regexes: the search tools run this walk in a worker thread (searchWorker.ts), and `onPhase`
 * tells it which of them is being matched.
 */
export async function* walkFiles(
  root: string,
  exclude: readonly string[] = [],
  signal?: AbortSignal,
  onPhase: (phase: WalkPhase) => void = () => undefined,
): AsyncGenerator<string> {
  const excluded = exclude.length > 0 ? picomatch([...exclude], { dot: true }) : () => false;
  let visited = 0;

  async function* walk(dir: string, scopes: IgnoreScope[]): AsyncGenerator<string> {
    signal?.throwIfAborted();
    const absolute = path.join(root, dir);
    const entries = await fs.readdir(absolute, { withFileTypes: true }).catch(() => []);
    const rules = await readIgnoreRules(absolute);
    const here = rules ? [...scopes, { dir, rules }] : scopes;
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const entry of entries) {
      if (++visited > MAX_VISITED) return;
      const relative = dir ? `${dir}/${entry.name}` : entry.name;
      if (entry.isSymbolicLink() || (entry.isDirectory() && entry.name === '.git')) continue;
      onPhase('exclude');
      const isExcluded = excluded(relative);
      onPhase('ignore');
      const ignored = !isExcluded && isIgnored(here, relative, entry.isDirectory());
      onPhase('walk');
      if (isExcluded || ignored) continue;
      if (entry.isDirectory()) yield* walk(relative, here);
      else if (entry.isFile()) yield relative;
    }
  }

  yield* walk('', []);
}

async function readIgnoreRules(dir: string): Promise<Ignore | undefined> {
  let rules: Ignore | undefined;
  for (const name of IGNORE_FILES) {
    const text = await fs.readFile(path.join(dir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) rules = (rules ?? ignore()).add(text);
  }
  return rules;
}

function isIgnored(scopes: IgnoreScope[], relative: string, isDirectory: boolean): boolean {
  let ignored = false;
  for (const scope of scopes) {
    const inScope = scope.dir ? relative.slice(scope.dir.length + 1) : relative;
    const result = scope.rules.test(isDirectory ? `${inScope}/` : inScope);
    // A deeper .gitignore can re-include what a shallower one ignored.
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}
