// The main file of a bench-only extension (`*` activation, so it starts with the extension host):
// samples the host's event loop until SAMPLE_UNTIL_MS after the host process started and reports
// the blocks of NOTE_MS and more with their times, and when each file of the extensions folder
// under test was required. scripts/lib/benchStartup.js installs it and cuts the windows it
// reports; test/bench/startupBlocks.ts reads the result through the exported API.
import Module from 'node:module';
import * as path from 'node:path';
import { monitorEventLoopDelay, performance } from 'node:perf_hooks';

/**
 * performance.now() counts from the extension host process's start: long enough for "a window's
 * first 8 s" and for 5.5 s after an activation as late as 6 s into the window.
 */
const SAMPLE_UNTIL_MS = 12_000;
const TICK_MS = 5;
/** Blocks at least this long are listed with their times. */
const NOTE_MS = 2;

export interface Block {
  /** performance.now() when the block ended (the late tick ran), ms since the host process started. */
  atMs: number;
  ms: number;
}

export interface FileLoad {
  file: string;
  atMs: number;
  ms: number;
}

export interface StartupBlocks {
  sampledUntilMs: number;
  /** When sampling began (this extension's activation). */
  sampledFromMs: number;
  /** The longest block the 5 ms ticks saw (how much later than due a tick ran), over all the sampling. */
  maxBlockMs: number;
  /** The same through Node's own histogram (`monitorEventLoopDelay`, 5 ms resolution), as a cross-check. */
  histogramMaxMs: number;
  blocks: Block[];
  /** Requires of files under `watchedRoot`, outermost only, in order. */
  loads: FileLoad[];
}

let result: Promise<StartupBlocks> | undefined;

export function activate(context: { extensionPath: string }): { result(): Promise<StartupBlocks> } {
  const watchedRoot = process.env.TOOLBELT_BENCH_WATCHED_ROOT ?? path.dirname(context.extensionPath);
  result ??= sample(watchedRoot);
  return { result: () => result! };
}

function sample(watchedRoot: string): Promise<StartupBlocks> {
  const sampledFromMs = performance.now();
  const histogram = monitorEventLoopDelay({ resolution: TICK_MS });
  histogram.enable();
  const loads = watchLoads(watchedRoot);
  const blocks: Block[] = [];
  let maxBlockMs = 0;
  return new Promise((resolve) => {
    let due = performance.now() + TICK_MS;
    const tick = () => {
      const now = performance.now();
      const late = now - due;
      if (late > maxBlockMs) maxBlockMs = late;
      if (late >= NOTE_MS) blocks.push({ atMs: now, ms: late });
      if (now >= SAMPLE_UNTIL_MS) {
        histogram.disable();
        loads.stop();
        resolve({ sampledUntilMs: SAMPLE_UNTIL_MS, sampledFromMs, maxBlockMs, histogramMaxMs: histogram.max / 1e6, blocks, loads: loads.seen });
        return;
      }
      due = now + TICK_MS;
      setTimeout(tick, TICK_MS);
    };
    setTimeout(tick, TICK_MS);
  });
}

type Load = (request: string, parent: unknown, isMain: boolean) => unknown;

/** Times each outermost require of a file under `root` (the extensions folder under test). */
function watchLoads(root: string): { seen: FileLoad[]; stop(): void } {
  const loader = Module as unknown as { _load: Load; _resolveFilename(request: string, parent: unknown): string };
  const original = loader._load;
  const seen: FileLoad[] = [];
  let depth = 0;
  loader._load = function (this: unknown, request, parent, isMain) {
    let file: string | undefined;
    if (depth === 0 && request !== 'vscode') {
      try {
        const resolved = loader._resolveFilename(request, parent);
        if (resolved.startsWith(root + path.sep)) file = resolved;
      } catch {
        // Not resolvable here: the host's own interceptors answer it.
      }
    }
    if (!file) return original.call(this, request, parent, isMain);
    const started = performance.now();
    depth++;
    try {
      return original.call(this, request, parent, isMain);
    } finally {
      depth--;
      seen.push({ file: path.relative(root, file), atMs: started, ms: performance.now() - started });
    }
  };
  return { seen, stop: () => (loader._load = original) };
}
