// The startup part of `npm run bench` (`--only=startup`): how long the extension host's event loop
// is blocked in a window's first 8 s with Toolbelt installed as shipped (it activates on
// onStartupFinished, then does what every window does without being asked), against the same
// window with an empty extension that activates on the same event instead.
'use strict';

const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { ensureHost } = require('./host');
const { installForTiming, writeEmptyExtension, activationInHost, median, OUT } = require('./benchActivation');

/** Host runs per side (Toolbelt, empty); TOOLBELT_BENCH_STARTUP_RUNS sets more when the machine is noisy. */
const RUNS_PER_SIDE = Number(process.env.TOOLBELT_BENCH_STARTUP_RUNS || 5);

/** "A window's first 8 s", from the extension host process's start. */
const FIRST_MS = 8000;
/**
 * What every window does without being asked, after activation: from 0.5 s after the extension
 * under test was activated (VS Code activates the other onStartupFinished extensions in that
 * first half second, 30–110 ms blocks either way) to 5.5 s after. Activation itself is the
 * activation bench's (`--only=activation`).
 */
const AFTER_ACTIVATION_MS = [500, 5500];
/** How long from a background bundle's require its own blocks are looked for. */
const OWN_MS = 100;

/** TOOLBELT_BENCH_STARTUP_COMPARE=<a dist/ folder>: a third side, Toolbelt built from it (a before/after in the same conditions). */
const COMPARE_DIST = process.env.TOOLBELT_BENCH_STARTUP_COMPARE ? path.resolve(process.env.TOOLBELT_BENCH_STARTUP_COMPARE) : undefined;

/**
 * Alternates host runs of the sides, the order turning by one each round (T E, E T, …); in each,
 * the monitor extension (test/bench/eventLoopMonitor.ts, activated on `*`) samples the event loop
 * from the host's start. Reports each side's median of the longest block in two windows, and the
 * differences.
 */
async function startupBlocks() {
  const host = ensureHost();
  const sides = { toolbelt: [], empty: [], ...(COMPARE_DIST ? { compare: [] } : {}) };
  const names = Object.keys(sides);
  for (let i = 0; i < RUNS_PER_SIDE * names.length; i++) {
    const side = names[(i + Math.floor(i / names.length)) % names.length];
    const loadAverage = os.loadavg()[0];
    const run = windowsOf(await inHost(host, side).catch((error) => (console.log(`[bench] startup run ${i + 1} failed, once more: ${error.message.split('\n')[0]}`), inHost(host, side))), side);
    sides[side].push({ ...run, loadAverage: Math.max(loadAverage, os.loadavg()[0]) });
    const ownLoads = run.loads.filter((load) => !load.file.startsWith('toolbelt-bench.monitor'));
    const at = (ms) => `${(ms / 1000).toFixed(2)} s`;
    console.log(
      `[bench] startup run ${i + 1}/${RUNS_PER_SIDE * names.length} (${side}, load ${loadAverage.toFixed(1)}): longest block after activation ${run.afterActivationMs.toFixed(1)} ms (at ${at(run.afterActivationAtMs)}),` +
        ` in the first 8 s ${run.firstMs.toFixed(1)} ms (at ${at(run.firstAtMs)}), ${OWN_MS} ms from a background load ${run.ownBackgroundMs.toFixed(1)} ms; activated at ${at(run.activatedAtMs)}; loaded ${ownLoads.map((l) => `${path.basename(l.file)} at ${at(l.atMs)} in ${l.ms.toFixed(1)} ms`).join(', ')}`,
    );
  }
  const summary = (key, toolbeltSide = 'toolbelt') => {
    const toolbelt = median(sides[toolbeltSide].map((r) => r[key]));
    const empty = median(sides.empty.map((r) => r[key]));
    return { toolbeltMs: toolbelt, emptyMs: empty, overEmptyMs: toolbelt - empty, toolbeltRangeMs: range(sides[toolbeltSide].map((r) => r[key])), emptyRangeMs: range(sides.empty.map((r) => r[key])) };
  };
  const toolbeltFiles = [...new Set(sides.toolbelt.flatMap((r) => r.loads.map((l) => l.file)).filter((file) => file.startsWith('toolbelt.')).map((file) => path.basename(file)))];
  return {
    runsPerSide: RUNS_PER_SIDE,
    afterActivationWindowMs: AFTER_ACTIVATION_MS,
    afterActivation: summary('afterActivationMs'),
    firstWindowMs: FIRST_MS,
    first: summary('firstMs'),
    toolbeltFilesLoaded: toolbeltFiles,
    hostLoaded: toolbeltFiles.includes('host.js'),
    ownBackgroundMs: median(sides.toolbelt.map((r) => r.ownBackgroundMs)),
    ownBackgroundRangeMs: range(sides.toolbelt.map((r) => r.ownBackgroundMs)),
    ownWindowMs: OWN_MS,
    modelListed: sides.toolbelt.every((r) => r.toolbeltModels.length > 0),
    ...(COMPARE_DIST
      ? {
          compare: {
            dist: COMPARE_DIST,
            afterActivation: summary('afterActivationMs', 'compare'),
            first: summary('firstMs', 'compare'),
            ownBackgroundMs: median(sides.compare.map((r) => r.ownBackgroundMs)),
            ownBackgroundRangeMs: range(sides.compare.map((r) => r.ownBackgroundMs)),
          },
        }
      : {}),
    loadAverages: Object.values(sides).flat().map((r) => r.loadAverage),
    runs: sides,
  };
}

/** One host run's report with its two windows cut: the longest block in each, and when it ended. */
function windowsOf(report, side) {
  const main = side !== 'empty' ? /^toolbelt\.toolbelt-[^/]+\/dist\/extension\.js$/ : /^toolbelt-bench\.empty-[^/]+\/extension\.js$/;
  const activation = report.loads.find((load) => main.test(load.file.split(path.sep).join('/')));
  if (!activation) throw new Error(`the ${side} extension was not activated in the window (loads: ${report.loads.map((l) => l.file).join(', ')})`);
  const longest = (from, to) => report.blocks.filter((b) => b.atMs >= from && b.atMs <= to).reduce((max, b) => (b.ms > max.ms ? b : max), { ms: 0, atMs: from });
  const after = longest(activation.atMs + AFTER_ACTIVATION_MS[0], activation.atMs + AFTER_ACTIVATION_MS[1]);
  const first = longest(0, FIRST_MS);
  // Toolbelt's own part, less exposed to what else the machine runs: the blocks that overlap the
  // OWN_MS from the start of each bundle its shell loads in the background (the tasks it leaves for later included).
  const background = side !== 'empty' ? report.loads.filter((load) => /\/dist\//.test(load.file.split(path.sep).join('/')) && load !== activation) : [];
  const overlapping = (from, to) => report.blocks.filter((b) => b.atMs >= from && b.atMs - b.ms <= to).reduce((max, b) => (b.ms > max.ms ? b : max), { ms: 0, atMs: from });
  const own = background.map((load) => overlapping(load.atMs, load.atMs + OWN_MS)).reduce((max, b) => (b.ms > max.ms ? b : max), { ms: 0, atMs: 0 });
  return { ...report, activatedAtMs: activation.atMs, afterActivationMs: after.ms, afterActivationAtMs: after.atMs, firstMs: first.ms, firstAtMs: first.atMs, ownBackgroundMs: own.ms };
}

function range(values) {
  return [Math.min(...values), Math.max(...values)];
}

/** One window: the monitor plus Toolbelt as shipped, or plus the empty extension on onStartupFinished. */
async function inHost(host, side) {
  const extensions = fs.mkdtempSync(path.join(os.tmpdir(), 'toolbelt-bench-ext-'));
  const runnerParent = fs.mkdtempSync(path.join(os.tmpdir(), 'toolbelt-bench-runner-'));
  try {
    const monitor = writeEmptyExtension(extensions, 'monitor', ['*']);
    fs.copyFileSync(path.join(OUT, 'test', 'bench', 'eventLoopMonitor.js'), path.join(monitor, 'extension.js'));
    if (side === 'empty') writeEmptyExtension(extensions, 'empty', ['onStartupFinished']);
    else installForTiming(extensions, { asShipped: true, dist: side === 'compare' ? COMPARE_DIST : undefined });
    const runner = writeEmptyExtension(runnerParent, 'runner');
    return await activationInHost(host, extensions, runner, path.join(OUT, 'test', 'bench', 'startupBlocks.js'));
  } finally {
    fs.rmSync(extensions, { recursive: true, force: true });
    fs.rmSync(runnerParent, { recursive: true, force: true });
  }
}

module.exports = { startupBlocks };
