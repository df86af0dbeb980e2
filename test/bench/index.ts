import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';

/** The empty extensions the bench loads next to Toolbelt (scripts/bench.js writes them). */
export const EMPTY_EXTENSION_ID = 'toolbelt-bench.empty';
export const WARMUP_EXTENSION_ID = 'toolbelt-bench.warmup';

/** How long the host gets to finish its own start-up before anything is timed. */
const SETTLE_MS = 3000;

interface Activation {
  /** `extension.activate()` as the host runs it: require the main file, call activate(). */
  activateCallMs: number;
  /** Files of the extension's own folder that activation loaded. */
  loadedFiles: string[];
  loadedBytes: number;
}

/**
 * Runs inside the real extension host for `npm run bench`: once the host has settled and a
 * throwaway empty extension has taken the host's first-activation costs, activates Toolbelt and
 * an empty extension (in the order bench-order.json gives, so the bench can alternate it over
 * host runs) and reports both, as one `BENCH {...}` line the bench script reads.
 */
export async function run(): Promise<void> {
  const toolbelt = required<ToolbeltApi>('toolbelt.toolbelt');
  const empty = required<unknown>(EMPTY_EXTENSION_ID);
  const warmup = required<unknown>(WARMUP_EXTENSION_ID);
  const { toolbeltFirst } = JSON.parse(fs.readFileSync(path.join(empty.extensionPath, 'bench-order.json'), 'utf8')) as { toolbeltFirst: boolean };
  await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
  await measure(warmup);
  let toolbeltRun: Activation;
  let emptyRun: Activation;
  if (toolbeltFirst) {
    toolbeltRun = await measure(toolbelt);
    emptyRun = await measure(empty);
  } else {
    emptyRun = await measure(empty);
    toolbeltRun = await measure(toolbelt);
  }
  const api = toolbelt.exports;
  const report = {
    bundleRequireMs: requireAgainMs(path.join(toolbelt.extensionPath, toolbelt.packageJSON.main as string)),
    toolbeltFirst,
    activationMs: api.activationMs,
    activateCallMs: toolbeltRun.activateCallMs,
    emptyActivateCallMs: emptyRun.activateCallMs,
    overEmptyMs: toolbeltRun.activateCallMs - emptyRun.activateCallMs,
    loadedFiles: toolbeltRun.loadedFiles,
    loadedBytes: toolbeltRun.loadedBytes,
    chatBundleLoaded: toolbeltRun.loadedFiles.some((file) => path.basename(file) === 'chat.js'),
  };
  console.log(`BENCH ${JSON.stringify(report)}`);
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

async function measure(extension: vscode.Extension<unknown>): Promise<Activation> {
  const before = new Set(Object.keys(require.cache));
  const started = performance.now();
  await extension.activate();
  const activateCallMs = performance.now() - started;
  // Toolbelt's dist/ is a link into the repository (require sees the real path), and the
  // repository's .cache/ holds the host's own extensions.
  const dist = path.join(extension.extensionPath, 'dist');
  const root = fs.existsSync(dist) ? path.dirname(fs.realpathSync(dist)) : fs.realpathSync(extension.extensionPath);
  const loadedFiles = Object.keys(require.cache)
    .filter((file) => !before.has(file) && file.startsWith(root + path.sep) && !file.includes(`${path.sep}.cache${path.sep}`))
    .map((file) => path.relative(root, file));
  const loadedBytes = loadedFiles.reduce((sum, file) => sum + fs.statSync(path.join(root, file)).size, 0);
  return { activateCallMs, loadedFiles, loadedBytes };
}
