import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ConsentQuestion, PolicyRule } from './consent';
import { parseGlob } from './globPattern';
import { ripgrepReadsGlob } from './ripgrep';
import { sensitiveLinkGlob, type FileIdentity } from './sensitiveLinks';
import type { ToolContext } from './types';
import type { ResolvedPath } from './workspacePaths';

/** The setting people change to say which files are sensitive (named in messages). */
export const SENSITIVE_SETTING = 'toolbelt.tools.sensitiveFiles';

/**
 * Credential locations of a home folder (relative to it). One list: the sandbox hides them in the
 * real home folder, and the sensitive-file defaults below cover them wherever a workspace holds
 * them (a workspace opened at the home folder reads `.aws/credentials` only when a person says so).
 */
const HOME_CREDENTIAL_FOLDERS = ['.ssh', '.aws', '.gnupg', '.config/gh', '.kube', '.config/gcloud', '.azure'];
const HOME_CREDENTIAL_FILES = ['.netrc', '.npmrc', '.docker/config.json', '.git-credentials', '.pypirc', '.cargo/credentials', '.cargo/credentials.toml'];
export const HOME_CREDENTIAL_PATHS: readonly string[] = Object.freeze([...HOME_CREDENTIAL_FOLDERS, ...HOME_CREDENTIAL_FILES]);

/** A glob at any depth: a bare name already matches at any depth, a path needs `**` before it. */
function anyDepth(relative: string): string {
  return relative.includes('/') ? `**/${relative}` : relative;
}

/** The built-in sensitive files: always sensitive, whatever a settings level lists (levels only add). */
export const DEFAULT_SENSITIVE_GLOBS: readonly string[] = Object.freeze([
  ...new Set([
    '.env', '.env.*', '*.pem', '*.key', 'id_rsa*', 'id_ed25519*', '.npmrc', '.netrc', '*.p12', '*.pfx',
    ...HOME_CREDENTIAL_FOLDERS.flatMap((folder) => [anyDepth(folder), `**/${folder}/**`]),
    ...HOME_CREDENTIAL_FILES.map(anyDepth),
  ]),
]);

type Compiled = { glob: string; regex: RegExp }[];
/** Lists kept compiled: a few settings generations. */
const CACHED_LISTS = 16;
const compiledLists = new Map<string, Compiled>();

/**
 * The person's globs, compiled once per content (a list changed in place is looked up by what
 * it holds, not by the array's identity): matched like the search tools' globs (a glob without
 * "/" matches names at any depth), case-sensitively. Negated and unusable globs are left out
 * (the settings reader reports them).
 */
function compile(globs: readonly string[]): Compiled {
  const key = JSON.stringify(globs);
  let compiled = compiledLists.get(key);
  if (compiled) {
    compiledLists.delete(key);
  } else {
    compiled = [];
    for (const glob of globs) {
      try {
        const pattern = parseGlob(glob);
        if (!pattern.negated) compiled.push({ glob, regex: new RegExp(pattern.source, 'u') });
      } catch {
        // not a glob: the settings reader said so when it read it
      }
    }
    if (compiledLists.size >= CACHED_LISTS) compiledLists.delete(compiledLists.keys().next().value as string);
  }
  compiledLists.set(key, compiled);
  return compiled;
}

/** `toolbelt.tools.sensitiveFiles` at the person's level and at the workspace's (undefined where unset). */
export interface SensitiveFileLevels {
  user: unknown;
  workspace: unknown;
}

/**
 * The sensitive files as they apply: the built-in list, the person's and the workspace's, added
 * up. A list protects, so no level can take an entry away: a workspace that sets `[]`, or copies
 * the built-in list and deletes entries from it, changes nothing, and the problems say so.
 */
export function layeredSensitiveGlobs(levels: SensitiveFileLevels): { globs: string[]; problems: string[] } {
  const globs = new Set(DEFAULT_SENSITIVE_GLOBS);
  const problems: string[] = [];
  for (const [level, label] of [[levels.user, 'User settings'], [levels.workspace, 'Workspace settings']] as const) {
    if (level == null) continue;
    const checked = checkSensitiveGlobs(level);
    problems.push(...checked.problems.map((problem) => `${label}: ${problem}`));
    for (const glob of checked.globs) globs.add(glob);
    // A list that keeps some built-in entries but not others, or none at all, was meant to take them away.
    const left = Array.isArray(level) ? DEFAULT_SENSITIVE_GLOBS.filter((glob) => !level.includes(glob)) : [];
    const meantToRemove = Array.isArray(level) && (level.length === 0 || (left.length > 0 && left.length < DEFAULT_SENSITIVE_GLOBS.length));
    if (meantToRemove) {
      const named = left.slice(0, 4).map((glob) => `"${glob}"`).join(', ') + (left.length > 4 ? ` and ${left.length - 4} more` : '');
      problems.push(`${label}: ${SENSITIVE_SETTING} leaves out ${named}; the list only adds to the built-in sensitive files, so they stay sensitive.`);
    }
  }
  return { globs: [...globs], problems };
}

/** The globs of one level's list that can be used (strings, not negated, parseable), with why the others cannot. */
export function checkSensitiveGlobs(entries: unknown): { globs: string[]; problems: string[] } {
  if (entries == null) return { globs: [], problems: [] };
  if (!Array.isArray(entries)) return { globs: [], problems: [`${SENSITIVE_SETTING} must be a list of globs; it was ignored.`] };
  const globs: string[] = [];
  const problems: string[] = [];
  entries.forEach((entry: unknown, index) => {
    const where = `${SENSITIVE_SETTING}[${index}]`;
    if (typeof entry !== 'string' || !entry.trim()) return problems.push(`${where} is not a glob; it was ignored.`);
    try {
      if (parseGlob(entry.trim()).negated) return problems.push(`${where} "${entry}" starts with "!"; a sensitive-file glob names files to protect, so it was ignored.`);
      globs.push(entry.trim());
      if (!ripgrepReadsGlob(entry)) problems.push(`${where} "${entry}" uses extglob or {n..m} syntax that ripgrep lacks: search_text searches without ripgrep (slower) while it is in the list.`);
    } catch (error) {
      problems.push(`${where} "${entry}": ${(error as Error).message}; it was ignored.`);
    }
  });
  return { globs, problems };
}

/** The first glob any of the workspace-relative paths matches. */
export function sensitiveGlobFor(globs: readonly string[] | undefined, relativePaths: readonly string[]): string | undefined {
  if (!globs || globs.length === 0) return undefined;
  const compiled = compile(globs);
  for (const candidate of relativePaths) {
    if (!candidate) continue;
    const hit = compiled.find((c) => c.regex.test(candidate));
    if (hit) return hit.glob;
  }
  return undefined;
}

/** The usable globs of a list, for ripgrep flags and the plain-Node search. */
export function usableSensitiveGlobs(globs: readonly string[] | undefined): string[] {
  return globs && globs.length > 0 ? compile(globs).map((c) => c.glob) : [];
}

/**
 * The names a read can be known by: its real path (a symlink `notes.txt -> .env` is `.env`)
 * and the path as the model gave it, inside whichever root it names.
 */
function namesOf(ctx: ToolContext, target: ResolvedPath): string[] {
  const names = [target.relative];
  const given = target.input.split(path.sep).join('/');
  const lexical = path.isAbsolute(target.input)
    ? path.relative(ctx.workspaceRoot, path.normalize(target.input)).split(path.sep).join('/')
    : path.posix.normalize(given);
  if (!lexical.startsWith('..')) names.push(lexical.replace(/^(\.\/)+/, ''));
  const [first, ...rest] = lexical.split('/');
  if (rest.length > 0 && ctx.workspaceRoots && Object.hasOwn(ctx.workspaceRoots, first)) names.push(rest.join('/'));
  return names;
}

/**
 * A file that matches `ctx.sensitiveGlobs` is read only when a person says so: the question for
 * reading `target`, refused where nobody can be asked. A file is known by its names (the real
 * path and the one given) and, with more than one link, by what it is: a hard link to `.env`
 * counts as `.env` (sensitiveLinks.ts). Undefined when it is not sensitive.
 */
export async function sensitiveReadQuestion(ctx: ToolContext, target: ResolvedPath, identity?: FileIdentity, signal?: AbortSignal): Promise<ConsentQuestion | undefined> {
  let why: string | undefined;
  let rule: PolicyRule = { setting: SENSITIVE_SETTING };
  const glob = sensitiveGlobFor(ctx.sensitiveGlobs, namesOf(ctx, target));
  if (glob !== undefined) [why, rule] = [`it matches "${glob}" in ${SENSITIVE_SETTING}`, { setting: SENSITIVE_SETTING, entry: glob }];
  else if (identity) {
    const linked = await sensitiveLinkGlob(ctx, identity, (relative) => sensitiveGlobFor(ctx.sensitiveGlobs, [relative]), signal);
    if (linked !== undefined) why = `it is a hard link to a file that matches ${linked.startsWith('(') ? linked : `"${linked}"`} in ${SENSITIVE_SETTING}`;
    if (linked !== undefined && !linked.startsWith('(')) rule = { setting: SENSITIVE_SETTING, entry: linked };
  }
  if (why === undefined) return undefined;
  return {
    reason: 'sensitive',
    summary: `Read ${target.display}, which may hold secrets (${why})`,
    paths: [target.display],
    nobody: `"${target.display}" may hold secrets (${why}); reading it needs the person's say, and none can be asked here. It was not read.`,
    declined: `The user declined: reading ${target.display}, which may hold secrets. It was not read.`,
    rule,
  };
}

/** Files inside a moved folder looked at one by one; past this a folder move out of a glob asks. */
export const MOVE_SCAN_MAX_ENTRIES = 10_000;

/**
 * Moving a sensitive file, or a folder holding one, to where no glob matches would let read_file
 * read it without asking: that move needs the person's say too. A folder is looked into (up to
 * MOVE_SCAN_MAX_ENTRIES entries, then it asks) so `secrets/*.json` covers `move secrets public`.
 */
export async function sensitiveMoveQuestion(
  ctx: ToolContext,
  source: ResolvedPath,
  destination: ResolvedPath,
  isDirectory: boolean,
  signal?: AbortSignal,
): Promise<ConsentQuestion | undefined> {
  if (!ctx.sensitiveGlobs?.length) return undefined;
  const sourceNames = namesOf(ctx, source);
  const destinationNames = namesOf(ctx, destination);
  const exposed = (inside: string) => {
    const glob = sensitiveGlobFor(ctx.sensitiveGlobs, sourceNames.map((n) => joinInside(n, inside)));
    return glob !== undefined && sensitiveGlobFor(ctx.sensitiveGlobs, destinationNames.map((n) => joinInside(n, inside))) === undefined ? glob : undefined;
  };
  let found: { glob: string; file?: string } | undefined;
  const direct = exposed('');
  if (direct !== undefined) found = { glob: direct };
  else if (isDirectory) found = await exposedInside(source.absolute, exposed, signal);
  if (!found) return undefined;
  const what = found.file ? `${source.display}/${found.file}` : source.display;
  const why = found.glob === TOO_MANY
    ? `it holds more than ${MOVE_SCAN_MAX_ENTRIES.toLocaleString('en')} entries, too many to check against ${SENSITIVE_SETTING}`
    : `${found.file ? `"${what}"` : 'it'} matches "${found.glob}" in ${SENSITIVE_SETTING}; as part of "${destination.display}" it would not`;
  return {
    reason: 'sensitive',
    summary: `Move ${source.display}, which may hold secrets, to ${destination.display} (${why})`,
    paths: [source.display, destination.display],
    nobody: `"${source.display}" may hold secrets (${why}); moving it there needs the person's say, and none can be asked here. Nothing was moved.`,
    declined: `The user declined: moving ${source.display}, which may hold secrets, to ${destination.display}. Nothing was moved.`,
    rule: found.glob === TOO_MANY ? { builtin: 'moving a folder too large to check for sensitive files asks' } : { setting: SENSITIVE_SETTING, entry: found.glob },
  };
}

const TOO_MANY = '\u0000too-many';

function joinInside(name: string, inside: string): string {
  return inside ? `${name}/${inside}` : name;
}

/** The first entry below `folder` (its path inside it) that a move would expose, breadth first. */
async function exposedInside(folder: string, exposed: (inside: string) => string | undefined, signal?: AbortSignal): Promise<{ glob: string; file?: string } | undefined> {
  const queue = [''];
  let seen = 0;
  while (queue.length > 0) {
    signal?.throwIfAborted();
    const dir = queue.shift()!;
    const entries = await fs.readdir(path.join(folder, dir), { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (++seen > MOVE_SCAN_MAX_ENTRIES) return { glob: TOO_MANY };
      const inside = dir ? `${dir}/${entry.name}` : entry.name;
      const glob = exposed(inside);
      if (glob !== undefined) return { glob, file: inside };
      if (entry.isDirectory()) queue.push(inside);
    }
  }
  return undefined;
}
