import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { TextSearchOptions } from './ripgrep';

export interface SearchRoot {
  path: string;
  /** Prefix for paths shown from this root: "" for the first folder, "<name>/" for the others. */
  prefix: string;
}

/** What the plain-Node search (no ripgrep) is asked to do, in a worker thread. */
export interface WorkerRequest {
  kind: 'files' | 'text';
  roots: SearchRoot[];
  exclude: readonly string[];
  max: number;
  countLimit: number;
  /** search_files: the glob paths must match; search_text: the files to search. */
  glob?: string;
  /** search_text: files it would search whose contents it leaves out (listed in `skipped`). */
  text?: TextSearchOptions;
}

export interface WorkerItem {
  /** With the root's prefix. */
  path: string;
  line?: number;
  text?: string;
}

export interface WorkerResult {
  /** The first `max` results in path order. */
  items: WorkerItem[];
  total: number;
  files: number;
  /** search_text: the files left out because they match `text.sensitive`, with the root's prefix. */
  skipped?: string[];
}

/** What the worker is doing, written to shared memory so a stuck worker can still be explained. */
export const WorkerPhase = { Walking: 0, MatchingGlob: 1, MatchingExclude: 2, MatchingIgnoreFile: 3, MatchingRegex: 4 } as const;
export type WorkerPhase = (typeof WorkerPhase)[keyof typeof WorkerPhase];

/** Wall-clock budget of one plain-Node search; tests lower it. */
export const fallbackSearchBudget = { ms: 20_000 };

let liveWorkers = 0;

/** Worker threads started by the search tools that have not exited yet. */
export function liveSearchWorkers(): number {
  return liveWorkers;
}

/**
 * Runs the walk and every match of an untrusted pattern (the model's glob or regex, the
 * workspace's exclude globs and .gitignore rules) in a worker thread: a pattern that backtracks
 * stalls that thread, never the extension host's event loop. On Stop or at the budget the worker
 * is terminated, and the promise settles only once it has exited.
 */
export function searchInWorker(request: WorkerRequest, signal?: AbortSignal): Promise<WorkerResult> {
  signal?.throwIfAborted();
  const state = new Int32Array(new SharedArrayBuffer(8));
  const worker = new Worker(path.join(__dirname, 'searchWorker.js'), { workerData: { request, state } });
  liveWorkers++;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => {
    liveWorkers--;
    resolve();
  }));
  const budgetMs = fallbackSearchBudget.ms;
  return new Promise<WorkerResult>((resolve, reject) => {
    let settled = false;
    const finish = (error: unknown, result?: WorkerResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      void worker.terminate().catch(() => undefined);
      void exited.then(() => (error === undefined ? resolve(result!) : reject(error)));
    };
    const onAbort = () => finish(signal!.reason);
    const timer = setTimeout(() => finish(new Error(budgetMessage(request, Atomics.load(state, 0) as WorkerPhase, Atomics.load(state, 1), budgetMs))), budgetMs);
    signal?.addEventListener('abort', onAbort, { once: true });
    worker.once('message', (message: { result?: WorkerResult; error?: string }) =>
      finish(message.error === undefined ? undefined : new Error(message.error), message.result));
    worker.once('error', (error) => finish(error));
    void exited.then(() => finish(new Error('The search worker stopped before it answered.')));
  });
}

function budgetMessage(request: WorkerRequest, phase: WorkerPhase, visited: number, budgetMs: number): string {
  const seconds = `${budgetMs / 1000} s`;
  const head = `The search was stopped after ${seconds} (ripgrep is not available, so it ran in plain Node)`;
  switch (phase) {
    case WorkerPhase.MatchingGlob:
      return `${head}: matching the glob "${clip(request.glob ?? '')}" took too long; it backtracks on long paths. Use a simpler glob (fewer "*", no nested groups).`;
    case WorkerPhase.MatchingExclude:
      return `${head}: the workspace's exclude globs (files.exclude / search.exclude) took too long to match: ${request.exclude.map((g) => `"${clip(g)}"`).slice(0, 5).join(', ')}. Simplify them.`;
    case WorkerPhase.MatchingIgnoreFile:
      return `${head}: the rules of a .gitignore/.ignore file took too long to match. Simplify them.`;
    case WorkerPhase.MatchingRegex:
      return `${head}: the regex "${clip(request.text?.pattern ?? '')}" took too long on a line; it backtracks (nested quantifiers such as (a+)+). Simplify it, or search for literal text.`;
    default:
      return `${head}, after looking at ${visited.toLocaleString('en')} file${visited === 1 ? '' : 's'}. Narrow the search with a glob.`;
  }
}

function clip(text: string): string {
  return text.length > 120 ? `${text.slice(0, 120)}…` : text;
}
