import { promises as fs, type Dirent } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import ignore, { type Ignore } from 'ignore';
import picomatch from 'picomatch';
import { parseGlob, type GlobPattern } from './globPattern';
import { comparePaths } from './searchOrder';

/** Ignore files ripgrep reads in every directory. */
const IGNORE_FILES = ['.gitignore', '.ignore', '.rgignore'];
/** Past this many folders the glob's leading part is not worth expanding: the whole root is walked. */
const MAX_PATHS = 256;
/** A segment expanded by listing its folder: plain names with `*` and `?` only (matched in linear time). */
const SIMPLE_SEGMENT = /^[A-Za-z0-9._ @+,=~%#-]*[*?][A-Za-z0-9._ @+,=~%#*?-]*$/;
const LITERAL_SEGMENT = /^[A-Za-z0-9._ @+,=~%#-]+$/;

/**
 * The folders to hand ripgrep instead of the root for a path glob: `src/**\/*.ts` → `src`,
 * `pkg1*\/**\/x` → every top folder whose name matches `pkg1*`. ripgrep walks only those, and
 * prints the same paths, relative to the root, as a walk of the whole root would.
 *
 * ripgrep never applies ignore rules to a path it is handed, so every folder on the way must be
 * one its walk of the root would enter: a real folder (no link), not `.git`, no nested repository,
 * not excluded, not ignored by an ignore file in the root or on the way. Where that cannot be
 * decided here (ignore files above the root, a global git excludes file) the answer is
 * `undefined`: walk the whole root. `[]`: no folder can hold a match.
 */
export async function globSearchPaths(glob: string, root: string, exclude: readonly string[], signal?: AbortSignal): Promise<string[] | undefined> {
  if (glob.startsWith('!')) return undefined;
  const { leading } = split(glob);
  if (leading.length === 0) return undefined;
  if (await rulesOutsideTheRoot(root)) return undefined;
  const isExcluded = excludedBy(exclude);
  const rootRules = await ignoreRules(root, [path.join('.git', 'info', 'exclude'), ...IGNORE_FILES]);
  let scopes: { dir: string; rules: Ignore }[] = rootRules ? [{ dir: '', rules: rootRules }] : [];
  // Each folder is listed once: its entries give the next level's names and its ignore files.
  let dirs: { dir: string; entries: Dirent[] }[] = [{ dir: '', entries: await listed(root) }];
  for (let level = 0; ; level++) {
    signal?.throwIfAborted();
    const segment = leading[level];
    const next: string[] = [];
    for (const { dir, entries } of dirs) {
      // Matched even for a literal name: only a real folder (no link) spelled as on disk will do.
      for (const name of matchingNames(entries, segment)) next.push(dir ? `${dir}/${name}` : name);
      if (next.length > MAX_PATHS) return undefined;
    }
    for (const dir of next) if (path.basename(dir) === '.git' || isExcluded(dir) || isIgnored(scopes, dir)) return undefined;
    if (level === leading.length - 1) {
      // The folders handed to ripgrep: it reads their ignore files itself; only a repository inside changes the rules.
      const repositories = await Promise.all(next.map((dir) => fs.lstat(path.join(root, dir, '.git')).then(() => true, () => false)));
      return repositories.includes(true) ? undefined : next.sort(comparePaths);
    }
    dirs = await Promise.all(next.map(async (dir) => ({ dir, entries: await listed(path.join(root, dir)) })));
    const deeper: { dir: string; rules: Ignore }[] = [];
    for (const { dir, entries } of dirs) {
      const names = new Set(entries.map((entry) => entry.name));
      if (names.has('.git')) return undefined; // a repository inside: its own rules
      const files = IGNORE_FILES.filter((name) => names.has(name));
      const rules = files.length ? await ignoreRules(path.join(root, dir), files) : undefined;
      // Rules of the folders on the way apply to the next level down.
      if (rules) deeper.push({ dir, rules });
    }
    scopes = [...scopes, ...deeper];
  }
}

/**
 * What a file under the folders globSearchPaths found must still match, when that is simpler than
 * the whole glob: `pkg*\/mod3/**` → nothing (every file under them), `src/**\/*.ts` → its name
 * only, which a file type checks in the listing itself. Undefined: the whole glob, by a filter.
 * Only where each leading segment was matched exactly as the glob's regex matches it (no `?`,
 * which counts UTF-16 units where the regex counts characters).
 */
export function globUnderPaths(glob: string): GlobPattern[] | undefined {
  const { leading, rest } = split(glob);
  if (leading.length === 0 || leading.some((segment) => segment.includes('?'))) return undefined;
  if (rest === '**') return [];
  if (!rest.startsWith('**/') || rest.slice(3).includes('/')) return undefined;
  const name = parseGlob(rest);
  return name.nameGlob?.exact ? [name] : undefined;
}

/** The glob's leading folder segments that can be expanded by listing, and the rest. */
function split(glob: string): { leading: string[]; rest: string } {
  const segments = glob.replace(/^(\.\/)+/, '').replace(/^\//, '').split('/');
  // The last segment names files; "**" ends what can be expanded.
  const leading: string[] = [];
  for (const segment of segments.slice(0, -1)) {
    if (segment === '**' || (!LITERAL_SEGMENT.test(segment) && !SIMPLE_SEGMENT.test(segment)) || segment === '.' || segment === '..') break;
    leading.push(segment);
  }
  return { leading, rest: segments.slice(leading.length).join('/') };
}

/** Ignore rules ripgrep would read from outside the root, which this file does not evaluate. */
async function rulesOutsideTheRoot(root: string): Promise<boolean> {
  for (let dir = path.dirname(root); ; dir = path.dirname(dir)) {
    for (const name of [...IGNORE_FILES, '.git']) if (await exists(path.join(dir, name))) return true;
    if (path.dirname(dir) === dir) break;
  }
  const home = os.homedir();
  const config = process.env.XDG_CONFIG_HOME || path.join(home, '.config');
  if (await exists(path.join(config, 'git', 'ignore'))) return true;
  for (const file of [path.join(home, '.gitconfig'), path.join(config, 'git', 'config')]) {
    const text = await fs.readFile(file, 'utf8').catch(() => '');
    if (/excludesfile/i.test(text)) return true;
  }
  return false;
}

async function ignoreRules(dir: string, files: readonly string[]): Promise<Ignore | undefined> {
  let rules: Ignore | undefined;
  for (const name of files) {
    const text = await fs.readFile(path.join(dir, name), 'utf8').catch(() => undefined);
    if (text !== undefined) rules = (rules ?? ignore()).add(text);
  }
  return rules;
}

function listed(dir: string): Promise<Dirent[]> {
  return fs.readdir(dir, { withFileTypes: true }).catch(() => []);
}

function isIgnored(scopes: { dir: string; rules: Ignore }[], dir: string): boolean {
  let ignored = false;
  for (const scope of scopes) {
    if (scope.dir && !dir.startsWith(`${scope.dir}/`)) continue;
    const result = scope.rules.test(`${scope.dir ? dir.slice(scope.dir.length + 1) : dir}/`);
    if (result.ignored) ignored = true;
    else if (result.unignored) ignored = false;
  }
  return ignored;
}

/** Exclude globs read both ways ripgrep may (gitignore style, and as workspace-relative globs): either one excludes. */
function excludedBy(exclude: readonly string[]): (dir: string) => boolean {
  if (exclude.length === 0) return () => false;
  const asIgnore = ignore().add([...exclude]);
  const asGlob = picomatch([...exclude], { dot: true });
  return (dir) => asIgnore.test(`${dir}/`).ignored || asGlob(dir);
}

function matchingNames(entries: Dirent[], segment: string): string[] {
  const literal = LITERAL_SEGMENT.test(segment);
  return entries.filter((entry) => entry.isDirectory() && (literal ? entry.name === segment : wildcardMatch(segment, entry.name))).map((entry) => entry.name);
}

/** `*` and `?` against a name, greedy with one backtrack point: O(name × segment) at worst. */
export function wildcardMatch(pattern: string, name: string): boolean {
  let p = 0;
  let n = 0;
  let star = -1;
  let mark = 0;
  while (n < name.length) {
    if (p < pattern.length && (pattern[p] === '?' || pattern[p] === name[n])) {
      p++;
      n++;
    } else if (p < pattern.length && pattern[p] === '*') {
      star = p++;
      mark = n;
    } else if (star >= 0) {
      p = star + 1;
      n = ++mark;
    } else return false;
  }
  while (pattern[p] === '*') p++;
  return p === pattern.length;
}

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}
