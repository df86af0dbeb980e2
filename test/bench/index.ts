import * as fs from 'node:fs';
import * as inspector from 'node:inspector';
import Module from 'node:module';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { waitFor } from '../support/waitFor';

/** The empty extensions the bench loads next to Toolbelt (scripts/bench.js writes them). */
export const EMPTY_EXTENSION_ID = 'toolbelt-bench.empty';
export const WARMUP_EXTENSION_ID = 'toolbelt-bench.warmup';
export const TOOLBELT_EXTENSION_ID = 'toolbelt.toolbelt';

/** How long the host gets to finish its own start-up before anything is timed. */
const SETTLE_MS = 3000;
/**
 * Between two timed activations: the workbench handles what the first one registered (views,
 * tools, commands) while the next waits for its storage, so back to back the second extension is
 * charged for the first one's aftermath (measured: an empty extension took 8 ms after the warm-up
 * and 36–40 ms right after Toolbelt).
 */
const BETWEEN_MS = 1000;

export interface Activation {
  /** The host's require of the extension's main file (timed around the host's own require). */
  loadMs: number;
  /** The host's call of the module's activate(), until it returns (Toolbelt's and the floors' are synchronous). */
  activateMs: number;
  /** CPU time of the host process in those two: on a loaded machine the wall times also count the time it waited for a core. */
  loadCpuMs: number;
  activateCpuMs: number;
  /** `extension.activate()` as another extension sees it: the above, the storage round trips to the workbench, and whatever else the host did meanwhile. */
  activateCallMs: number;
  /** Of that, the time the extension host's event loop was busy (not waiting for the workbench). */
  busyMs: number;
  /** Files of the extension's own folder that activation loaded. */
  loadedFiles: string[];
  loadedBytes: number;
}

/** What scripts/bench.js writes next to the empty extension: which extensions to time, in order. */
interface BenchOrder {
  order: string[];
  /** The extension activated (untimed) before them; the empty warm-up unless a run says otherwise. */
  warmup?: string;
}

/**
 * Runs inside the real extension host for `npm run bench`: once the host has settled and a
 * throwaway empty extension has taken the host's first-activation costs, activates the extensions
 * bench-order.json lists (Toolbelt, the empty one, the floor extensions), in that order, so the
 * bench can alternate it over host runs, and reports them as one `BENCH {...}` line.
 */
export async function run(): Promise<void> {
  const empty = required<unknown>(EMPTY_EXTENSION_ID);
  const bench = JSON.parse(fs.readFileSync(path.join(empty.extensionPath, 'bench-order.json'), 'utf8')) as BenchOrder;
  const { order } = bench;
  const warmup = required<unknown>(bench.warmup ?? WARMUP_EXTENSION_ID);
  const extensions = order.map((id) => required<unknown>(id));
  const timings = timeLoadAndActivate([warmup, ...extensions]);
  await pause(SETTLE_MS);
  await measure(warmup, timings);
  const measured: Record<string, Activation> = {};
  for (const extension of extensions) {
    await pause(BETWEEN_MS);
    measured[extension.id] = await measure(extension, timings);
  }
  const toolbeltRun = measured[TOOLBELT_EXTENSION_ID];
  const emptyRun = measured[EMPTY_EXTENSION_ID];
  // Once everything is timed: what Toolbelt's shell loads in the background, off the activation path.
  if (toolbeltRun) await waitFor(() => timings.background.start, "Toolbelt's background start (dist/presence.js)", 20_000);
  timings.dispose();
  const report: Record<string, unknown> = { order, warmup: warmup.id, measured };
  if (toolbeltRun && emptyRun) {
    const toolbelt = vscode.extensions.getExtension<ToolbeltApi>(TOOLBELT_EXTENSION_ID)!;
    Object.assign(report, {
      bundleRequireMs: requireAgainMs(path.join(toolbelt.extensionPath, toolbelt.packageJSON.main as string)),
      toolbeltFirst: order.indexOf(TOOLBELT_EXTENSION_ID) < order.indexOf(EMPTY_EXTENSION_ID),
      activationMs: toolbelt.exports.activationMs,
      activateCallMs: toolbeltRun.activateCallMs,
      emptyActivateCallMs: emptyRun.activateCallMs,
      overEmptyMs: toolbeltRun.activateCallMs - emptyRun.activateCallMs,
      loadMs: toolbeltRun.loadMs,
      activateMs: toolbeltRun.activateMs,
      emptyLoadMs: emptyRun.loadMs,
      emptyActivateMs: emptyRun.activateMs,
      ownOverEmptyMs: toolbeltRun.loadMs + toolbeltRun.activateMs - emptyRun.loadMs - emptyRun.activateMs,
      loadCpuMs: toolbeltRun.loadCpuMs,
      activateCpuMs: toolbeltRun.activateCpuMs,
      emptyLoadCpuMs: emptyRun.loadCpuMs,
      emptyActivateCpuMs: emptyRun.activateCpuMs,
      ownCpuOverEmptyMs: toolbeltRun.loadCpuMs + toolbeltRun.activateCpuMs - emptyRun.loadCpuMs - emptyRun.activateCpuMs,
      busyMs: toolbeltRun.busyMs,
      emptyBusyMs: emptyRun.busyMs,
      busyOverEmptyMs: toolbeltRun.busyMs - emptyRun.busyMs,
      backgroundFile: timings.background.file,
      backgroundLoadMs: timings.background.load?.ms,
      backgroundStartMs: timings.background.start?.ms,
      backgroundTotalMs: (timings.background.load?.ms ?? 0) + (timings.background.start?.ms ?? 0),
      backgroundCpuMs: (timings.background.load?.cpuMs ?? 0) + (timings.background.start?.cpuMs ?? 0),
      loadedFiles: toolbeltRun.loadedFiles,
      loadedBytes: toolbeltRun.loadedBytes,
      chatBundleLoaded: toolbeltRun.loadedFiles.some((file) => path.basename(file) === 'chat.js'),
    });
  }
  console.log(`BENCH ${JSON.stringify(report)}`);
}

function pause(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function required<T>(id: string): vscode.Extension<T> {
  const extension = vscode.extensions.getExtension<T>(id);
  if (!extension) throw new Error(`${id} is not installed in the host`);
  if (extension.isActive) throw new Error(`${id} was already active; the bench cannot time its activation`);
  return extension;
}

/** What loading a bundle costs: requires it again, fresh, and puts the first copy back. */
function requireAgainMs(file: string): number {
  const resolved = require.resolve(file);
  const first = require.cache[resolved];
  delete require.cache[resolved];
  const started = performance.now();
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- timing the host's own loader is the point
  require(resolved);
  const ms = performance.now() - started;
  require.cache[resolved] = first;
  return ms;
}

interface Span {
  ms: number;
  cpuMs: number;
}

interface LoadAndActivate extends vscode.Disposable {
  load: Map<string, Span>;
  activate: Map<string, Span>;
  /** The first bundle Toolbelt's shell loads after activation (BACKGROUND): its require, and its start call. */
  background: { file?: string; load?: Span; start?: Span };
}

/**
 * Wall and CPU time of `run`. The CPU time is the host process's (all its threads): Linux updates a
 * single thread's figure (process.threadCpuUsage) only at scheduler ticks, too coarse for these spans.
 */
function timed<R>(run: () => R, record: (span: Span) => void, profileName: string): R {
  const profile = startProfile(profileName);
  const cpu = process.cpuUsage();
  const started = performance.now();
  try {
    return run();
  } finally {
    const ms = performance.now() - started;
    const used = process.cpuUsage(cpu);
    record({ ms, cpuMs: (used.user + used.system) / 1000 });
    profile?.();
  }
}

/**
 * With TOOLBELT_BENCH_PROFILE=<dir>, a V8 CPU profile of one span (20 µs samples) written there as
 * `<name>-<time>.cpuprofile`, to see where an activation goes; the profiler adds its own cost.
 * Returns the function that stops it.
 */
function startProfile(name: string): (() => void) | undefined {
  const dir = process.env.TOOLBELT_BENCH_PROFILE;
  if (!dir) return undefined;
  const session = new inspector.Session();
  session.connect();
  session.post('Profiler.enable');
  session.post('Profiler.setSamplingInterval', { interval: 20 });
  session.post('Profiler.start');
  return () =>
    session.post('Profiler.stop', (error, result) => {
      session.disconnect();
      if (error) return console.error(`the bench could not profile ${name}: ${error.message}`);
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, `${name}-${Date.now()}.cpuprofile`), JSON.stringify(result.profile));
    });
}

type ModuleLoad = (request: string, parent: unknown, isMain: boolean) => unknown;

/**
 * What Toolbelt's shell loads by itself 1.5 s after activation, in every window, and the function
 * it calls: presence (src/vscode/nativeChat/presence.ts); builds before presence loaded the host.
 */
const BACKGROUND = { 'presence.js': 'startPresence', 'host.js': 'startHost' } as const;

/**
 * Times, around the host's own calls, the require of each extension's main file and its
 * activate() call: what VS Code's Running Extensions view reports as code loading and activate
 * call, at a finer resolution (the host's own marks are whole milliseconds). Nothing else the host
 * does meanwhile (storage round trips to the workbench, other extensions' work) is counted.
 */
function timeLoadAndActivate(extensions: vscode.Extension<unknown>[]): LoadAndActivate {
  const mains = new Map<string, string>();
  for (const extension of extensions) {
    const main = path.join(extension.extensionPath, extension.packageJSON.main as string);
    mains.set(main, extension.id);
    mains.set(main.replace(/\.js$/, ''), extension.id);
  }
  const toolbelt = extensions.find((extension) => extension.id === TOOLBELT_EXTENSION_ID);
  const dist = toolbelt && path.join(toolbelt.extensionPath, path.dirname(toolbelt.packageJSON.main as string));
  const load = new Map<string, Span>();
  const activate = new Map<string, Span>();
  const background: LoadAndActivate['background'] = {};
  const loader = Module as unknown as { _load: ModuleLoad };
  const original = loader._load;
  loader._load = function (this: unknown, request: string, parent: unknown, isMain: boolean): unknown {
    const loadIt = () => original.call(this, request, parent, isMain) as Record<string, unknown>;
    const bundle = typeof request === 'string' && dist && path.dirname(path.resolve(request)) === dist ? path.basename(request) : undefined;
    if (bundle && bundle in BACKGROUND && !background.file) {
      background.file = bundle;
      const name = BACKGROUND[bundle as keyof typeof BACKGROUND];
      return timedCall(timed(loadIt, (span) => (background.load = span), `${name}-load`), name, (span) => (background.start = span), name);
    }
    const id = typeof request === 'string' ? mains.get(request) : undefined;
    if (!id) return loadIt();
    const exports = timed(loadIt, (span) => load.set(id, span), `${id}-load`);
    return timedCall(exports, 'activate', (span) => activate.set(id, span), `${id}-activate`);
  };
  return { load, activate, background, dispose: () => (loader._load = original) };
}

/** `exports` with its function `name` timed on every call (or as it is, without one). */
function timedCall(exports: Record<string, unknown>, name: string, record: (span: Span) => void, profileName: string): Record<string, unknown> {
  const call = exports[name] as ((...args: unknown[]) => unknown) | undefined;
  if (typeof call !== 'function') return exports;
  return { ...exports, [name]: (...args: unknown[]): unknown => timed(() => call.apply(exports, args), record, profileName) };
}

async function measure(extension: vscode.Extension<unknown>, timings: LoadAndActivate): Promise<Activation> {
  const before = new Set(Object.keys(require.cache));
  const loop = performance.eventLoopUtilization();
  const started = performance.now();
  await extension.activate();
  const activateCallMs = performance.now() - started;
  const busyMs = performance.eventLoopUtilization(loop).active;
  const root = fs.realpathSync(extension.extensionPath);
  const loadedFiles = Object.keys(require.cache)
    .filter((file) => !before.has(file) && file.startsWith(root + path.sep))
    .map((file) => path.relative(root, file));
  const loadedBytes = loadedFiles.reduce((sum, file) => sum + fs.statSync(path.join(root, file)).size, 0);
  const load = timings.load.get(extension.id);
  const activate = timings.activate.get(extension.id);
  if (!load || !activate) throw new Error(`the bench did not see the host load and activate ${extension.id}`);
  return { loadMs: load.ms, activateMs: activate.ms, loadCpuMs: load.cpuMs, activateCpuMs: activate.cpuMs, activateCallMs, busyMs, loadedFiles, loadedBytes };
}
