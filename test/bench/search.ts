import { spawn } from 'node:child_process';
import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { fallbackSearchBudget } from '../../src/tools/searchInWorker';
import { bundledRipgrep, contextFor } from '../support/workspace';
import { callTool, panelRegistry, runRg, SPEED_CASES, timed, type Timing } from './searchSpeed';
import { searchTree } from './searchTree';

/**
 * Search bench for `npm run bench` (`node out/test/bench/search.js [files] [pairs] [fresh pairs] [speed|hostile]`),
 * in two parts (both unless one is named):
 *  1. speed: on a tree of 100,000 files in 101 top folders (searchTree.ts, made once and reused),
 *     each search (searchSpeed.ts) through the registry as the panel calls it and the raw `rg`
 *     giving the same result, run alternately: warm (in this process, after a first call) and
 *     fresh (each side's only call in a new process, searchFresh.ts). The ratio of each adjacent
 *     pair, median over the pairs, is reported (target ≤ 1.1);
 *  2. hostile patterns: the longest event-loop stall (monitorEventLoopDelay, 10 ms resolution)
 *     while search_files / search_text run hostile globs, regexes and exclude globs over a tree
 *     of long file names, with ripgrep and with the plain-Node fallback.
 * Prints one JSON object.
 */
const FILE_COUNT = Number(process.argv[2] ?? 100_000);
const PAIRS = Number(process.argv[3] ?? 7);
const FRESH_PAIRS = Number(process.argv[4] ?? 5);
const PART = process.argv[5];

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/**
 * Both sides of each pair, in turns: neither always meets a warmer or busier machine. Wall and
 * CPU (own and children's) ratios, each the median over the pairs: on a loaded machine the wall
 * clock mostly measures the scheduler; the CPU is what the call costs.
 */
async function alternated(pairs: number, raw: () => Promise<Timing>, tool: () => Promise<Timing>) {
  const rawRuns: Timing[] = [];
  const toolRuns: Timing[] = [];
  for (let i = 0; i < pairs; i++) {
    if (i % 2) {
      toolRuns.push(await tool());
      rawRuns.push(await raw());
    } else {
      rawRuns.push(await raw());
      toolRuns.push(await tool());
    }
  }
  return {
    rawMs: median(rawRuns.map((r) => r.ms)),
    toolbeltMs: median(toolRuns.map((r) => r.ms)),
    ratio: median(toolRuns.map((t, i) => t.ms / rawRuns[i].ms)),
    rawCpuMs: median(rawRuns.map((r) => r.cpuMs)),
    toolbeltCpuMs: median(toolRuns.map((r) => r.cpuMs)),
    cpuRatio: median(toolRuns.map((t, i) => t.cpuMs / rawRuns[i].cpuMs)),
    loadAverage: os.loadavg()[0],
  };
}

/** One timed call in a fresh Node process (searchFresh.ts). */
function freshRun(root: string, index: number, side: 'tool' | 'raw'): Promise<Timing> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(__dirname, 'searchFresh.js'), root, String(index), side], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as Timing) : reject(new Error(`searchFresh.js exited with ${code}`))));
  });
}

/**
 * Each case: its answer checked against raw rg's (the same paths, in path order, cut at the cap),
 * then timed warm (one process, after a first call of each) and fresh (each side's one call in a
 * process of its own).
 */
async function speed(rg: string, root: string) {
  const registry = panelRegistry(root, rg);
  const results = [];
  for (const [index, c] of SPEED_CASES.entries()) {
    const answer = await callTool(registry, c);
    const expected = c.expect(await runRg(rg, c.raw, root));
    const shown = c.shown(answer);
    if (JSON.stringify(shown) !== JSON.stringify(expected)) throw new Error(`${c.name}: Toolbelt's answer is not raw rg's result:\n${shown.slice(0, 5).join('\n')}\n…vs\n${expected.slice(0, 5).join('\n')}`);
    const warm = await alternated(PAIRS, () => timed(() => runRg(rg, c.raw, root)), () => timed(() => callTool(registry, c)));
    const fresh = await alternated(FRESH_PAIRS, () => freshRun(root, index, 'raw'), () => freshRun(root, index, 'tool'));
    const typed = c.typed && (await alternated(PAIRS, () => timed(() => runRg(rg, c.typed!, root)), () => timed(() => callTool(registry, c))));
    results.push({ name: c.name, raw: c.raw.join(' '), warm, fresh, typed: typed && { ...typed, args: c.typed!.join(' ') }, firstLine: answer.split('\n')[0], notice: /\[[^\]]*\]$/.exec(answer)?.[0] });
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
  let hostileResults;
  if (PART !== 'speed') {
    // The stall figures first, before the big tree and its runs grow the heap.
    const idleMaxStallMs = await idleStall(5000);
    fallbackSearchBudget.ms = 3000;
    hostileResults = { withRg: await hostile(true), withoutRg: await hostile(false), idleMaxStallMs, fallbackBudgetMs: fallbackSearchBudget.ms };
  }
  let speedResults;
  if (PART !== 'hostile') {
    const made = performance.now();
    const root = await searchTree(FILE_COUNT);
    speedResults = { tree: root, treeMs: performance.now() - made, files: FILE_COUNT, pairs: PAIRS, freshPairs: FRESH_PAIRS, cases: await speed(rg, root) };
  }
  process.stdout.write(`${JSON.stringify({ cores: os.cpus().length, loadAverage: os.loadavg(), speed: speedResults, hostile: hostileResults })}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
