import * as vscode from 'vscode';
import type { StartupBlocks } from './eventLoopMonitor';

/** The bench-only extension that samples the event loop from the host's start (scripts/lib/benchStartup.js writes it). */
export const MONITOR_EXTENSION_ID = 'toolbelt-bench.monitor';

/**
 * Runs inside the real extension host for `npm run bench -- --only=startup`: waits for the
 * monitor's report on the window's first 12 s, then notes what the extension under test had done
 * by then, as one `BENCH {...}` line. Nothing here runs before the sampling is over.
 */
export async function run(): Promise<void> {
  const monitor = vscode.extensions.getExtension<{ result(): Promise<StartupBlocks> }>(MONITOR_EXTENSION_ID);
  if (!monitor) throw new Error(`${MONITOR_EXTENSION_ID} is not installed in the host`);
  const blocks = await (await monitor.activate()).result();
  const toolbelt = vscode.extensions.getExtension('toolbelt.toolbelt');
  const report = {
    ...blocks,
    toolbeltInstalled: toolbelt !== undefined,
    toolbeltActive: toolbelt?.isActive ?? false,
    // Asked only now, after the sampling: whether a fresh window's picker could list Toolbelt's model.
    toolbeltModels: toolbelt ? (await vscode.lm.selectChatModels({ vendor: 'toolbelt' })).map((model) => model.id) : [],
  };
  console.log(`BENCH ${JSON.stringify(report)}`);
}
