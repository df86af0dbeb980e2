import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ToolRegistry } from '../../src/tools/registry';
import { DEFAULT_SENSITIVE_GLOBS } from '../../src/tools/sensitiveFiles';
import { comparePaths } from '../../src/tools/searchOrder';
import { contextFor } from '../support/workspace';
import { RARE } from './searchTree';

/**
 * The search speed cases: each is one tool call as the panel makes it (`registry.run` with a
 * signal, in a workspace with VS Code's default files.exclude / search.exclude and the default
 * sensitive-file list) and the raw `rg` command that gives the same result on the bench tree.
 */

/** VS Code's defaults of files.exclude and search.exclude: what a window hands the tools. */
export const DEFAULT_EXCLUDES = ['**/.git', '**/.svn', '**/.hg', '**/.DS_Store', '**/Thumbs.db', '**/node_modules', '**/bower_components', '**/*.code-search'];
const COMMON = ['--hidden', '--no-require-git', '--glob', '!.git', '--no-config', '--path-separator', '/'];
const EXCLUDE_FLAGS = DEFAULT_EXCLUDES.flatMap((glob) => ['--glob', `!${glob}`]);
const SENSITIVE_FLAGS = DEFAULT_SENSITIVE_GLOBS.flatMap((glob) => ['--glob', `!${glob}`]);

export interface SpeedCase {
  name: string;
  tool: string;
  args: Record<string, unknown>;
  /** rg's arguments for the same result (the same files by the same rules), unordered. */
  raw: string[];
  /** What a person would type instead, where that is shorter but reads .gitignore otherwise. */
  typed?: string[];
  /** How raw rg's output compares with the tool's: the paths it lists, sorted and cut to the tool's cap. */
  expect: (rawOutput: string) => string[];
  /** The paths (or path:line) the tool's answer lists. */
  shown: (answer: string) => string[];
}

const filesOf = (output: string) => output.split('\n').filter(Boolean);
const firstPaths = (max: number) => (output: string) => filesOf(output).sort(comparePaths).slice(0, max);
const listedPaths = (answer: string) => (/^No (files match|matches for)/.test(answer) ? [] : answer.split('\n\n[')[0].split('\n').filter(Boolean));

export const SPEED_CASES: SpeedCase[] = [
  {
    name: `search_text "${RARE}"`,
    tool: 'search_text',
    args: { pattern: RARE },
    raw: ['--json', ...COMMON, '--max-filesize', '10M', '--ignore-case', '--fixed-strings', ...EXCLUDE_FLAGS, ...SENSITIVE_FLAGS, '--regexp', RARE],
    expect: (output) =>
      filesOf(output)
        .map((line) => JSON.parse(line) as { type: string; data: { path: { text: string }; line_number: number } })
        .filter((message) => message.type === 'match')
        .map((message) => ({ path: message.data.path.text, line: message.data.line_number }))
        .sort((a, b) => comparePaths(a.path, b.path) || a.line - b.line)
        .map((match) => `${match.path}:${match.line}`),
    shown: (answer) => listedPaths(answer).map((line) => /^(.*?:\d+):/.exec(line)?.[1] ?? line),
  },
  {
    name: 'search_files "*.md"',
    tool: 'search_files',
    args: { pattern: '*.md' },
    // A file type, as Toolbelt passes it: `--glob '*.md'` would list a git-ignored Markdown file.
    raw: ['--files', ...COMMON, ...EXCLUDE_FLAGS, '--type-add', 'md:*.md', '--type', 'md'],
    typed: ['--files', ...COMMON, ...EXCLUDE_FLAGS, '--glob', '*.md'],
    expect: firstPaths(200),
    shown: listedPaths,
  },
  // Path globs: Toolbelt walks only the folders the glob's leading part names (globSearchPaths.ts);
  // raw rg, handed the glob as --glob, walks the whole tree.
  ...['pkg1*/**/file1*.ts', 'pkg7/**/*.ts', 'pkg*/mod3/**'].map((glob) => ({
    name: `search_files "${glob}" (path glob)`,
    tool: 'search_files',
    args: { pattern: glob },
    raw: ['--files', ...COMMON, ...EXCLUDE_FLAGS, '--glob', glob],
    expect: firstPaths(200),
    shown: listedPaths,
  })),
];

/** A registry over `root` as a VS Code window sets it up. */
export function panelRegistry(root: string, rg: string): ToolRegistry {
  return createDefaultToolRegistry(contextFor(root, { rgPath: rg, excludeGlobs: DEFAULT_EXCLUDES, sensitiveGlobs: DEFAULT_SENSITIVE_GLOBS }));
}

/** One call as the panel makes it; rejects when the tool answered with an error. */
export async function callTool(registry: ToolRegistry, c: SpeedCase): Promise<string> {
  const result = await registry.run(c.tool, c.args, { signal: new AbortController().signal });
  if (result.status !== 'ok') throw new Error(`${c.name}: ${result.text}`);
  return result.text;
}

/** rg's whole output, read as Node reads any child's (a pipe, every chunk kept). */
export function runRg(rg: string, args: string[], cwd: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('error', reject);
    child.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

export interface Timing {
  ms: number;
  /** CPU of this process (every thread) and of the children it waited for, in ms. */
  cpuMs: number;
}

/** CPU of the children this process has waited for (Linux: /proc/self/stat, in 10 ms ticks), in ms. */
function childrenCpuMs(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10;
}

/** What `run` takes: wall clock, and CPU in this process and in the processes it started. */
export async function timed(run: () => Promise<unknown>): Promise<Timing> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const children = childrenCpuMs();
  await run();
  const own = process.cpuUsage(cpu);
  return { ms: performance.now() - started, cpuMs: (own.user + own.system) / 1000 + childrenCpuMs() - children };
}
