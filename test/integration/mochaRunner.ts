import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

/**
 * Runs every `*.test.js` in `dir` with mocha inside the extension host. The same entry serves
 * code-server's test payload (npm test) and @vscode/test-electron (npm run test:desktop).
 * The run fails when any promise in the host was rejected with nobody handling it, even if
 * every test passed: such a rejection is a bug the tests would otherwise not see.
 */
export async function runMochaIn(dir: string): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.test.js')).sort();
  for (const file of files) mocha.addFile(path.join(dir, file));
  const rejections = watchUnhandledRejections();
  try {
    const failures = await new Promise<number>((resolve) => mocha.run(resolve));
    await new Promise((resolve) => setTimeout(resolve, 500)); // rejections of the last test's leftovers
    const unhandled = rejections.reasons();
    for (const reason of unhandled) console.error(`Unhandled promise rejection in the extension host:\n${reason}`);
    if (failures > 0 || unhandled.length > 0) {
      throw new Error(
        [failures > 0 ? `${failures} integration test(s) failed` : '', unhandled.length > 0 ? `${unhandled.length} unhandled promise rejection(s)` : ''].filter(Boolean).join('; '),
      );
    }
  } finally {
    rejections.stop();
  }
}

/** Records every unhandled rejection in this process until stopped. */
export function watchUnhandledRejections(): { reasons(): string[]; stop(): void } {
  const reasons: string[] = [];
  const seen = new WeakSet<Promise<unknown>>();
  const listener = (reason: unknown, promise: Promise<unknown>) => {
    if (seen.has(promise)) return; // mocha re-emits the event it receives while a run is on
    seen.add(promise);
    reasons.push(reason instanceof Error ? (reason.stack ?? reason.message) : String(reason));
  };
  process.on('unhandledRejection', listener);
  return { reasons: () => [...reasons], stop: () => void process.off('unhandledRejection', listener) };
}
