import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parentPort, workerData } from 'node:worker_threads';
import { walkFiles, type WalkPhase } from './fileWalker';
import { globTester } from './globPattern';
import type { TextSearchOptions } from './ripgrep';
import { WorkerPhase, type WorkerItem, type WorkerRequest, type WorkerResult } from './searchInWorker';

/**
 * The plain-Node search, run in a worker thread by `searchInWorker` when ripgrep is missing:
 * the same files, the same order and the same output as ripgrep. It records what it is doing
 * in shared memory, so the main thread can say which pattern was too slow.
 */
const FALLBACK_MAX_FILE_BYTES = 10 * 1024 * 1024;
/** How many files left out as sensitive are named back (search.ts counts past it as "more"). */
const SKIPPED_LIMIT = 1000;
/** Of a matched line, more than the preview shows and small enough to post back cheaply. */
const MAX_LINE_CHARS = 4000;

const { request, state } = workerData as { request: WorkerRequest; state: Int32Array };
const WALK_PHASES: Record<WalkPhase, WorkerPhase> = { walk: WorkerPhase.Walking, exclude: WorkerPhase.MatchingExclude, ignore: WorkerPhase.MatchingIgnoreFile };

// On Linux a nice value belongs to one thread: this worker yields the CPU to the extension
// host's main thread when both want it. (Elsewhere it would lower the whole process.)
if (process.platform === 'linux') {
  try {
    os.setPriority(10);
  } catch {
    // not allowed here: run at the normal priority
  }
}

function setPhase(phase: WorkerPhase): void {
  Atomics.store(state, 0, phase);
}

async function search(): Promise<WorkerResult> {
  const items: WorkerItem[] = [];
  const files = new Set<string>();
  let total = 0;
  const keep = (item: WorkerItem) => {
    total++;
    files.add(item.path);
    if (items.length < request.max) items.push(item);
    return total < request.countLimit;
  };
  const inGlob = request.glob ? globTester(request.glob) : () => true;
  const regex = request.text ? compilePattern(request.text) : undefined;
  const sensitive = (request.text?.sensitive ?? []).map((glob) => globTester(glob));
  const skipped: string[] = [];
  for (const root of request.roots) {
    if (total >= request.countLimit) break;
    for await (const file of walkFiles(root.path, request.exclude, undefined, (phase) => setPhase(WALK_PHASES[phase]))) {
      Atomics.add(state, 1, 1);
      setPhase(WorkerPhase.MatchingGlob);
      const wanted = inGlob(file) || (root.prefix !== '' && request.kind === 'files' && inGlob(root.prefix + file));
      setPhase(WorkerPhase.Walking);
      if (!wanted) continue;
      if (regex && sensitive.some((isSensitive) => isSensitive(file))) {
        if (skipped.length < SKIPPED_LIMIT) skipped.push(root.prefix + file);
        continue;
      }
      if (!regex) {
        if (!keep({ path: root.prefix + file })) break;
      } else if (!(await searchFile(path.join(root.path, file), regex, (line, text) => keep({ path: root.prefix + file, line, text })))) break;
    }
  }
  return { items, total, files: files.size, ...(regex ? { skipped } : {}) };
}

/** Feeds each matching line of one file to `onMatch`; false when that asked to stop. */
async function searchFile(absolute: string, regex: RegExp, onMatch: (line: number, text: string) => boolean): Promise<boolean> {
  const stat = await fs.stat(absolute).catch(() => undefined);
  if (!stat || stat.size > FALLBACK_MAX_FILE_BYTES) return true;
  const buffer = await fs.readFile(absolute).catch(() => undefined);
  if (!buffer || buffer.subarray(0, 8192).includes(0)) return true;
  const lines = buffer.toString('utf8').split('\n');
  setPhase(WorkerPhase.MatchingRegex);
  try {
    for (let i = 0; i < lines.length; i++) {
      if (!regex.test(lines[i])) continue;
      if (!onMatch(i + 1, lines[i].slice(0, MAX_LINE_CHARS).replace(/\r$/, ''))) return false;
    }
    return true;
  } finally {
    setPhase(WorkerPhase.Walking);
  }
}

function compilePattern(options: TextSearchOptions): RegExp {
  const source = options.isRegex ? options.pattern : options.pattern.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  try {
    return new RegExp(source, options.caseSensitive ? 'u' : 'iu');
  } catch (error) {
    throw new Error(`Invalid regular expression: ${(error as Error).message.split(': ').pop()}`);
  }
}

search().then(
  (result) => parentPort?.postMessage({ result }),
  (error: unknown) => parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) }),
);
