import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';
import { parseGlob, type GlobPattern } from './globPattern';

/**
 * Flags shared by listing and searching: hidden files in, .git out, .gitignore honoured outside
 * git repos too. No `--sort`: it makes ripgrep single-threaded; callers order the results,
 * and ask for `sorted` only to fetch the first few in path order.
 */
const COMMON_FLAGS = ['--hidden', '--no-require-git', '--glob', '!.git', '--no-config', '--path-separator', '/'];
/** The name of the file type that carries the glob's name part (see `ripgrepFiles`). */
const NAME_TYPE = 'toolbeltglob';

export interface TextSearchOptions {
  pattern: string;
  isRegex: boolean;
  caseSensitive: boolean;
  glob?: string;
  exclude: readonly string[];
  /** Globs of files whose contents are never searched (toolbelt.tools.sensitiveFiles). */
  sensitive?: readonly string[];
}

export interface TextMatch {
  /** Relative to the searched root, "/" separated. */
  path: string;
  line: number;
  text: string;
}

export interface RunOptions {
  signal?: AbortSignal;
  /** Walk in path order (single-threaded): for reading only the first results. */
  sorted?: boolean;
  /** Folders (relative to the root) to walk instead of the whole root; see globSearchPaths.ts. */
  paths?: readonly string[];
}

/** Whether `rgPath` names a binary this process may run. */
export async function isExecutable(rgPath: string | undefined): Promise<boolean> {
  if (!rgPath) return false;
  try {
    await fs.access(rgPath, constants.X_OK);
    return (await fs.stat(rgPath)).isFile();
  } catch {
    return false;
  }
}

/**
 * Files under `root` whose relative path matches any of `globs` (none: every file); `onFile` returns false to stop.
 * All matching runs in ripgrep (Rust, linear time). ripgrep's own `--glob` cannot carry the
 * model's glob: a matching `--glob` overrides .gitignore. So the listing (`rg --files`, which
 * honours .gitignore) is piped into a second ripgrep that keeps the lines matching the glob's
 * regex. When the glob's file-name part is simple, a file type (`--type-add`, applied after
 * .gitignore) selects by name first; for a glob without "/" (`*.md`) that alone decides, and
 * there is no second process.
 */
export async function ripgrepFiles(
  rgPath: string,
  root: string,
  exclude: readonly string[],
  globs: readonly GlobPattern[],
  onFile: (relativePath: string) => boolean,
  options: RunOptions = {},
): Promise<void> {
  const names = globs.every((g) => g.nameGlob) ? globs.map((g) => g.nameGlob!) : [];
  const list = [
    '--files', '--null', ...COMMON_FLAGS, ...(options.sorted ? ['--sort', 'path'] : []), ...excludeFlags(exclude),
    ...names.flatMap((name) => ['--type-add', `${NAME_TYPE}:${name.glob}`]), ...(names.length ? ['--type', NAME_TYPE] : []),
    ...(options.paths ? ['--', ...options.paths] : []),
  ];
  // No glob: every file listed.
  if (globs.length === 0 || (names.length > 0 && names.every((name) => name.exact))) {
    await runRecords(rgPath, list, root, '\0', (record) => onFile(record), options.signal);
    return;
  }
  const negated = globs.length === 1 && globs[0].negated;
  const regex = globs.map((g) => `(?:${g.source})`).join('|');
  const filter = ['--null-data', '--no-config', '--color', 'never', '--no-line-number', '--no-filename', ...(negated ? ['--invert-match'] : []), '--regexp', regex, '-'];
  await runRecords(rgPath, filter, root, '\0', (record) => onFile(record), options.signal, list);
}

/** `rg --json` under `root`; `onMatch` returns false to stop early. */
export async function ripgrepText(
  rgPath: string,
  root: string,
  search: TextSearchOptions,
  onMatch: (match: TextMatch) => boolean,
  options: RunOptions = {},
): Promise<void> {
  const args = [
    '--json',
    ...COMMON_FLAGS,
    ...(options.sorted ? ['--sort', 'path'] : []),
    '--max-filesize', '10M',
    search.caseSensitive ? '--case-sensitive' : '--ignore-case',
    ...(search.isRegex ? [] : ['--fixed-strings']),
    ...(search.glob ? textGlobFlags(search.glob) : []),
    ...excludeFlags(search.exclude),
    // Negated globs never override .gitignore; coming last, they win over the model's glob.
    ...excludeFlags((search.sensitive ?? []).map(asRipgrepGlob)),
    '--regexp', search.pattern,
  ];
  await runRecords(rgPath, args, root, '\n', (line) => {
    const message = parseMessage(line);
    return message ? onMatch(message) : true;
  }, options.signal);
}

/**
 * Whether ripgrep's own glob syntax reads `glob` as parseGlob does: it has no extglobs
 * (`@(a|b)`) and no `{1..9}` ranges. Where it does not, only the plain-Node search can leave
 * exactly the right files out.
 */
export function ripgrepReadsGlob(glob: string): boolean {
  return !/[?*+@!]\(/.test(glob) && !/\{[^{}]*\.\.[^{}]*\}/.test(glob);
}

/** A glob as `--glob` should get it: "./" and a leading "/" dropped, as parseGlob drops them (no "/" left: any depth). */
function asRipgrepGlob(glob: string): string {
  return glob.replace(/^(\.\/)+/, '').replace(/^\//, '');
}

/**
 * The files `ripgrepText` leaves out because they match `search.sensitive`: those it would
 * otherwise have searched (.gitignore, excludes and the model's glob honoured). Lists names only.
 */
export async function ripgrepSkippedFiles(
  rgPath: string,
  root: string,
  search: TextSearchOptions,
  onFile: (relativePath: string) => boolean,
  options: RunOptions = {},
): Promise<void> {
  const sensitive = (search.sensitive ?? []).map((glob) => parseGlob(glob)).filter((g) => !g.negated);
  if (sensitive.length === 0) return;
  if (!search.glob) return ripgrepFiles(rgPath, root, search.exclude, sensitive, onFile, options);
  // The model's glob selects what is listed (as in the search); the sensitive globs filter it.
  const list = ['--files', '--null', ...COMMON_FLAGS, ...textGlobFlags(search.glob), ...excludeFlags(search.exclude)];
  const regex = sensitive.map((g) => `(?:${g.source})`).join('|');
  const filter = ['--null-data', '--no-config', '--color', 'never', '--no-line-number', '--no-filename', '--regexp', regex, '-'];
  await runRecords(rgPath, filter, root, '\0', (record) => onFile(record), options.signal, list);
}

/**
 * A name-only glob (`*.ts`) becomes a file type, which, unlike `--glob`, does not override
 * .gitignore; other globs go to `--glob` (ripgrep's own, linear-time matcher).
 */
function textGlobFlags(glob: string): string[] {
  const name = parseGlob(glob).nameGlob;
  return name?.exact ? ['--type-add', `${NAME_TYPE}:${name.glob}`, '--type', NAME_TYPE] : ['--glob', glob];
}

function excludeFlags(exclude: readonly string[]): string[] {
  return exclude.flatMap((glob) => ['--glob', `!${glob}`]);
}

interface RgJsonMatch {
  type: string;
  data?: {
    path?: { text?: string; bytes?: string };
    lines?: { text?: string; bytes?: string };
    line_number?: number;
  };
}

/** Past this a JSON line (a match on a huge minified line) is read without parsing it whole. */
const BIG_RECORD_CHARS = 64 * 1024;
/** How much of a huge matched line is kept: more than the preview shows. */
const BIG_LINE_KEEP_CHARS = 2000;

function parseMessage(line: string): TextMatch | undefined {
  // Only "match" messages matter; skip the rest ("begin", "end", "summary") unparsed.
  if (!line.startsWith('{"type":"match"')) return undefined;
  if (line.length > BIG_RECORD_CHARS) return parseBigMatch(line);
  let message: RgJsonMatch;
  try {
    message = JSON.parse(line) as RgJsonMatch;
  } catch {
    return undefined;
  }
  if (message.type !== 'match' || !message.data) return undefined;
  const { path, lines, line_number } = message.data;
  return {
    path: stripDotSlash(decode(path) ?? ''),
    line: line_number ?? 0,
    text: (decode(lines) ?? '').replace(/\r?\n$/, ''),
  };
}

/**
 * A match message of `{"type":"match","data":{"path":…,"lines":{"text":"<huge>"},"line_number":N,…}}`
 * read in linear time without building the huge string: inside JSON strings every quote is
 * escaped, so the field names found by indexOf are the real ones.
 */
function parseBigMatch(line: string): TextMatch | undefined {
  const pathStart = line.indexOf('"path":');
  const linesStart = line.indexOf(',"lines":', pathStart);
  const numberAt = line.lastIndexOf(',"line_number":');
  if (pathStart < 0 || linesStart < 0 || numberAt < linesStart) return undefined;
  try {
    const path = decode(JSON.parse(line.slice(pathStart + 7, linesStart)) as { text?: string; bytes?: string });
    const lineNumber = Number(/^\d+/.exec(line.slice(numberAt + 15, numberAt + 40))?.[0] ?? 0);
    const body = line.slice(linesStart + 9, linesStart + 9 + BIG_LINE_KEEP_CHARS * 6 + 20);
    let text = '';
    if (body.startsWith('{"text":"')) text = parseStringPrefix(body.slice(9));
    else if (body.startsWith('{"bytes":"')) {
      const base64 = body.slice(10, 10 + BIG_LINE_KEEP_CHARS).replace(/".*$/s, '');
      text = Buffer.from(base64.slice(0, base64.length - (base64.length % 4)), 'base64').toString('utf8');
    }
    return { path: stripDotSlash(path ?? ''), line: lineNumber, text: text.slice(0, BIG_LINE_KEEP_CHARS) };
  } catch {
    return undefined;
  }
}

/** The start of a JSON string's content, cut where no escape sequence is split. */
function parseStringPrefix(content: string): string {
  let end = Math.min(content.length, BIG_LINE_KEEP_CHARS * 6);
  for (let tries = 0; tries < 8 && end > 0; tries++, end--) {
    try {
      return JSON.parse(`"${content.slice(0, end)}"`) as string;
    } catch {
      // cut inside an escape ("\u00" or a lone "\"), or past the closing quote: one less
    }
  }
  return '';
}

function decode(field: { text?: string; bytes?: string } | undefined): string | undefined {
  if (!field) return undefined;
  return field.text ?? (field.bytes !== undefined ? Buffer.from(field.bytes, 'base64').toString('utf8') : undefined);
}

function stripDotSlash(p: string): string {
  return p.startsWith('./') ? p.slice(2) : p;
}

interface Outcome {
  code: number | null;
  stderr: string;
}

/**
 * Runs rg (fed by a first rg running `feedArgs`, when given), handing each `separator`-ended
 * record of its output to `onRecord` until that returns false. Exit code 1 (no match) is no
 * error. Every process it starts has exited when the promise settles.
 */
async function runRecords(
  rgPath: string,
  args: string[],
  cwd: string,
  separator: string,
  onRecord: (record: string) => boolean,
  signal?: AbortSignal,
  feedArgs?: string[],
): Promise<void> {
  signal?.throwIfAborted();
  const children: ChildProcessWithoutNullStreams[] = [];
  const start = (argv: string[], stdin: 'ignore' | 'pipe') =>
    spawn(rgPath, argv, { cwd, stdio: [stdin, 'pipe', 'pipe'], signal }) as ChildProcessWithoutNullStreams;
  const feeder = feedArgs ? start(feedArgs, 'ignore') : undefined;
  const main = start(args, feeder ? 'pipe' : 'ignore');
  if (feeder) {
    children.push(feeder);
    main.stdin.on('error', () => undefined); // EPIPE when the filter stops first
    feeder.stdout.pipe(main.stdin);
  }
  children.push(main);
  let stopped = false;
  const stop = () => {
    stopped = true;
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill();
  };
  const decoder = new StringDecoder('utf8');
  // The unfinished record, in pieces: a huge record is joined once, not rescanned per chunk.
  const pieces: string[] = [];
  main.stdout.on('data', (chunk: Buffer) => {
    if (stopped) return;
    const text = decoder.write(chunk);
    let start = 0;
    for (let end = text.indexOf(separator); end >= 0; end = text.indexOf(separator, start)) {
      let record = text.slice(start, end);
      if (pieces.length > 0) {
        pieces.push(record);
        record = pieces.join('');
        pieces.length = 0;
      }
      start = end + 1;
      if (!onRecord(record)) return stop();
    }
    if (start < text.length) pieces.push(text.slice(start));
  });
  const outcomes = await Promise.all(children.map(outcomeOf));
  const rest = pieces.join('') + decoder.end();
  if (!stopped && rest && !onRecord(rest)) stopped = true;
  if (signal?.aborted) throw signal.reason;
  if (stopped) return;
  for (const outcome of outcomes) checkOutcome(outcome);
}

function outcomeOf(child: ChildProcessWithoutNullStreams): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    child.on('error', (error) => {
      if ((error as NodeJS.ErrnoException).code !== 'ABORT_ERR') reject(error);
    });
    child.on('close', (code) => resolve({ code, stderr }));
  });
}

function checkOutcome({ code, stderr }: Outcome): void {
  if (code === 0 || code === 1) return;
  const message = stderr.trim().replace(/^rg: /, '');
  if (/regex parse error/i.test(message)) {
    const detail = message.split('\n').reverse().find((line) => line.startsWith('error:'));
    throw new Error(`Invalid regular expression: ${detail?.replace(/^error: /, '') ?? message}`);
  }
  if (/size limit/i.test(message)) {
    throw new Error('The pattern is too large: ripgrep refused to compile it (it exceeds the regex size limit). Use a shorter pattern.');
  }
  // Exit code 2 also covers unreadable files beside real results; only bad input is fatal.
  if (/error parsing glob|unrecognized|invalid/i.test(message) || !message) {
    throw new Error(message.split('\n').slice(0, 6).join('\n') || `ripgrep exited with code ${code}`);
  }
}
