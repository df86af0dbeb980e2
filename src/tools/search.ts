import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ToolHandler } from './builtinTool';
import { parseGlob, type GlobPattern } from './globPattern';
import { globSearchPaths, globUnderPaths } from './globSearchPaths';
import { LIMITS } from './manifest';
import { isExecutable, ripgrepFiles, ripgrepReadsGlob, ripgrepSkippedFiles, ripgrepText, type TextMatch, type TextSearchOptions } from './ripgrep';
import { comparePaths, SmallestItems } from './searchOrder';
import { searchInWorker, type SearchRoot } from './searchInWorker';
import { SENSITIVE_SETTING, sensitiveGlobFor, usableSensitiveGlobs } from './sensitiveFiles';
import { sensitiveLinkGlob } from './sensitiveLinks';
import type { ToolContext } from './types';
import { resolveWorkspacePath } from './workspacePaths';

/** Past this many matches the search stops counting and says "more than". */
export const COUNT_LIMIT = 10_000;
/**
 * How many listed paths search_files reads from an unordered ripgrep run before it gives up on
 * it and asks a sorted run for the first ones instead. Paths are cheap to read, and reading
 * them all is faster than a second, single-threaded walk.
 */
const FILES_READ_LIMIT = 200_000;
const LINE_PREVIEW_CHARS = 300;

export const searchFiles: ToolHandler = async (args, ctx, { signal }) => {
  const pattern = args.pattern as string;
  const max = (args.maxResults as number | undefined) ?? LIMITS.searchFilesDefaultResults;
  const roots = await searchRoots(ctx);
  const exclude = ctx.excludeGlobs ?? [];
  const rg = (await isExecutable(ctx.rgPath)) ? ctx.rgPath : undefined;
  let found: string[];
  let total: number;
  if (rg) {
    const globs = roots.map((root) => globsFor(pattern, root.prefix));
    // A path glob in the first root walks only the folders its leading part names (none: the whole root, to the same empty end).
    const paths = globs[0].length === 1 ? await globSearchPaths(pattern, roots[0].path, exclude, signal) : undefined;
    // Under those folders, often only the name is left to match (a file type, no second rg to filter the listing), or nothing.
    const under = paths?.length ? { paths, globs: globUnderPaths(pattern) ?? globs[0] } : undefined;
    const result = await firstInPathOrder<string>(roots.length, max, FILES_READ_LIMIT, comparePaths, (r, onItem, sorted) =>
      ripgrepFiles(rg, roots[r].path, exclude, r === 0 && under ? under.globs : globs[r], onItem, { signal, sorted, paths: r === 0 ? under?.paths : undefined }));
    found = result.items.map(({ root, item }) => roots[root].prefix + item);
    total = result.total;
  } else {
    parseGlob(pattern); // a bad glob fails here, before a worker starts
    const result = await searchInWorker({ kind: 'files', roots, exclude, max, countLimit: COUNT_LIMIT, glob: pattern }, signal);
    found = result.items.map((item) => item.path);
    total = result.total;
  }
  if (total === 0) return `No files match "${pattern}".`;
  return found.join('\n') + leftOutNotice(found.length, total, 'files', 'Use a narrower glob to see the rest.');
};

export const searchText: ToolHandler = async (args, ctx, { signal }) => {
  const options: TextSearchOptions = {
    pattern: args.pattern as string,
    isRegex: args.isRegex === true,
    caseSensitive: args.caseSensitive === true,
    glob: args.glob as string | undefined,
    exclude: ctx.excludeGlobs ?? [],
    sensitive: usableSensitiveGlobs(ctx.sensitiveGlobs),
  };
  const max = (args.maxResults as number | undefined) ?? LIMITS.searchTextDefaultResults;
  const roots = await searchRoots(ctx);
  const rg = (await isExecutable(ctx.rgPath)) && options.sensitive!.every(ripgrepReadsGlob) ? ctx.rgPath : undefined;
  let matches: TextMatch[];
  let total: number;
  let fileCount: number;
  let skipped: string[] = [];
  if (rg) {
    const files = new Set<string>();
    const searching = firstInPathOrder<TextMatch>(roots.length, max, COUNT_LIMIT, compareMatches, (r, onItem, sorted) =>
      ripgrepText(rg, roots[r].path, options, (match) => {
        if (!sorted) files.add(roots[r].prefix + match.path);
        return onItem(match);
      }, { signal, sorted }));
    const [result] = await Promise.all([searching, listSkipped(rg, roots, options, skipped, signal)]);
    matches = result.items.map(({ root, item }) => ({ ...item, path: roots[root].prefix + item.path }));
    total = result.total;
    fileCount = files.size;
  } else {
    if (options.glob) parseGlob(options.glob);
    const result = await searchInWorker({ kind: 'text', roots, exclude: options.exclude, max, countLimit: COUNT_LIMIT, glob: options.glob, text: options }, signal);
    matches = result.items.map((item) => ({ path: item.path, line: item.line ?? 0, text: item.text ?? '' }));
    total = result.total;
    fileCount = result.files;
    skipped = result.skipped ?? [];
  }
  // A hard link to a sensitive file is that file under another name: its lines are left out too.
  const linked = await linkedSecrets(ctx, roots, matches, signal);
  if (linked.size > 0) {
    matches = matches.filter((match) => !linked.has(match.path));
    skipped = [...skipped, ...linked];
  }
  const lines = matches.map((match) => `${match.path}:${match.line}: ${preview(match.text)}`);
  const where = options.glob ? ` in files matching "${options.glob}"` : '';
  const sensitiveNote = skippedNotice(skipped);
  if (total === 0) return `No matches for ${options.isRegex ? 'regex ' : ''}"${options.pattern}"${where}.${sensitiveNote}`;
  const inFiles = total < COUNT_LIMIT ? ` in ${fileCount} file${fileCount === 1 ? '' : 's'}` : '';
  return lines.join('\n') + leftOutNotice(lines.length, total, `matches${inFiles}`, 'Narrow the pattern or add a glob to see the rest.') + sensitiveNote;
};

/** The matched files (as shown) that are hard links to a sensitive file; only files with more than one link are looked at. */
async function linkedSecrets(ctx: ToolContext, roots: SearchRoot[], matches: TextMatch[], signal?: AbortSignal): Promise<Set<string>> {
  const linked = new Set<string>();
  if (!ctx.sensitiveGlobs?.length) return linked;
  for (const shown of new Set(matches.map((match) => match.path))) {
    const root = roots.find((r) => r.prefix && shown.startsWith(r.prefix)) ?? roots[0];
    const stat = await fs.stat(path.join(root.path, shown.slice(root.prefix.length))).catch(() => undefined);
    if (stat && (await sensitiveLinkGlob(ctx, stat, (relative) => sensitiveGlobFor(ctx.sensitiveGlobs, [relative]), signal)) !== undefined) linked.add(shown);
  }
  return linked;
}

/** Past this many, sensitive files left out are counted as "more than". */
const SKIPPED_COUNT_LIMIT = 1000;
const SKIPPED_NAMES_SHOWN = 10;

/** Lists (into `skipped`) the files of every root that search_text leaves out as sensitive. */
async function listSkipped(rg: string, roots: SearchRoot[], options: TextSearchOptions, skipped: string[], signal?: AbortSignal): Promise<void> {
  if (!options.sensitive?.length) return;
  for (const root of roots) {
    if (skipped.length >= SKIPPED_COUNT_LIMIT) return;
    await ripgrepSkippedFiles(rg, root.path, options, (file) => {
      skipped.push(root.prefix + file);
      return skipped.length < SKIPPED_COUNT_LIMIT;
    }, { signal });
  }
}

/** Says which files were left out because they may hold secrets, so the model does not assume they lack the pattern. */
function skippedNotice(skipped: string[]): string {
  if (skipped.length === 0) return '';
  const names = [...skipped].sort(comparePaths);
  const count = skipped.length >= SKIPPED_COUNT_LIMIT ? `At least ${grouped(SKIPPED_COUNT_LIMIT)}` : String(skipped.length);
  const shown = names.slice(0, SKIPPED_NAMES_SHOWN).join(', ') + (names.length > SKIPPED_NAMES_SHOWN ? ', …' : '');
  const files = skipped.length === 1 ? '1 file matching' : `${count} files matching`;
  return `\n\n[${files} ${SENSITIVE_SETTING} (files that may hold secrets) ${skipped.length === 1 ? 'was' : 'were'} not searched: ${shown}. read_file can read one if the person allows it.]`;
}

interface Ranked<T> {
  root: number;
  item: T;
}

/**
 * Runs a parallel (unordered) search over each root and keeps the `max` first results in path
 * order, counting up to COUNT_LIMIT. Past `readLimit` results the unordered run stops, and the
 * first results of that root are fetched again from a sorted run, which stops as soon as it
 * has them.
 */
async function firstInPathOrder<T>(
  rootCount: number,
  max: number,
  readLimit: number,
  compare: (a: T, b: T) => number,
  run: (root: number, onItem: (item: T) => boolean, sorted: boolean) => Promise<void>,
): Promise<{ items: Ranked<T>[]; total: number }> {
  const kept = new SmallestItems<Ranked<T>>(max, (a, b) => a.root - b.root || compare(a.item, b.item));
  let read = 0;
  for (let root = 0; root < rootCount; root++) {
    await run(root, (item) => {
      read++;
      kept.add({ root, item });
      return read < readLimit;
    }, false);
    if (read < readLimit) continue;
    const total = COUNT_LIMIT;
    const earlier = kept.sorted().filter((k) => k.root < root);
    const first: Ranked<T>[] = [];
    const need = max - earlier.length;
    if (need > 0) {
      await run(root, (item) => {
        first.push({ root, item });
        return first.length < need;
      }, true);
    }
    return { items: [...earlier, ...first], total };
  }
  return { items: kept.sorted(), total: Math.min(read, COUNT_LIMIT) };
}

function compareMatches(a: TextMatch, b: TextMatch): number {
  return comparePaths(a.path, b.path) || a.line - b.line;
}

/** The glob for one root; for another root's "<name>/…" glob, also the rest of it inside that root. */
function globsFor(pattern: string, prefix: string): GlobPattern[] {
  const globs = [parseGlob(pattern)];
  const bare = pattern.replace(/^(\.\/)+/, '');
  if (prefix && !globs[0].negated && bare.startsWith(prefix) && bare.length > prefix.length) globs.push(parseGlob(bare.slice(prefix.length), { anchored: true }));
  return globs;
}

function leftOutNotice(shown: number, total: number, what: string, hint: string): string {
  if (shown >= total) return '';
  const count = total >= COUNT_LIMIT ? `more than ${grouped(COUNT_LIMIT)}` : grouped(total);
  return `\n\n[Showing ${shown} of ${count} ${what}; ${grouped(total - shown)}${total >= COUNT_LIMIT ? '+' : ''} left out. ${hint}]`;
}

/**
 * A count with thousands separators, as `toLocaleString('en')` writes it, without Intl: a fresh
 * process pays tens of milliseconds to load the locale data on its first toLocaleString.
 */
export function grouped(count: number): string {
  return String(count).replace(/\B(?=(\d{3})+$)/g, ',');
}

function preview(text: string): string {
  const trimmed = text.trim();
  return trimmed.length > LINE_PREVIEW_CHARS ? `${trimmed.slice(0, LINE_PREVIEW_CHARS)}…` : trimmed;
}

async function searchRoots(ctx: ToolContext): Promise<SearchRoot[]> {
  const primary = await resolveWorkspacePath(ctx, '.');
  const roots: SearchRoot[] = [{ path: primary.absolute, prefix: '' }];
  for (const name of Object.keys(ctx.workspaceRoots ?? {})) {
    const root = await resolveWorkspacePath(ctx, name).catch(() => undefined);
    if (root && root.relative === '' && root.absolute !== primary.absolute) roots.push({ path: root.absolute, prefix: `${name}/` });
  }
  return roots;
}
