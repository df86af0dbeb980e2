import * as path from 'node:path';
import { parseGlob } from './globPattern';
import type { ApprovedBy } from './interface';
import { ripgrepReadsGlob } from './ripgrep';
import type { ConfirmationRequest, ToolContext } from './types';
import { PathRefusedError, type ResolvedPath } from './workspacePaths';

/** The setting people change to say which files are sensitive (named in messages). */
export const SENSITIVE_SETTING = 'toolbelt.tools.sensitiveFiles';

/** What `toolbelt.tools.sensitiveFiles` holds by default. */
export const DEFAULT_SENSITIVE_GLOBS: readonly string[] = Object.freeze([
  '.env', '.env.*', '*.pem', '*.key', 'id_rsa*', 'id_ed25519*', '.npmrc', '.netrc', '*.p12', '*.pfx',
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

/** The globs of a list that can be used (strings, not negated, parseable), with why the others cannot. */
export function checkSensitiveGlobs(entries: unknown): { globs: string[]; problems: string[] } {
  if (entries == null) return { globs: [...DEFAULT_SENSITIVE_GLOBS], problems: [] };
  if (!Array.isArray(entries)) return { globs: [...DEFAULT_SENSITIVE_GLOBS], problems: [`${SENSITIVE_SETTING} must be a list of globs; the default list applies.`] };
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

export interface SensitiveAccess {
  tool: string;
  args: Record<string, unknown>;
  signal?: AbortSignal;
  approval?: { by?: ApprovedBy };
}

/**
 * A file that matches `ctx.sensitiveGlobs` is read only when a person says so: asked with
 * `reason: 'sensitive'`, refused where nobody can be asked. Throws PathRefusedError.
 */
export async function requireSensitiveConsent(ctx: ToolContext, target: ResolvedPath, access: SensitiveAccess): Promise<void> {
  const glob = sensitiveGlobFor(ctx.sensitiveGlobs, namesOf(ctx, target));
  if (glob === undefined) return;
  const why = `it matches "${glob}" in ${SENSITIVE_SETTING}`;
  await askPerson(ctx, access, target.display, {
    summary: `Read ${target.display}, which may hold secrets (${why})`,
    nobody: `"${target.display}" may hold secrets (${why}); reading it needs the person's say, and none can be asked here. It was not read.`,
    declined: `The user declined: reading ${target.display}, which may hold secrets. It was not read.`,
  });
}

/**
 * Moving a sensitive file (or a folder a glob like `secrets/**` covers) to where no glob
 * matches would let read_file read it without asking: that move needs the person's say too.
 */
export async function requireSensitiveMoveConsent(ctx: ToolContext, source: ResolvedPath, destination: ResolvedPath, isDirectory: boolean, access: SensitiveAccess): Promise<void> {
  const withInside = (names: string[]) => (isDirectory ? [...names, ...names.map((n) => `${n}/${INSIDE_PROBE}`)] : names);
  const glob = sensitiveGlobFor(ctx.sensitiveGlobs, withInside(namesOf(ctx, source)));
  if (glob === undefined || sensitiveGlobFor(ctx.sensitiveGlobs, withInside(namesOf(ctx, destination))) !== undefined) return;
  const why = `it matches "${glob}" in ${SENSITIVE_SETTING}; as "${destination.display}" it would not`;
  await askPerson(ctx, access, source.display, {
    summary: `Move ${source.display}, which may hold secrets, to ${destination.display} (${why})`,
    nobody: `"${source.display}" may hold secrets (${why}); moving it there needs the person's say, and none can be asked here. Nothing was moved.`,
    declined: `The user declined: moving ${source.display}, which may hold secrets, to ${destination.display}. Nothing was moved.`,
  }, [source.display, destination.display]);
}

/** A name no file has, standing for "anything inside this folder". */
const INSIDE_PROBE = '\u0000inside';

async function askPerson(
  ctx: ToolContext,
  access: SensitiveAccess,
  display: string,
  words: { summary: string; nobody: string; declined: string },
  paths: string[] = [display],
): Promise<void> {
  if (!ctx.confirm) throw new PathRefusedError(words.nobody);
  const request: ConfirmationRequest = { tool: access.tool, reason: 'sensitive', summary: words.summary, args: access.args, paths, signal: access.signal };
  const approved = await ctx.confirm(request);
  access.signal?.throwIfAborted();
  if (!approved) throw new PathRefusedError(words.declined);
  if (access.approval) access.approval.by = request.decidedBy ?? 'person';
}
