// `npm run bench`: measures, in one real run, what the README promises and the targets ask for.
//   - activation in a real VS Code extension host (code-server), and the code it loads
//   - bundle and .vsix sizes
//   - the Agent's overhead per tool round against the scripted model server, compared with a
//     bare `openai` SDK loop doing the same work in the same run
//   - the chat panel's render cost for a long streamed answer, in headless Chromium
//   - search_text / search_files against raw ripgrep on a generated 100,000-file tree, and the
//     longest event-loop stall over hostile search patterns (test/bench/search.ts)
//   - read_file near the end of a 100 MB file: bytes read and time (test/bench/readFile.ts)
//   - one tools/call round trip to a stdio MCP server (test/bench/mcp.ts, the fixture server)
// Prints a table and writes test-results/bench.json. Expects `npm run build` and
// `npm run compile-tests` to have run (the npm script does both).
'use strict';
/* global window, document, requestAnimationFrame, MutationObserver -- page.evaluate bodies run in Chromium */

const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const { chromium } = require('playwright-core');
const os = require('node:os');
const { ROOT, ensureHost, startCodeServer, copyWorkspace, chromiumLaunchOptions } = require('./lib/host');
const { QUIET_USER_SETTINGS } = require('./lib/extensionHost');
const { FLOORS, PUBLISHER: FLOOR_PUBLISHER, writeFloorExtension } = require('./lib/benchFloors');

// Compiled tests; TOOLBELT_BENCH_OUT points elsewhere (e.g. a helper's own tsc output folder).
const OUT = process.env.TOOLBELT_BENCH_OUT ? path.resolve(process.env.TOOLBELT_BENCH_OUT) : path.join(ROOT, 'out');
/** Host runs for the activation figures (one Toolbelt / empty pair each). */
const HOST_RUNS = Number(process.env.TOOLBELT_BENCH_HOST_RUNS || 5);
const KB = 1024;

const TARGETS = {
  overheadRatio: 1.05,
  activationMs: 50,
  /** activate() as the host runs it, over an empty extension's in the same host. */
  activationOverEmptyMs: 5,
  activationLoadedKB: 100,
  extensionBundleKB: 100,
  vsixKB: 1.5 * 1024,
  searchRatio: 1.2,
  hostileStallMs: 100,
};

/** `node scripts/bench.js [--only=agent,activation,...]`: a part alone, while working on it. */
const ONLY = (process.argv.find((arg) => arg.startsWith('--only='))?.slice('--only='.length).split(',') ?? []).filter(Boolean);
const part = (name) => ONLY.length === 0 || ONLY.includes(name);

async function main() {
  const results = {};
  results.bundles = bundleSizes();
  if (part('vsix')) results.vsixBytes = packageVsix();
  if (part('agent')) results.agent = await agentOverhead();
  if (part('render')) results.render = await renderCost();
  if (part('search')) results.search = searchBench();
  if (part('readfile')) results.readFile = readFileBench();
  if (part('mcp')) results.mcp = mcpBench();
  if (part('activation')) results.activation = await hostActivation();
  if (ONLY.includes('activation-floors')) results.activationFloors = await hostActivationFloors();
  if (part('shell')) results.shellCode = shellCodeCost();
  // A partial run (--only) writes apart, so bench.json always holds a whole run.
  const file = path.join(ROOT, 'test-results', ONLY.length ? `bench-${ONLY.join('-')}.json` : 'bench.json');
  report(results, file);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(results, null, 2));
}

function bundleSizes() {
  const sizes = {};
  const built = fs.readdirSync(path.join(ROOT, 'dist')).filter((file) => /\.(js|css)$/.test(file));
  for (const file of ['extension.js', ...built.filter((file) => file !== 'extension.js')]) {
    sizes[file] = fs.statSync(path.join(ROOT, 'dist', file)).size;
  }
  return sizes;
}

function packageVsix() {
  const vsix = path.join(ROOT, 'dist', 'toolbelt.vsix');
  fs.rmSync(vsix, { force: true });
  const vsce = path.join(ROOT, 'node_modules', '.bin', 'vsce');
  const result = spawnSync(vsce, ['package', '--no-dependencies', '--allow-missing-repository', '--no-rewrite-relative-links', '--out', vsix], { cwd: ROOT, encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`vsce package failed:\n${result.stdout}\n${result.stderr}`);
  return fs.statSync(vsix).size;
}

/**
 * Agent vs a hand-written loop on the bare SDK: same server, same rounds, same tool. Each side
 * runs in fresh processes of its own (no shared JIT or GC state) against the scripted server in
 * another process. The sides run in adjacent pairs, so the machine's drift cancels out of each
 * pair's ratio; the ratio reported is the median over the pairs.
 */
async function agentOverhead() {
  const ROUNDS = 20;
  const PAIRS = 40;
  // Turns per process: the first WARMUP ones let the JIT settle, the median of the rest counts.
  const WARMUP = 6;
  const REPEATS = 11;
  const server = spawn(process.execPath, [path.join(OUT, 'test', 'bench', 'modelServerProcess.js'), String(ROUNDS)], { stdio: ['ignore', 'pipe', 'inherit'] });
  try {
    const baseURL = await new Promise((resolve, reject) => {
      server.stdout.once('data', (data) => resolve(String(data).trim()));
      server.once('exit', (code) => reject(new Error(`the model server exited with ${code}`)));
    });
    const side = (variant) => {
      const result = spawnSync(process.execPath, [path.join(OUT, 'test', 'bench', 'agentLoop.js'), variant, baseURL, String(ROUNDS), String(WARMUP), String(REPEATS)], { encoding: 'utf8' });
      if (result.status !== 0) throw new Error(`the ${variant} loop failed:\n${result.stderr}`);
      return JSON.parse(result.stdout);
    };
    const agent = [];
    const bare = [];
    for (let i = 0; i < PAIRS; i++) {
      // Alternate which goes first, so neither always meets a warmer or busier machine.
      if (i % 2) {
        agent.push(side('agent'));
        bare.push(side('bare'));
      } else {
        bare.push(side('bare'));
        agent.push(side('agent'));
      }
    }
    const perRound = (runs, key) => median(runs.map((r) => r[key])) / (ROUNDS + 1);
    const agentMs = perRound(agent, 'wallMs');
    const bareMs = perRound(bare, 'wallMs');
    const agentCpu = perRound(agent, 'cpuMs');
    const bareCpu = perRound(bare, 'cpuMs');
    const pairRatio = (key) => median(agent.map((run, i) => run[key] / bare[i][key]));
    return {
      rounds: ROUNDS + 1,
      pairs: PAIRS,
      turnsPerProcess: { warmup: WARMUP, measured: REPEATS },
      agentMsPerRound: agentMs,
      bareSdkMsPerRound: bareMs,
      ratio: pairRatio('wallMs'),
      agentCpuMsPerRound: agentCpu,
      bareSdkCpuMsPerRound: bareCpu,
      cpuRatio: pairRatio('cpuMs'),
    };
  } finally {
    server.kill('SIGTERM');
  }
}

/** Runs test/bench/search.ts in a process of its own; it prints one JSON object. */
function searchBench() {
  const result = spawnSync(process.execPath, [path.join(OUT, 'test', 'bench', 'search.js')], { encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (result.status !== 0) throw new Error(`the search bench failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Runs test/bench/readFile.ts (read_file windows of a 100 MB file) in a process of its own. */
function readFileBench() {
  const result = spawnSync(process.execPath, [path.join(OUT, 'test', 'bench', 'readFile.js')], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the read_file bench failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Runs test/bench/mcp.ts (tools/call round trips to the stdio fixture server) in a process of its own. */
function mcpBench() {
  const result = spawnSync(process.execPath, [path.join(OUT, 'test', 'bench', 'mcp.js'), '500'], { encoding: 'utf8' });
  if (result.status !== 0) throw new Error(`the MCP bench failed:\n${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** Streams a long answer into the real panel script after 60 earlier items, in Chromium. */
async function renderCost() {
  const host = ensureHost();
  const browser = await chromium.launch(chromiumLaunchOptions(host));
  try {
    const page = await browser.newPage();
    const js = fs.readFileSync(path.join(ROOT, 'dist', 'webview.js'), 'utf8');
    const css = fs.readFileSync(path.join(ROOT, 'dist', 'webview.css'), 'utf8');
    await page.setContent(`<!DOCTYPE html><html><head><style>${css}</style></head><body><div id="toolbelt-chat"></div></body></html>`);
    await page.evaluate(() => {
      window.acquireVsCodeApi = () => ({ postMessage() {}, getState: () => undefined, setState() {} });
    });
    await page.addScriptTag({ content: js });
    return await page.evaluate(async () => {
      const DELTAS = 3000;
      const frame = () => new Promise((resolve) => requestAnimationFrame(() => resolve()));
      const items = [];
      for (let i = 0; i < 60; i++) {
        if (i % 3 === 0) items.push({ kind: 'user', id: `u${i}`, text: `Question ${i}` });
        else if (i % 3 === 1) items.push({ kind: 'tool', id: `t${i}`, name: 'read_file', arguments: '{"path":"src/a.ts"}', status: 'ok', result: 'x'.repeat(400), durationMs: 3 });
        else items.push({ kind: 'assistant', id: `a${i}`, text: `Answer ${i} with **markdown**, a list:\n\n- one\n- two\n\n\`\`\`ts\nconst x = ${i};\n\`\`\`` });
      }
      window.postMessage({ type: 'state', state: { conversationId: 'c', title: 't', items, busy: true, provider: 'openai', model: 'm', activeTools: [] } }, '*');
      await frame();
      await frame();
      window.postMessage({ type: 'item', item: { kind: 'assistant', id: 'live', text: '', streaming: true } }, '*');
      await frame();
      const transcript = document.querySelector('.transcript');
      const live = [...transcript.children].at(-1);
      let outside = 0;
      let liveRenders = 0;
      const observer = new MutationObserver((records) => {
        for (const record of records) {
          if (live.contains(record.target)) {
            if (record.target.classList?.contains('markdown') && record.type === 'childList') liveRenders++;
          } else outside++;
        }
      });
      observer.observe(transcript, { childList: true, subtree: true, characterData: true, attributes: true });
      const started = performance.now();
      for (let i = 0; i < DELTAS; i++) {
        const text = i % 50 === 49 ? '\n\n' : i % 200 === 100 ? '\n\n```js\nconsole.log(1);\n```\n\n' : `word${i} `;
        window.postMessage({ type: 'text', itemId: 'live', text }, '*');
      }
      window.postMessage({ type: 'text', itemId: 'live', text: ' THE-END' }, '*');
      while (!live.textContent.includes('THE-END')) await frame();
      const totalMs = performance.now() - started;
      observer.disconnect();
      return { earlierItems: items.length, deltas: DELTAS + 1, answerChars: live.textContent.length, totalMs, msPerDelta: totalMs / (DELTAS + 1), liveRenders, mutationsOutsideLiveItem: outside };
    });
  } finally {
    await browser.close();
  }
}

/**
 * Activation in the real host, next to an empty extension in the same host: a throwaway empty
 * extension takes the host's first-activation costs, then Toolbelt and a second empty extension
 * are activated, in an order that alternates from one host run to the next. Reports the medians
 * over HOST_RUNS warm hosts (test/bench/index.ts does the timing inside the host).
 */
async function hostActivation() {
  const runs = await inHosts([], (i) => (i % 2 === 0 ? [TOOLBELT_ID, EMPTY_ID] : [EMPTY_ID, TOOLBELT_ID]));
  const mid = (key) => median(runs.map((r) => r[key]));
  const last = runs[runs.length - 1];
  return {
    hostRuns: runs.length,
    activationMs: mid('activationMs'),
    activateCallMs: mid('activateCallMs'),
    emptyActivateCallMs: mid('emptyActivateCallMs'),
    bundleRequireMs: mid('bundleRequireMs'),
    overEmptyMs: mid('overEmptyMs'),
    overEmptyRangeMs: [Math.min(...runs.map((r) => r.overEmptyMs)), Math.max(...runs.map((r) => r.overEmptyMs))],
    ownCpuOverEmptyMs: mid('ownCpuOverEmptyMs'),
    ownCpuOverEmptyRangeMs: [Math.min(...runs.map((r) => r.ownCpuOverEmptyMs)), Math.max(...runs.map((r) => r.ownCpuOverEmptyMs))],
    loadCpuMs: mid('loadCpuMs'),
    activateCpuMs: mid('activateCpuMs'),
    emptyLoadCpuMs: mid('emptyLoadCpuMs'),
    emptyActivateCpuMs: mid('emptyActivateCpuMs'),
    ownOverEmptyMs: mid('ownOverEmptyMs'),
    ownOverEmptyRangeMs: [Math.min(...runs.map((r) => r.ownOverEmptyMs)), Math.max(...runs.map((r) => r.ownOverEmptyMs))],
    loadMs: mid('loadMs'),
    activateMs: mid('activateMs'),
    emptyLoadMs: mid('emptyLoadMs'),
    emptyActivateMs: mid('emptyActivateMs'),
    busyOverEmptyMs: mid('busyOverEmptyMs'),
    busyOverEmptyRangeMs: [Math.min(...runs.map((r) => r.busyOverEmptyMs)), Math.max(...runs.map((r) => r.busyOverEmptyMs))],
    loadedFiles: last.loadedFiles,
    loadedBytes: last.loadedBytes,
    chatBundleLoaded: runs.some((r) => r.chatBundleLoaded),
    loadAverages: runs.map((r) => r.loadAverage),
    runs,
  };
}

const TOOLBELT_ID = 'toolbelt.toolbelt';
const EMPTY_ID = `${FLOOR_PUBLISHER}.empty`;
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
 * `orderOf(i)` says which extensions host run i times, in which order. Resolves with the reports.
 */
async function inHosts(floors, orderOf, runCount = HOST_RUNS) {
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
      fs.writeFileSync(path.join(empty, 'bench-order.json'), JSON.stringify({ order }));
      const loadAverage = os.loadavg()[0];
      const report = await activationInHost(host, extensions, runner);
      runs.push({ ...report, loadAverage: Math.max(loadAverage, os.loadavg()[0]) });
      console.log(`[bench] host run ${i + 1}/${runCount} (load ${loadAverage.toFixed(1)}): ${order.map((id) => `${id.replace(/^.*\./, '')} ${timesOf(report.measured[id])}`).join(', ')} ms (load+activate CPU/load+activate wall/whole call/busy)`);
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
 * would activate it by itself before the bench could time it), the real dist/ and media/ linked.
 * activate() runs the same code whatever event triggered it.
 */
function installForTiming(extensionsDir) {
  const pkg = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8'));
  const dir = path.join(extensionsDir, `${pkg.publisher}.${pkg.name}-${pkg.version}`);
  fs.mkdirSync(dir);
  pkg.activationEvents = pkg.activationEvents.filter((event) => event !== 'onStartupFinished');
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(pkg, null, 2));
  // TOOLBELT_BENCH_DIST: another build's dist/ (a before/after comparison in the same conditions).
  const dist = process.env.TOOLBELT_BENCH_DIST ? path.resolve(process.env.TOOLBELT_BENCH_DIST) : path.join(ROOT, 'dist');
  fs.symlinkSync(dist, path.join(dir, 'dist'), 'dir');
  fs.symlinkSync(path.join(ROOT, 'media'), path.join(dir, 'media'), 'dir');
  return pkg;
}

/**
 * A do-nothing extension installed for the host to activate next to Toolbelt. It loads the `vscode`
 * API, as every real extension does (the host builds that object per extension on first require).
 */
function writeEmptyExtension(extensionsDir, name) {
  const dir = path.join(extensionsDir, `toolbelt-bench.${name}-0.0.1`);
  fs.mkdirSync(dir);
  const manifest = { name, publisher: 'toolbelt-bench', version: '0.0.1', engines: { vscode: '^1.99.0' }, main: './extension.js', activationEvents: [] };
  fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify(manifest));
  fs.writeFileSync(path.join(dir, 'extension.js'), "'use strict';\nrequire('vscode');\nexports.activate = () => ({});\n");
  return dir;
}

/** One code-server host with Toolbelt and the empty ones installed; resolves with the BENCH report. */
async function activationInHost(host, extensionsDir, runner) {
  const workspace = copyWorkspace(path.join(ROOT, 'test', 'fixtures', 'workspace'));
  const server = await startCodeServer(host, { smokeTestDriver: true, userSettings: QUIET_USER_SETTINGS, extensionsDir });
  const browser = await chromium.launch(chromiumLaunchOptions(host));
  try {
    const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = [
      ['extensionDevelopmentPath', remote(runner)],
      ['extensionTestsPath', remote(path.join(OUT, 'test', 'bench', 'index.js'))],
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

function report(r, file) {
  const ms = (value) => `${value.toFixed(1)} ms`;
  const act = r.activation;
  const agent = r.agent;
  const rows = [
    ...(act
      ? [
          ['activation (inside activate())', ms(act.activationMs), `≤ ${TARGETS.activationMs} ms`, act.activationMs <= TARGETS.activationMs],
          [`activate() from the host, Toolbelt vs an empty extension (median of ${act.hostRuns} host runs)`, `${ms(act.activateCallMs)} vs ${ms(act.emptyActivateCallMs)}`, '', undefined],
          ['of which loading dist/extension.js (required again, fresh)', ms(act.bundleRequireMs), '', undefined],
          ['load + activate() over an empty extension, CPU time of the host process', `${ms(act.ownCpuOverEmptyMs)} (runs: ${act.ownCpuOverEmptyRangeMs.map((v) => v.toFixed(1)).join('–')} ms; Toolbelt ${ms(act.loadCpuMs)} + ${ms(act.activateCpuMs)}, empty ${ms(act.emptyLoadCpuMs)} + ${ms(act.emptyActivateCpuMs)})`, `≤ ${TARGETS.activationOverEmptyMs} ms`, act.ownCpuOverEmptyMs <= TARGETS.activationOverEmptyMs],
          ['load + activate() over an empty extension, wall time (timed around the host\'s require and activate call)', `${ms(act.ownOverEmptyMs)} (runs: ${act.ownOverEmptyRangeMs.map((v) => v.toFixed(1)).join('–')} ms; Toolbelt ${ms(act.loadMs)} + ${ms(act.activateMs)}, empty ${ms(act.emptyLoadMs)} + ${ms(act.emptyActivateMs)})`, `≤ ${TARGETS.activationOverEmptyMs} ms`, act.ownOverEmptyMs <= TARGETS.activationOverEmptyMs],
          ['extension.activate() over an empty extension (with the storage round trips to the workbench)', `${ms(act.overEmptyMs)} (runs: ${act.overEmptyRangeMs.map((v) => v.toFixed(1)).join('–')} ms)`, `≤ ${TARGETS.activationOverEmptyMs} ms`, act.overEmptyMs <= TARGETS.activationOverEmptyMs],
          ['of that, the extension host busy (not waiting for the workbench), over the empty one', `${ms(act.busyOverEmptyMs)} (runs: ${act.busyOverEmptyRangeMs.map((v) => v.toFixed(1)).join('–')} ms)`, '', undefined],
          ['load average (1 min) during the host runs', act.loadAverages.map((v) => v.toFixed(1)).join(', '), '', undefined],
          ['code loaded at activation', `${(act.loadedBytes / KB).toFixed(1)} KB (${act.loadedFiles.join(', ')})`, `≤ ${TARGETS.activationLoadedKB} KB`, act.loadedBytes / KB <= TARGETS.activationLoadedKB && !act.chatBundleLoaded],
          ['chat bundle loaded at activation', String(act.chatBundleLoaded), 'false', !act.chatBundleLoaded],
        ]
      : []),
    ...(r.activationFloors
      ? [
          ...Object.entries(r.activationFloors.rows).map(([name, row]) => [
            `${name} over the empty extension: load + activate() CPU / wall / whole activate call / host busy (${r.activationFloors.hostRunsPerPlan.join('/')} host runs)`,
            `${ms(row.ownCpuOverEmptyMs)} (${row.ownCpuOverEmptyRangeMs.map((v) => v.toFixed(1)).join('–')}; ${ms(row.loadCpuMs)} + ${ms(row.activateCpuMs)}) / ${ms(row.ownOverEmptyMs)} (${row.ownOverEmptyRangeMs.map((v) => v.toFixed(1)).join('–')}; ${ms(row.loadMs)} + ${ms(row.activateMs)}) / ${ms(row.overEmptyMs)} (${row.overEmptyRangeMs.map((v) => v.toFixed(1)).join('–')}) / ${ms(row.busyOverEmptyMs)} (${row.busyOverEmptyRangeMs.map((v) => v.toFixed(1)).join('–')})`,
            '',
            undefined,
          ]),
          ['load average (1 min) during the floor runs', r.activationFloors.loadAverages.map((v) => v.toFixed(1)).join(', '), '', undefined],
        ]
      : []),
    ...(r.shellCode
      ? [
          [
            `the shell's own code (load + activate() against a no-op vscode, fresh processes, median of ${r.shellCode.pairs} pairs, load ${r.shellCode.loadAverage.toFixed(1)})`,
            `${ms(r.shellCode.toolbeltMs)} (load ${ms(r.shellCode.toolbeltLoadMs)}; CPU ${ms(r.shellCode.toolbeltCpuMs)}) vs the same registrations written plainly ${ms(r.shellCode.floorMs)} (CPU ${ms(r.shellCode.floorCpuMs)})`,
            '',
            undefined,
          ],
        ]
      : []),
    ...Object.entries(r.bundles).map(([file, bytes]) =>
      file === 'extension.js'
        ? [`dist/${file}`, `${(bytes / KB).toFixed(1)} KB`, `≤ ${TARGETS.extensionBundleKB} KB`, bytes / KB <= TARGETS.extensionBundleKB]
        : [`dist/${file}`, `${(bytes / KB).toFixed(1)} KB`, '', undefined],
    ),
    ...(r.vsixBytes ? [['.vsix', `${(r.vsixBytes / KB).toFixed(1)} KB`, `≤ ${TARGETS.vsixKB} KB`, r.vsixBytes / KB <= TARGETS.vsixKB]] : []),
    ...(agent
      ? [
          [`Agent per tool round (${agent.rounds}-round turns)`, `${agent.agentMsPerRound.toFixed(2)} ms`, '', undefined],
          ['bare SDK loop per tool round', `${agent.bareSdkMsPerRound.toFixed(2)} ms`, '', undefined],
          [`Agent overhead ratio (wall time, median of ${agent.pairs} pairs)`, agent.ratio.toFixed(3), `≤ ${TARGETS.overheadRatio}`, agent.ratio <= TARGETS.overheadRatio],
          ['client CPU per round, Agent vs bare SDK', `${agent.agentCpuMsPerRound.toFixed(2)} vs ${agent.bareSdkCpuMsPerRound.toFixed(2)} ms (ratio ${agent.cpuRatio.toFixed(3)})`, '', undefined],
        ]
      : []),
    ...(r.search
      ? [
          ...r.search.speed.map((c) => [`${c.name} vs raw rg (median of ${r.search.pairs} pairs, ${r.search.files} files)`, `${c.toolbeltMs.toFixed(0)} vs ${c.rawMs.toFixed(0)} ms, ratio ${c.ratio.toFixed(2)}`, `≤ ${TARGETS.searchRatio}`, c.ratio <= TARGETS.searchRatio]),
          ...['withRg', 'withoutRg'].map((side) => [`hostile patterns: longest event-loop stall ${side === 'withRg' ? 'with' : 'without'} ripgrep`, `${r.search.hostile[side].maxStallMs.toFixed(0)} ms`, `≤ ${TARGETS.hostileStallMs} ms`, r.search.hostile[side].maxStallMs <= TARGETS.hostileStallMs]),
        ]
      : []),
    ...(r.mcp
      ? [[`MCP tools/call round trip to a stdio server (median of ${r.mcp.calls}; p90 ${ms(r.mcp.p90Ms)}; first start ${ms(r.mcp.startMs)})`, ms(r.mcp.medianMs), '', undefined]]
      : []),
    ...(r.readFile
      ? Object.entries(r.readFile.rows).map(([name, row]) => [
          `read_file, ${(r.readFile.fileBytes / KB / KB).toFixed(0)} MB file, ${r.readFile.returnedLines} lines at ${name}`,
          `${ms(row.ms)}, ${(row.bytesRead / KB).toFixed(0)} KB read`,
          '',
          undefined,
        ])
      : []),
    ...(r.render
      ? [
          ['panel: long streamed answer', `${r.render.deltas} deltas, ${r.render.answerChars} chars in ${r.render.totalMs.toFixed(0)} ms (${(r.render.msPerDelta * 1000).toFixed(0)} µs/delta)`, '', undefined],
          ['panel: markdown renders of the live item', String(r.render.liveRenders), `< ${r.render.deltas}`, r.render.liveRenders < r.render.deltas],
          ['panel: DOM changes to the 60 earlier items', String(r.render.mutationsOutsideLiveItem), '0', r.render.mutationsOutsideLiveItem === 0],
        ]
      : []),
  ];
  const width = Math.max(...rows.map((row) => row[0].length));
  console.log('\nToolbelt bench\n');
  for (const [name, value, target, ok] of rows) {
    const verdict = ok === undefined ? '' : ok ? '  ok' : '  OVER TARGET';
    console.log(`${name.padEnd(width)}  ${value}${target ? `  (target ${target})` : ''}${verdict}`);
  }
  console.log(`\nwritten to ${path.relative(ROOT, file)}`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
