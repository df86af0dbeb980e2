import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';

/**
 * Runs inside the real extension host for `npm run bench`: activates Toolbelt and reports what
 * activation cost, as one `BENCH {...}` line the bench script reads.
 */
export async function run(): Promise<void> {
  const extension = vscode.extensions.getExtension<ToolbeltApi>('toolbelt.toolbelt');
  if (!extension) throw new Error('Toolbelt is not installed in the host');
  const before = new Set(Object.keys(require.cache));
  const started = performance.now();
  const api = await extension.activate();
  const outsideMs = performance.now() - started;
  const loaded = Object.keys(require.cache).filter((file) => !before.has(file));
  // The repository is the extension folder here, and .cache/ holds the host's own extensions.
  const ownFiles = loaded.filter((file) => file.startsWith(extension.extensionPath + path.sep) && !file.includes(`${path.sep}.cache${path.sep}`));
  const { statSync } = await import('node:fs');
  const loadedBytes = ownFiles.reduce((sum, file) => sum + statSync(file).size, 0);
  const report = {
    activationMs: api.activationMs,
    activateCallMs: outsideMs,
    loadedFiles: ownFiles.map((file) => path.relative(extension.extensionPath, file)),
    loadedBytes,
    chatBundleLoaded: ownFiles.some((file) => file.endsWith(`${path.sep}chat.js`)),
  };
  console.log(`BENCH ${JSON.stringify(report)}`);
}
