// The activation parts of `npm run bench`: Toolbelt's activate() against an empty extension (and
// against extensions holding only the registrations Toolbelt needs, the floors) in the real host,
// and the shell's own code in fresh Node processes.
'use strict';

const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');
const os = require('node:os');
const { ROOT, ensureHost, startCodeServer, copyWorkspace, chromiumLaunchOptions } = require('./host');
const { QUIET_USER_SETTINGS } = require('./extensionHost');
const { FLOORS, PUBLISHER: FLOOR_PUBLISHER, writeFloorExtension } = require('./benchFloors');

const OUT = process.env.TOOLBELT_BENCH_OUT ? path.resolve(process.env.TOOLBELT_BENCH_OUT) : path.join(ROOT, 'out');
/** Host runs for the activation figures (one Toolbelt / empty pair each). */
const HOST_RUNS = Number(process.env.TOOLBELT_BENCH_HOST_RUNS || 5);

/**
 * Activation in the real host, next to an empty extension in the same host, under two warm-ups
 * that alternate from one host run to the next (and so does the order of Toolbelt and the empty
 * extension):
 *   - cold: an empty extension takes the host's first-activation costs, so Toolbelt is the first
 *     extension in the host to register commands, views, tools and a participant, and pays for
 *     VS Code compiling that code of its own;
 *   - warm: the warm-up registers the same kinds of things first (the `warm-host` floor), as the
 *     built-in extensions and Copilot Chat of a real window have done before onStartupFinished.
 * Reports the medians of each over HOST_RUNS host runs (test/bench/index.ts does the timing).
 */
async function hostActivation() {
  const warmHost = floorId('warm-host');
  const runs = await inHosts(
    ['warm-host'],
    (i) => (Math.floor(i / 2) % 2 === 0 ? [TOOLBELT_ID, EMPTY_ID] : [EMPTY_ID, TOOLBELT_ID]),
    HOST_RUNS * 2,
    (i) => (i % 2 === 0 ? WARMUP_ID : warmHost),
  );
  return { ...summary(runs.filter((r) => r.warmup === WARMUP_ID)), warm: summary(runs.filter((r) => r.warmup === warmHost)) };
}

function summary(runs) {
  const mid = (key) => median(runs.map((r) => r[key]));
  const range = (key) => [Math.min(...runs.map((r) => r[key])), Math.max(...runs.map((r) => r[key]))];
  const last = runs[runs.length - 1];
  return {
    hostRuns: runs.length,
    activationMs: mid('activationMs'),
    activateCallMs: mid('activateCallMs'),
    emptyActivateCallMs: mid('emptyActivateCallMs'),
    bundleRequireMs: mid('bundleRequireMs'),
    overEmptyMs: mid('overEmptyMs'),
    overEmptyRangeMs: range('overEmptyMs'),
    ownCpuOverEmptyMs: mid('ownCpuOverEmptyMs'),
    ownCpuOverEmptyRangeMs: range('ownCpuOverEmptyMs'),
    loadCpuMs: mid('loadCpuMs'),
    activateCpuMs: mid('activateCpuMs'),
    emptyLoadCpuMs: mid('emptyLoadCpuMs'),
    emptyActivateCpuMs: mid('emptyActivateCpuMs'),
    ownOverEmptyMs: mid('ownOverEmptyMs'),
    ownOverEmptyRangeMs: range('ownOverEmptyMs'),
    loadMs: mid('loadMs'),
    activateMs: mid('activateMs'),
    emptyLoadMs: mid('emptyLoadMs'),
    emptyActivateMs: mid('emptyActivateMs'),
    busyOverEmptyMs: mid('busyOverEmptyMs'),
    backgroundFile: last.backgroundFile,
    backgroundLoadMs: mid('backgroundLoadMs'),
    backgroundStartMs: mid('backgroundStartMs'),
    backgroundCpuMs: mid('backgroundCpuMs'),
    backgroundRangeMs: range('backgroundTotalMs'),
    busyOverEmptyRangeMs: range('busyOverEmptyMs'),
    loadedFiles: last.loadedFiles,
    loadedBytes: last.loadedBytes,
    chatBundleLoaded: runs.some((r) => r.chatBundleLoaded),
    loadAverages: runs.map((r) => r.loadAverage),
    runs,
  };
}

const TOOLBELT_ID = 'toolbelt.toolbelt';
const EMPTY_ID = `${FLOOR_PUBLISHER}.empty`;
const WARMUP_ID = `${FLOOR_PUBLISHER}.warmup`;
const floorId = (name) => `${FLOOR_PUBLISHER}.${name}`;

/**
 * The floors (`--only=activation-floors`): what VS Code itself charges for the registrations
 * Toolbelt must make at activation, timed in the same host as Toolbelt. Host runs cycle through
 * three plans, each in an order that alternates over the runs:
 *   - each surface alone (tree view, webview view, 13 tools, the participant, the commands) and
 *     the empty extension: none shares VS Code's code with another, so each pays its first use;
 *     then all of them together (floor-all), now with VS Code's code warm;
 *   - Toolbelt and the empty extension, then floor-all (warm);
 *   - floor-all and the empty extension, then Toolbelt (warm) and floor-all-again (warm).
 * Toolbelt minus floor-all, both cold or both warm, is what Toolbelt's own code costs.
 */
async function hostActivationFloors() {
  const singles = ['floor-tree', 'floor-webview', 'floor-tools', 'floor-participant', 'floor-commands'].map(floorId);
  const plans = [
    (n) => [...rotate([...singles, EMPTY_ID], n), floorId('floor-all'), floorId('floor-treeprovider')],
    (n) => [...(n % 2 === 0 ? [TOOLBELT_ID, EMPTY_ID] : [EMPTY_ID, TOOLBELT_ID]), floorId('floor-all')],
    (n) => [...(n % 2 === 0 ? [floorId('floor-all'), EMPTY_ID] : [EMPTY_ID, floorId('floor-all')]), TOOLBELT_ID, floorId('floor-all-again')],
  ];
  const runs = await inHosts(Object.keys(FLOORS), (i) => plans[i % plans.length](Math.floor(i / plans.length)), HOST_RUNS * plans.length);
  const byPlan = plans.map((_, p) => runs.filter((_, i) => i % plans.length === p));
  const stats = (planRuns, id) => {
    const own = (m) => m.loadMs + m.activateMs;
    const ownCpu = (m) => m.loadCpuMs + m.activateCpuMs;
    const loadAndActivate = planRuns.map((r) => own(r.measured[id]) - own(r.measured[EMPTY_ID]));
    const loadAndActivateCpu = planRuns.map((r) => ownCpu(r.measured[id]) - ownCpu(r.measured[EMPTY_ID]));
    const call = planRuns.map((r) => r.measured[id].activateCallMs - r.measured[EMPTY_ID].activateCallMs);
    const busy = planRuns.map((r) => r.measured[id].busyMs - r.measured[EMPTY_ID].busyMs);
    return {
      ownCpuOverEmptyMs: median(loadAndActivateCpu),
      ownCpuOverEmptyRangeMs: [Math.min(...loadAndActivateCpu), Math.max(...loadAndActivateCpu)],
      loadCpuMs: median(planRuns.map((r) => r.measured[id].loadCpuMs)),
      activateCpuMs: median(planRuns.map((r) => r.measured[id].activateCpuMs)),
      ownOverEmptyMs: median(loadAndActivate),
      ownOverEmptyRangeMs: [Math.min(...loadAndActivate), Math.max(...loadAndActivate)],
      loadMs: median(planRuns.map((r) => r.measured[id].loadMs)),
      activateMs: median(planRuns.map((r) => r.measured[id].activateMs)),
      overEmptyMs: median(call), overEmptyRangeMs: [Math.min(...call), Math.max(...call)], busyOverEmptyMs: median(busy), busyOverEmptyRangeMs: [Math.min(...busy), Math.max(...busy)] };
  };
  const rows = {};
  for (const id of singles) rows[`${id} (cold)`] = stats(byPlan[0], id);
  rows['floor-all (warm, after the singles)'] = stats(byPlan[0], floorId('floor-all'));
  rows['floor-treeprovider (warm)'] = stats(byPlan[0], floorId('floor-treeprovider'));
  rows['Toolbelt (cold)'] = stats(byPlan[1], TOOLBELT_ID);
  rows['floor-all (warm, after Toolbelt)'] = stats(byPlan[1], floorId('floor-all'));
  rows['floor-all (cold)'] = stats(byPlan[2], floorId('floor-all'));
  rows['Toolbelt (warm, after floor-all)'] = stats(byPlan[2], TOOLBELT_ID);
  rows['floor-all-again (warm)'] = stats(byPlan[2], floorId('floor-all-again'));
  return { hostRunsPerPlan: byPlan.map((p) => p.length), rows, loadAverages: runs.map((r) => r.loadAverage), runs };
}

function rotate(list, by) {
  const k = by % list.length;
  return [...list.slice(k), ...list.slice(0, k)];
}

/**
 * `runCount` code-server hosts with Toolbelt, the empty extensions and the `floors` installed;
 * `orderOf(i)` says which extensions host run i times, in which order, after the (untimed)
 * `warmupOf(i)`. Resolves with the reports.
 */
async function inHosts(floors, orderOf, runCount = HOST_RUNS, warmupOf = () => WARMUP_ID) {
  const host = ensureHost();
  const runs = [];
  const extensions = fs.mkdtempSync(path.join(os.tmpdir(), 'toolbelt-bench-ext-'));
  const runnerParent = fs.mkdtempSync(path.join(os.tmpdir(), 'toolbelt-bench-runner-'));
  try {
    // All are installed extensions, loaded alike; the suite runs from one more, under development.
    const manifest = installForTiming(extensions);
    const empty = writeEmptyExtension(extensions, 'empty');
    writeEmptyExtension(extensions, 'warmup');
    for (const name of floors) writeFloorExtension(extensions, name, manifest);
    const runner = writeEmptyExtension(runnerParent, 'runner');
    for (let i = 0; i < runCount; i++) {
      const order = orderOf(i);
      const warmup = warmupOf(i);
      fs.writeFileSync(path.join(empty, 'bench-order.json'), JSON.stringify({ order, warmup }));
      const loadAverage = os.loadavg()[0];
      const report = await activationInHost(host, extensions, runner);
      runs.push({ ...report, loadAverage: Math.max(loadAverage, os.loadavg()[0]) });
      console.log(`[bench] host run ${i + 1}/${runCount} (load ${loadAverage.toFixed(1)}, after ${warmup.replace(/^.*\./, '')}): ${order.map((id) => `${id.replace(/^.*\./, '')} ${timesOf(report.measured[id])}`).join(', ')} ms (load+activate CPU/load+activate wall/whole call/busy)`);
    }
  } finally {
    fs.rmSync(extensions, { recursive: true, force: true });
    fs.rmSync(runnerParent, { recursive: true, force: true });
  }
  return runs;
}

/**
 * The shell's own code, apart from VS Code: dist/extension.js loaded and activated in fresh Node
 * processes against a stand-in `vscode` whose registrations cost nothing, next to the same
 * registrations written plainly (test/bench/shellActivation.ts), in alternated pairs.
 */
function shellCodeCost() {
  const PAIRS = 25;
  const side = (name) => {
    const result = spawnSync(process.execPath, [path.join(OUT, 'test', 'bench', 'shellActivation.js'), name, ROOT], { encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`the shell's ${name} side failed:\n${result.stderr}`);
    return JSON.parse(result.stdout);
  };
  const toolbelt = [];
  const floor = [];
  for (let i = 0; i < PAIRS; i++) {
    if (i % 2) {
      toolbelt.push(side('toolbelt'));
      floor.push(side('floor'));
    } else {
      floor.push(side('floor'));
      toolbelt.push(side('toolbelt'));
    }
  }
  const mid = (runs, key) => median(runs.map((r) => r[key]));
  return { pairs: PAIRS, toolbeltMs: mid(toolbelt, 'totalMs'), toolbeltLoadMs: mid(toolbelt, 'loadMs'), toolbeltCpuMs: mid(toolbelt, 'cpuMs'), floorMs: mid(floor, 'totalMs'), floorCpuMs: mid(floor, 'cpuMs'), loadAverage: os.loadavg()[0] };
}

/**
 * Toolbelt as the bench installs it: the real package.json without `onStartupFinished` (the host
 * would activate it by itself before the bench could time it), and copies of dist/ and media/.
 * activate() runs the same code whatever event triggered it.
 */
function installForTiming(extensionsDir, { asShipped = false, dist: distDir } = {}) {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const dir = path.join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  fs.mkdirSync(dir);
  // asShipped: activation events as in the .vsix (the startup bench lets the host activate it as in any window).
  if (!asShipped) pkg.activationEvents = pkg.activationEvents.filter((event) => event !== 'onStartupFinished');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  // TOOLBELT_BENCH_DIST: another build's dist/ (a before/after comparison in the same conditions).
  const dist = distDir ?? (process.env.TOOLBELT_BENCH_DIST ? path.resolve(process.env.TOOLBELT_BENCH_DIST) : path.join(ROOT, 'dist'));
  // Copies, not links: the host resolves a linked main file to its real path, a cost no installed extension pays.
  fs.cpSync(dist, path.join(dir, 'dist'), { recursive: true });
  fs.cpSync(path.join(ROOT, 'media'), path.join(dir, 'media'), { recursive: true });
  return pkg;
}

/**
 * A do-nothing extension installed for the host to activate next to Toolbelt. It loads the `vscode`
 * API, as every real extension does (the host builds that object per extension on first require).
 */
function writeEmptyExtension(extensionsDir, name, activationEvents = []) {
  const dir = path.join(extensionsDir, `toolbelt-bench.${name}-0.0.1`);
  fs.mkdirSync(dir);
  const manifest = { name, publisher: 'toolbelt-bench', version: '0.0.1', engines: { vscode: '^1.99.0' }, main: './extension.js', activationEvents };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  fs.writeFileSync(path.join(dir, 'extension.js'), "'use strict';\nrequire('vscode');\nexports.activate = () => ({});\n");
  return dir;
}

/**
 * One code-server host with the extensions of `extensionsDir` installed, running the in-host
 * bench entry `tests` (test/bench/index.ts unless told) from `runner`; resolves with its BENCH report.
 */
async function activationInHost(host, extensionsDir, runner, tests = path.join(OUT, 'test', 'bench', 'index.js')) {
  const workspace = copyWorkspace(path.join(ROOT, 'test', 'fixtures', 'workspace'));
  const server = await startCodeServer(host, { smokeTestDriver: true, userSettings: QUIET_USER_SETTINGS, extensionsDir });
  const browser = await chromium.launch(chromiumLaunchOptions(host));
  try {
    const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = [
      ['extensionDevelopmentPath', remote(runner)],
      ['extensionTestsPath', remote(tests)],
    ];
    const page = await browser.newPage();
    let report;
    const lines = [];
    const exited = new Promise((resolve) => page.exposeFunction('codeAutomationExit', resolve));
    await page.exposeFunction('codeAutomationLog', (_type, args) => {
      const text = (Array.isArray(args) ? args : [args]).map(String).join(' ');
      lines.push(text);
      const match = /^BENCH (.*)$/.exec(text);
      if (match) report = JSON.parse(match[1]);
    });
    // A busy machine (2 cores, tests running beside) can take longer than playwright's 30 s to load the workbench.
    await page.goto(`${server.url}/?folder=${encodeURIComponent(workspace)}&payload=${encodeURIComponent(JSON.stringify(payload))}`, { timeout: 180_000 });
    let timer;
    const code = await Promise.race([exited, new Promise((resolve) => (timer = setTimeout(() => resolve('timeout'), 5 * 60_000)))]);
    clearTimeout(timer);
    if (code !== 0 || !report) throw new Error(`the activation bench failed in the host (${code}):\n${lines.slice(-30).join('\n')}\n${server.tail(30)}`);
    return report;
  } finally {
    await browser.close().catch(() => undefined);
    await server.stop();
    fs.rmSync(path.dirname(workspace), { recursive: true, force: true });
  }
}

function timesOf(m) {
  return `${m.loadCpuMs.toFixed(1)}+${m.activateCpuMs.toFixed(1)}/${m.loadMs.toFixed(1)}+${m.activateMs.toFixed(1)}/${m.activateCallMs.toFixed(1)}/${m.busyMs.toFixed(1)}`;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

module.exports = { hostActivation, hostActivationFloors, shellCodeCost, median, installForTiming, writeEmptyExtension, activationInHost, OUT };
