import { spawn } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import * as readline from 'node:readline';

/** Flags shared by listing and searching: hidden files in, .git out, .gitignore honoured outside git repos too. */
const COMMON_FLAGS = ['--hidden', '--no-require-git', '--sort', 'path', '--glob', '!.git', '--no-config'];

export interface TextSearchOptions {
  pattern: string;
  isRegex: boolean;
  caseSensitive: boolean;
  glob?: string;
  exclude: readonly string[];
}

export interface TextMatch {
  /** Relative to the searched root, "/" separated. */
  path: string;
  line: number;
  text: string;
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

/** `rg --files` under `root`; `onFile` returns false to stop early. */
export async function ripgrepFiles(
  rgPath: string,
  root: string,
  exclude: readonly string[],
  onFile: (relativePath: string) => boolean,
  signal?: AbortSignal,
): Promise<void> {
  const args = ['--files', ...COMMON_FLAGS, ...excludeFlags(exclude)];
  await runLines(rgPath, args, root, (line) => onFile(stripDotSlash(line)), signal);
}

/** `rg --json` under `root`; `onMatch` returns false to stop early. */
export async function ripgrepText(
  rgPath: string,
  root: string,
  options: TextSearchOptions,
  onMatch: (match: TextMatch) => boolean,
  signal?: AbortSignal,
): Promise<void> {
  const args = [
    '--json',
    ...COMMON_FLAGS,
    '--max-filesize', '10M',
    options.caseSensitive ? '--case-sensitive' : '--ignore-case',
    ...(options.isRegex ? [] : ['--fixed-strings']),
    ...(options.glob ? ['--glob', options.glob] : []),
    ...excludeFlags(options.exclude),
    '--regexp', options.pattern,
  ];
  await runLines(rgPath, args, root, (line) => {
    const message = parseMessage(line);
    return message ? onMatch(message) : true;
  }, signal);
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

function parseMessage(line: string): TextMatch | undefined {
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

function decode(field: { text?: string; bytes?: string } | undefined): string | undefined {
  if (!field) return undefined;
  return field.text ?? (field.bytes !== undefined ? Buffer.from(field.bytes, 'base64').toString('utf8') : undefined);
}

function stripDotSlash(p: string): string {
  return p.startsWith('./') ? p.slice(2) : p;
}

/** Runs rg, feeding stdout lines to `onLine` until it returns false; exit code 1 (no match) is no error. */
function runLines(rgPath: string, args: string[], cwd: string, onLine: (line: string) => boolean, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(rgPath, args, { cwd, stdio: ['ignore', 'pipe', 'pipe'], signal });
    let stderr = '';
    let stopped = false;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk: string) => {
      if (stderr.length < 4000) stderr += chunk;
    });
    const lines = readline.createInterface({ input: child.stdout, crlfDelay: Infinity });
    lines.on('line', (line) => {
      if (stopped) return;
      if (!onLine(line)) {
        stopped = true;
        lines.close();
        child.kill();
      }
    });
    child.on('error', (error) => reject(error));
    child.on('close', (code) => {
      if (signal?.aborted) return reject(signal.reason);
      if (stopped || code === 0 || code === 1) return resolve();
      const message = stderr.trim().replace(/^rg: /, '');
      if (/regex parse error/i.test(message)) {
        const detail = message.split('\n').reverse().find((line) => line.startsWith('error:'));
        return reject(new Error(`Invalid regular expression: ${detail?.replace(/^error: /, '') ?? message}`));
      }
      // Exit code 2 also covers unreadable files beside real results; only bad input is fatal.
      if (/error parsing glob|unrecognized|invalid/i.test(message) || !message) {
        return reject(new Error(message.split('\n').slice(0, 6).join('\n') || `ripgrep exited with code ${code}`));
      }
      resolve();
    });
  });
}
