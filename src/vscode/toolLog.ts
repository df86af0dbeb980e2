import * as path from 'node:path';
import * as vscode from 'vscode';
import { MemoryToolCallLog, ToolCallLog, toRecord, type ToolCallRecord, type ToolCallSink } from '../tools/toolCallLog';
import { shutdownFlushes } from './storage';
import type { WorkspaceTools } from './workspaceTools';

/** What the API reads of the tool-call log. */
export interface ToolLogReader {
  /** Every record kept (the current file and the one before it), newest last. */
  log(): Promise<ToolCallRecord[]>;
}

/** Chat id of calls made outside a chat turn. */
export const NO_CHAT = 'none';

/**
 * Logs every tool call of the workspace's registry as one JSON line in the workspace storage
 * folder (in memory where there is none), and registers `toolbelt.showToolLog`.
 * Nothing is written until a tool runs.
 */
export function registerToolLog(
  context: vscode.ExtensionContext,
  tools: WorkspaceTools,
  log: vscode.LogOutputChannel,
): ToolLogReader {
  const folder = storageFolder(context);
  const sink: ToolCallSink = folder
    ? new ToolCallLog({ folder, onError: (error) => log.warn(`Could not write the tool-call log: ${String(error)}`) })
    : new MemoryToolCallLog();
  // Not tied to context.subscriptions: VS Code disposes those right after calling deactivate().
  // Registered before the chat's flush, so it runs after it and keeps the records of a turn stopped at shutdown.
  shutdownFlushes.add(sink);
  context.subscriptions.push(
    // Each call carries its caller: the panel's chat, an @toolbelt request, VS Code's chat, …
    tools.manager.registry.onDidRun((report) => sink.append(toRecord(report, report.caller?.chatId ?? NO_CHAT))),
    vscode.commands.registerCommand('toolbelt.showToolLog', () => showToolLog(sink)),
  );
  return { log: () => sink.read() };
}

function storageFolder(context: vscode.ExtensionContext): string | undefined {
  if (context.storageUri?.scheme === 'file') return context.storageUri.fsPath;
  // No workspace open: the calls still go to a file, one shared by every window without one.
  if (context.globalStorageUri?.scheme === 'file') return path.join(context.globalStorageUri.fsPath, 'no-workspace');
  return undefined;
}

async function showToolLog(sink: ToolCallSink): Promise<void> {
  await sink.flush();
  if (sink instanceof ToolCallLog) {
    const uri = vscode.Uri.file(sink.file);
    const exists = await vscode.workspace.fs.stat(uri).then(
      () => true,
      () => false,
    );
    if (exists) {
      await vscode.window.showTextDocument(uri, { preview: true });
      return;
    }
  }
  const records = await sink.read();
  if (records.length === 0) {
    void vscode.window.showInformationMessage('Toolbelt: no tool has run yet, so the tool call log is empty.');
    return;
  }
  // Kept in memory (no storage folder), or rotated just now: show the records as an untitled document.
  const document = await vscode.workspace.openTextDocument({ content: records.map((r) => JSON.stringify(r)).join('\n') });
  await vscode.window.showTextDocument(document, { preview: true });
}
