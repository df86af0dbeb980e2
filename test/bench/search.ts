import { spawn } from 'node:child_process';
import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ToolRegistry } from '../../src/tools/registry';
import { fallbackSearchBudget } from '../../src/tools/searchInWorker';
import { bundledRipgrep, contextFor } from '../support/workspace';

/**
 * Search bench for `npm run bench` (`node out/test/bench/search.js [files]`), in two parts:
 *  1. speed: on a generated tree of 100,000 files, raw `rg` with the flags Toolbelt passes and
 *     Toolbelt's search_text / search_files run alternately; the ratio of each adjacent pair,
 *     median over the pairs, is reported (target ≤ 1.2);
 *  2. hostile patterns: the longest event-loop stall (monitorEventLoopDelay, 10 ms resolution)
 *     while search_files / search_text run hostile globs, regexes and exclude globs over a tree
 *     of long file names, with ripgrep and with the plain-Node fallback.
 * Prints one JSON object.
 */
const FILE_COUNT = Number(process.argv[2] ?? 100_000);
const PAIRS = Number(process.argv[3] ?? 7);
const RARE = 'QuokkaZephyr42';
const COMMON = ['--hidden', '--no-require-git', '--glob', '!.git', '--no-config', '--path-separator', '/'];
const WORDS = ['alpha', 'beta', 'gamma', 'delta', 'search', 'tool', 'belt', 'async', 'await', 'value', 'index', 'return'];

/** 100 top folders × 10 sub-folders × N files; every 5th file is Markdown; the rare word in 5 files. */
async function generateTree(root: string, count: number): Promise<void> {
  await fs.writeFile(path.join(root, '.gitignore'), 'ignored/\n*.log\n');
  const jobs: (() => Promise<void>)[] = [];
  const perDir = Math.ceil(count / 1000);
  let made = 0;
  for (let top = 0; top < 100 && made < count; top++) {
    for (let sub = 0; sub < 10 && made < count; sub++) {
      const dir = path.join(root, `pkg${top}`, `mod${sub}`);
      const names: [string, string][] = [];
      for (let i = 0; i < perDir && made < count; i++, made++) {
        const n = made;
        const ext = n % 5 === 0 ? 'md' : n % 5 === 1 ? 'ts' : n % 5 === 2 ? 'json' : n % 5 === 3 ? 'txt' : 'js';
        let text = '';
        for (let line = 0; line < 8; line++) text += `${WORDS[(n + line) % WORDS.length]} ${WORDS[(n * 7 + line) % WORDS.length]} ${n}-${line}\n`;
        if (n % 20_011 === 17) text += `the ${RARE} is here\n`;
        names.push([`file${n}.${ext}`, text]);
      }
      jobs.push(async () => {
        await fs.mkdir(dir, { recursive: true });
        for (const [name, text] of names) await fs.writeFile(path.join(dir, name), text);
      });
    }
  }
  for (let i = 0; i < jobs.length; i += 16) await Promise.all(jobs.slice(i, i + 16).map((job) => job()));
}

function runRg(rg: string, args: string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(rg, args, { cwd, stdio: ['ignore', 'pipe', 'ignore'] });
    let bytes = 0;
    child.stdout.on('data', (chunk: Buffer) => (bytes += chunk.length));
    child.on('error', reject);
    child.on('close', () => resolve(bytes));
  });
}

async function timed(run: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await run();
  return performance.now() - started;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

interface SpeedCase {
  name: string;
  raw: string[];
  tool: () => Promise<string>;
}

async function speed(registry: ToolRegistry, rg: string, root: string) {
  const cases: SpeedCase[] = [
    {
      name: `search_text "${RARE}"`,
      raw: ['--json', ...COMMON, '--max-filesize', '10M', '--ignore-case', '--fixed-strings', '--regexp', RARE],
      tool: () => registry.execute('search_text', { pattern: RARE }),
    },
    {
      name: 'search_files "*.md"',
      raw: ['--files', ...COMMON, '--glob', '*.md'],
      tool: () => registry.execute('search_files', { pattern: '*.md' }),
    },
    // Path globs: Toolbelt walks only the folders the glob's leading part names (globSearchPaths.ts),
    // then a second rg keeps the paths matching the glob; raw rg gets the glob as --glob and walks everything.
    ...['pkg1*/**/file1*.ts', 'pkg7/**/*.ts', 'pkg*/mod3/**'].map((glob) => ({
      name: `search_files "${glob}" (path glob)`,
      raw: ['--files', ...COMMON, '--glob', glob],
      tool: () => registry.execute('search_files', { pattern: glob }),
    })),
  ];
  const results = [];
  for (const c of cases) {
    const check = await c.tool();
    await runRg(rg, c.raw, root);
    const raw: number[] = [];
    const tool: number[] = [];
    for (let i = 0; i < PAIRS; i++) {
      // Alternate which goes first, so neither always meets a warmer or busier machine.
      if (i % 2) {
        tool.push(await timed(c.tool));
        raw.push(await timed(() => runRg(rg, c.raw, root)));
      } else {
        raw.push(await timed(() => runRg(rg, c.raw, root)));
        tool.push(await timed(c.tool));
      }
    }
    results.push({
      name: c.name,
      rawMs: median(raw),
      toolbeltMs: median(tool),
      ratio: median(tool.map((t, i) => t / raw[i])),
      firstLine: check.split('\n')[0],
      notice: /\[Showing[^\]]*\]/.exec(check)?.[0],
    });
  }
  return results;
}

const LONG = 'a'.repeat(200);
const STARS = `${'*a'.repeat(12)}*b`;
const NESTED = '+(+(a|aa)|+(a|aa))b';
const HOSTILE: { tool: 'search_files' | 'search_text'; args: Record<string, unknown>; exclude?: string[] }[] = [
  { tool: 'search_files', args: { pattern: NESTED } },
  { tool: 'search_files', args: { pattern: `**/${NESTED}` } },
  { tool: 'search_files', args: { pattern: STARS } },
  { tool: 'search_files', args: { pattern: '{a,b}'.repeat(30) } },
  { tool: 'search_files', args: { pattern: 'file{1..100000}.txt' } },
  { tool: 'search_files', args: { pattern: '*.txt' }, exclude: [`**/${STARS}`, '+(+(a|aa)|+(a|aa))c'] },
  { tool: 'search_text', args: { pattern: 'x', glob: STARS } },
  { tool: 'search_text', args: { pattern: '(a+)+$', isRegex: true } },
  { tool: 'search_text', args: { pattern: '(x+x+)+y', isRegex: true } },
  { tool: 'search_text', args: { pattern: '(a|aa)+b', isRegex: true } },
  { tool: 'search_text', args: { pattern: '^(\\w+\\s?)*$', isRegex: true } },
];

async function hostile(withRg: boolean) {
  const root = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-hostile-')));
  try {
    for (let i = 0; i < 200; i++) {
      await fs.mkdir(path.join(root, `d${i % 10}`), { recursive: true });
      await fs.writeFile(path.join(root, `d${i % 10}`, `${LONG.slice(i % 7)}${i}.txt`), `${'a'.repeat(3000)}!\n${'x'.repeat(3000)}\n`);
    }
    const rows = [];
    for (const c of HOSTILE) {
      const registry = createDefaultToolRegistry(contextFor(root, { rgPath: withRg ? bundledRipgrep() : undefined, excludeGlobs: c.exclude }));
      const histogram = monitorEventLoopDelay({ resolution: 10 });
      histogram.enable();
      const started = performance.now();
      const text = await registry.execute(c.tool, c.args);
      await new Promise((resolve) => setTimeout(resolve, 20));
      histogram.disable();
      rows.push({
        call: `${c.tool} ${JSON.stringify(c.args)}${c.exclude ? ` exclude ${JSON.stringify(c.exclude)}` : ''}`,
        ms: performance.now() - started,
        maxStallMs: histogram.max / 1e6,
        outcome: text.split('\n')[0].slice(0, 160),
      });
    }
    return { maxStallMs: Math.max(...rows.map((r) => r.maxStallMs)), rows };
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

/** The longest stall of an idle event loop over `ms`: the machine's own noise floor (other load, GC). */
async function idleStall(ms: number): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  await new Promise((resolve) => setTimeout(resolve, ms));
  histogram.disable();
  return histogram.max / 1e6;
}

async function main(): Promise<void> {
  const rg = bundledRipgrep();
  // The stall figures first, before the big tree and its runs grow the heap.
  const idleMaxStallMs = await idleStall(5000);
  fallbackSearchBudget.ms = 3000;
  const withRg = await hostile(true);
  const withoutRg = await hostile(false);
  const root = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-bench-search-')));
  try {
    const made = performance.now();
    await generateTree(root, FILE_COUNT);
    const generateMs = performance.now() - made;
    const registry = createDefaultToolRegistry(contextFor(root, { rgPath: rg }));
    const speedResults = await speed(registry, rg, root);
    const loadAverage = os.loadavg()[0];
    process.stdout.write(`${JSON.stringify({ files: FILE_COUNT, pairs: PAIRS, cores: os.cpus().length, loadAverage, generateMs, speed: speedResults, fallbackBudgetMs: fallbackSearchBudget.ms, hostile: { withRg, withoutRg, idleMaxStallMs } })}\n`);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
