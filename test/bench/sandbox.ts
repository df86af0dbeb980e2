import { promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ToolRegistry } from '../../src/tools/registry';
import { sandboxAvailability } from '../../src/tools/sandbox/sandboxAvailability';
import { contextFor } from '../support/workspace';

/**
 * The sandbox's cost per command for `npm run bench` (`node out/test/bench/sandbox.js [pairs]`):
 * run_bash `true` with the sandbox (the default) and without it (`mode: 'off'`), alternated in
 * pairs, in a generated workspace of 500 folders and 5,000 files (a `.env` among them) beside a
 * node_modules of 2,000 folders. Prints JSON.
 */
const PAIRS = Number(process.argv[2] ?? 100);
const WARMUP = 10;

async function makeWorkspace(root: string): Promise<{ folders: number; files: number }> {
  let folders = 0;
  let files = 0;
  for (let a = 0; a < 20; a++) {
    for (let b = 0; b < 25; b++) {
      const dir = path.join(root, `src${a}`, `mod${b}`);
      await fs.mkdir(dir, { recursive: true });
      folders++;
      for (let f = 0; f < 10; f++, files++) await fs.writeFile(path.join(dir, `file${f}.ts`), 'export {};\n');
    }
  }
  await fs.writeFile(path.join(root, '.env'), 'KEY=value\n');
  for (let p = 0; p < 2000; p++) await fs.mkdir(path.join(root, 'node_modules', `pkg${p}`, 'lib'), { recursive: true });
  return { folders, files };
}

async function timeOnce(registry: ToolRegistry): Promise<number> {
  const started = performance.now();
  const result = await registry.execute('run_bash', { command: 'true' });
  const ms = performance.now() - started;
  if (!result.startsWith('Exit code: 0')) throw new Error(`run_bash failed: ${result}`);
  return ms;
}

const quantile = (values: number[], q: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))];
const round = (ms: number) => Math.round(ms * 100) / 100;

async function main(): Promise<void> {
  const availability = await sandboxAvailability();
  if (!availability.available) throw new Error(`no sandbox here: ${availability.detail}`);
  const root = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-bench-sandbox-')));
  try {
    const tree = await makeWorkspace(root);
    const sandboxed = createDefaultToolRegistry(contextFor(root));
    const plain = createDefaultToolRegistry(contextFor(root, { sandbox: { mode: 'off', network: 'off' } }));
    sandboxed.enable('run_bash');
    plain.enable('run_bash');
    for (let i = 0; i < WARMUP; i++) {
      await timeOnce(sandboxed);
      await timeOnce(plain);
    }
    const { first: withSandbox, second: without, differences } = await alternate(sandboxed, plain, PAIRS);
    // The allow-list over network off, in the same workspace: its proxy and relay are kept between commands.
    const allowlist = createDefaultToolRegistry(contextFor(root, { sandbox: { mode: 'auto', network: 'allowlist', allowedDomains: ['registry.npmjs.org'] } }));
    allowlist.enable('run_bash');
    for (let i = 0; i < WARMUP; i++) await timeOnce(allowlist);
    const network = await alternate(allowlist, sandboxed, Math.ceil(PAIRS / 2));
    const report = {
      pairs: PAIRS,
      engine: availability.engine,
      workspace: { ...tree, nodeModulesFolders: 2000 },
      sandboxedMedianMs: round(quantile(withSandbox, 0.5)),
      plainMedianMs: round(quantile(without, 0.5)),
      overheadMedianMs: round(quantile(differences, 0.5)),
      overheadP90Ms: round(quantile(differences, 0.9)),
      allowlistPairs: network.differences.length,
      allowlistMedianMs: round(quantile(network.first, 0.5)),
      allowlistOverNetworkOffMedianMs: round(quantile(network.differences, 0.5)),
      allowlistOverNetworkOffP90Ms: round(quantile(network.differences, 0.9)),
      cores: os.cpus().length,
      loadAverage: os.loadavg()[0],
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

/** `pairs` alternated runs of two registries (which goes first alternates): each one's times and their differences. */
async function alternate(a: ToolRegistry, b: ToolRegistry, pairs: number): Promise<{ first: number[]; second: number[]; differences: number[] }> {
  const first: number[] = [];
  const second: number[] = [];
  const differences: number[] = [];
  for (let i = 0; i < pairs; i++) {
    let x: number;
    let y: number;
    if (i % 2 === 0) {
      x = await timeOnce(a);
      y = await timeOnce(b);
    } else {
      y = await timeOnce(b);
      x = await timeOnce(a);
    }
    first.push(x);
    second.push(y);
    differences.push(x - y);
  }
  return { first, second, differences };
}

main().catch((error: Error) => {
  process.stderr.write(`${error.stack ?? error.message}\n`);
  process.exitCode = 1;
});
