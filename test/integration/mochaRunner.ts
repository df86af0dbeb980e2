import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import Mocha from 'mocha';

/**
 * Runs every `*.test.js` in `dir` with mocha inside the extension host. The same entry serves
 * code-server's test payload (npm test) and @vscode/test-electron (npm run test:desktop).
 */
export async function runMochaIn(dir: string): Promise<void> {
  const mocha = new Mocha({ ui: 'bdd', color: false, timeout: 60_000, reporter: 'spec' });
  const files = (await fs.readdir(dir)).filter((f) => f.endsWith('.test.js')).sort();
  for (const file of files) mocha.addFile(path.join(dir, file));
  await new Promise<void>((resolve, reject) => {
    mocha.run((failures) => (failures > 0 ? reject(new Error(`${failures} integration test(s) failed`)) : resolve()));
  });
}
