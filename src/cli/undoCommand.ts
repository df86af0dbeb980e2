import { terminalLine } from '../common/visibleText';
import type { CliWorkspace } from './cliWorkspace';
import { EXIT } from './usage';

/**
 * `toolbelt undo`: puts back what the newest call group (one MCP tool call, or one `toolbelt
 * run`) changed, from the workspace's undo records. A file changed since is left alone and named.
 */
export async function undoLastGroup(workspace: CliWorkspace): Promise<{ output: string; code: number }> {
  const result = await workspace.checkpoints.withStore((store) => store.undoLastTurn());
  if (!result) return { output: `Nothing to undo: no call group with file changes is recorded in ${terminalLine(workspace.stateDir)}.\n`, code: EXIT.failed };
  // Names and reasons come from records and file names a repository or a client chose: one escaped line each.
  const caller = terminalLine(result.chatId).replace(/^mcp:/, 'MCP client ').replace(/^run:.*/, 'toolbelt run');
  const lines = [`Undid the last call group (${caller}).`];
  for (const file of result.restored) lines.push(`  restored  ${terminalLine(file)}`);
  for (const skip of result.skipped) lines.push(`  skipped   ${terminalLine(skip.path)}: ${terminalLine(skip.reason)}`);
  for (const note of result.notes) lines.push(`  note: ${terminalLine(note)}`);
  if (result.restored.length === 0 && result.skipped.length === 0) lines.push('  (it changed nothing that is still different)');
  return { output: `${lines.join('\n')}\n`, code: EXIT.ok };
}
