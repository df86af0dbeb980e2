import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { ToolHandler } from './builtinTool';
import { globMatcher, walkFiles } from './fileWalker';
import { LIMITS } from './manifest';
import { isExecutable, ripgrepFiles, ripgrepText, type TextMatch, type TextSearchOptions } from './ripgrep';
import type { ToolContext } from './types';
import { resolveWorkspacePath } from './workspacePaths';

/** Past this many matches the search stops counting and says "more than". */
const COUNT_LIMIT = 10_000;
const LINE_PREVIEW_CHARS = 300;
const FALLBACK_MAX_FILE_BYTES = 10 * 1024 * 1024;

interface SearchRoot {
  path: string;
  /** Prefix for paths shown from this root: "" for the first folder, "<name>/" for the others. */
  prefix: string;
}

export const searchFiles: ToolHandler = async (args, ctx, { signal }) => {
  const pattern = args.pattern as string;
  const max = (args.maxResults as number | undefined) ?? LIMITS.searchFilesDefaultResults;
  const matches = globMatcher(pattern);
  const found: string[] = [];
  let total = 0;
  const onFile = (prefix: string) => (relative: string) => {
    if (!matches(relative) && !(prefix && matches(prefix + relative))) return true;
    total++;
    if (found.length < max) found.push(prefix + relative);
    return total < COUNT_LIMIT;
  };
  const rg = (await isExecutable(ctx.rgPath)) ? ctx.rgPath : undefined;
  for (const root of await searchRoots(ctx)) {
    if (total >= COUNT_LIMIT) break;
    const accept = onFile(root.prefix);
    if (rg) await ripgrepFiles(rg, root.path, ctx.excludeGlobs ?? [], accept, signal);
    else {
      for await (const file of walkFiles(root.path, ctx.excludeGlobs, signal)) if (!accept(file)) break;
    }
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
  };
  const max = (args.maxResults as number | undefined) ?? LIMITS.searchTextDefaultResults;
  const lines: string[] = [];
  const files = new Set<string>();
  let total = 0;
  const onMatch = (prefix: string) => (match: TextMatch) => {
    total++;
    files.add(prefix + match.path);
    if (lines.length < max) lines.push(`${prefix}${match.path}:${match.line}: ${preview(match.text)}`);
    return total < COUNT_LIMIT;
  };
  const rg = (await isExecutable(ctx.rgPath)) ? ctx.rgPath : undefined;
  const matcher = rg ? undefined : compilePattern(options);
  for (const root of await searchRoots(ctx)) {
    if (total >= COUNT_LIMIT) break;
    if (rg) await ripgrepText(rg, root.path, options, onMatch(root.prefix), signal);
    else await searchInNode(root.path, options, matcher!, onMatch(root.prefix), signal);
  }
  const where = options.glob ? ` in files matching "${options.glob}"` : '';
  if (total === 0) return `No matches for ${options.isRegex ? 'regex' : ''}${options.isRegex ? ' ' : ''}"${options.pattern}"${where}.`;
  const inFiles = total < COUNT_LIMIT ? ` in ${files.size} file${files.size === 1 ? '' : 's'}` : '';
  return lines.join('\n') + leftOutNotice(lines.length, total, `matches${inFiles}`, 'Narrow the pattern or add a glob to see the rest.');
};

function leftOutNotice(shown: number, total: number, what: string, hint: string): string {
  if (shown >= total) return '';
  const count = total >= COUNT_LIMIT ? `more than ${COUNT_LIMIT.toLocaleString('en')}` : total.toLocaleString('en');
  return `\n\n[Showing ${shown} of ${count} ${what}; ${(total - shown).toLocaleString('en')}${total >= COUNT_LIMIT ? '+' : ''} left out. ${hint}]`;
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

function compilePattern(options: TextSearchOptions): RegExp {
  const source = options.isRegex ? options.pattern : options.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  try {
    return new RegExp(source, options.caseSensitive ? 'u' : 'iu');
  } catch (error) {
    throw new Error(`Invalid regular expression: ${(error as Error).message.split(': ').pop()}`);
  }
}

/** The plain-Node search used when no ripgrep binary is at hand: same files, same output. */
async function searchInNode(
  root: string,
  options: TextSearchOptions,
  pattern: RegExp,
  onMatch: (match: TextMatch) => boolean,
  signal?: AbortSignal,
): Promise<void> {
  const inGlob = options.glob ? globMatcher(options.glob) : () => true;
  for await (const file of walkFiles(root, options.exclude, signal)) {
    if (!inGlob(file)) continue;
    const absolute = path.join(root, file);
    const stat = await fs.stat(absolute).catch(() => undefined);
    if (!stat || stat.size > FALLBACK_MAX_FILE_BYTES) continue;
    const buffer = await fs.readFile(absolute).catch(() => undefined);
    if (!buffer || buffer.subarray(0, 8192).includes(0)) continue;
    const lines = buffer.toString('utf8').split('\n');
    for (let i = 0; i < lines.length; i++) {
      if (!pattern.test(lines[i])) continue;
      if (!onMatch({ path: file, line: i + 1, text: lines[i].replace(/\r$/, '') })) return;
    }
  }
}
