import { promises as fs, readFileSync, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { clearLineIndexes } from '../../src/tools/lineIndex';
import { contextFor } from '../support/workspace';

/**
 * read_file on a 100 MB file for `npm run bench` (`node out/test/bench/readFile.js [MB]`): bytes
 * read (this process's `rchar` in /proc/self/io, so every read counts, however it is made) and
 * time, for offset 1, for an offset near the end on the first call (which must count lines to
 * get there) and on the next calls (which start from the nearest line checkpoint). Prints JSON.
 */
const MEGABYTES = Number(process.argv[2] ?? 100);
const REPEATS = 5;

function bytesReadSoFar(): number {
  const match = /^rchar: (\d+)$/m.exec(readFileSync('/proc/self/io', 'utf8'));
  return match ? Number(match[1]) : NaN;
}

async function measure(run: () => Promise<string>): Promise<{ ms: number; bytesRead: number; firstLine: string }> {
  const before = bytesReadSoFar();
  const started = performance.now();
  const text = await run();
  const ms = performance.now() - started;
  // The /proc read itself adds its own few hundred bytes: left in, they are noise at this scale.
  return { ms, bytesRead: bytesReadSoFar() - before, firstLine: text.split('\n')[0].slice(0, 60) };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const root = realpathSync(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-bench-read-')));
  try {
    const file = path.join(root, 'big.log');
    const handle = await fs.open(file, 'w');
    let lines = 0;
    const lineText = (n: number) => `${String(n).padStart(9, '0')} ${'log entry text '.repeat(5)}\n`;
    const block = () => {
      const parts: string[] = [];
      for (let i = 0; i < 10_000; i++) parts.push(lineText(++lines));
      return parts.join('');
    };
    let size = 0;
    while (size < MEGABYTES * 1024 * 1024) {
      const text = block();
      await handle.write(text);
      size += Buffer.byteLength(text);
    }
    await handle.close();
    const registry = createDefaultToolRegistry(contextFor(root));
    const near = lines - 100;
    const read = (offset: number) => () => registry.execute('read_file', { path: 'big.log', offset, limit: 50 });
    const rows: Record<string, { ms: number; bytesRead: number; firstLine: string }> = {};
    const runs = (name: string, run: () => Promise<string>, before?: () => void) => async () => {
      const all = [];
      for (let i = 0; i < REPEATS; i++) {
        before?.();
        all.push(await measure(run));
      }
      rows[name] = { ms: median(all.map((r) => r.ms)), bytesRead: median(all.map((r) => r.bytesRead)), firstLine: all[0].firstLine };
    };
    await runs('offset 1', read(1), clearLineIndexes)();
    await runs(`offset ${near}, first call (counts lines to it)`, read(near), clearLineIndexes)();
    await read(near)();
    await runs(`offset ${near - 5000}, after one near the end (from the nearest checkpoint)`, read(near - 5000))();
    process.stdout.write(`${JSON.stringify({ fileBytes: size, lines, offsetNearEnd: near, returnedLines: 50, rows })}\n`);
  } finally {
    await fs.rm(root, { recursive: true, force: true });
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
