import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WebviewMessage } from '../../protocol';
import type { ToolRegistry } from '../../tools/registry';
import { languageOfPath, resolveLanguage, suggestedFileName } from '../../webview/languages';
import type { ChatController } from '../../chat/chatController';

export type CodeActionMessage = Extract<WebviewMessage, { type: 'insertCode' | 'applyCode' | 'newFile' }>;

/** What the code-block buttons need of the chat. */
export interface CodeActionChat {
  controller: Pick<ChatController, 'busy' | 'runPersonToolCall'>;
  registry: Pick<ToolRegistry, 'isToolEnabled'>;
}

/** A code block's Insert at Cursor, Apply to File or New File, as the panel asked. */
export async function runCodeAction(message: CodeActionMessage, chat: CodeActionChat, log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>): Promise<void> {
  switch (message.type) {
    case 'insertCode':
      return insertAtCursor(message.code);
    case 'newFile':
      return openInNewFile(message.code, message.language);
    case 'applyCode':
      return applyToFile(message.code, message.path, message.language, chat, log);
  }
}

/** Replaces the active editor's selections (or inserts at its cursors) with the code. */
async function insertAtCursor(code: string): Promise<void> {
  const editor = vscode.window.activeTextEditor ?? (vscode.window.visibleTextEditors.length === 1 ? vscode.window.visibleTextEditors[0] : undefined);
  if (!editor) {
    void vscode.window.showInformationMessage('Toolbelt: Insert at Cursor needs an open editor. Open a file, put the cursor where the code goes, then choose Insert again.');
    return;
  }
  // At the start of a line the code goes in as whole lines; inside a line, without its last line break.
  const lines = code.endsWith('\n') ? code : `${code}\n`;
  const inline = code.replace(/\r?\n$/, '');
  const done = await editor.edit((edit) => {
    for (const selection of editor.selections) edit.replace(selection, selection.start.character === 0 && selection.end.character === 0 ? lines : inline);
  });
  if (!done) {
    void vscode.window.showWarningMessage(`Toolbelt: could not insert into ${path.basename(editor.document.fileName)} (the editor may be read-only).`);
    return;
  }
  await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
}

/** An untitled editor with the code, in the block's language. */
async function openInNewFile(code: string, language: string | undefined): Promise<void> {
  const wanted = resolveLanguage(language)?.vscode;
  const known = wanted ? (await vscode.languages.getLanguages()).includes(wanted) : false;
  const document = await vscode.workspace.openTextDocument({ content: code, language: known ? wanted : 'plaintext' });
  await vscode.window.showTextDocument(document, { preview: false });
}

/**
 * Writes the code to a file through the write_file tool of the workspace's registry, inside a
 * chat turn of its own: protected paths and `toolbelt.approvals.writes` ask in the panel, the
 * turn's Undo puts the file back, and the tool-call log records the call.
 */
async function applyToFile(code: string, named: string | undefined, language: string | undefined, chat: CodeActionChat, log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>): Promise<void> {
  if (!vscode.workspace.workspaceFolders?.length) {
    void vscode.window.showInformationMessage('Toolbelt: Apply to File writes into the workspace; open a folder first, or use New File.');
    return;
  }
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showInformationMessage('Toolbelt: this workspace is in Restricted Mode, where Toolbelt writes no files. Trust the workspace to apply code, or use New File.');
    return;
  }
  if (!chat.registry.isToolEnabled('write_file')) {
    const choice = await vscode.window.showWarningMessage(
      'Toolbelt: Apply to File writes through the write_file tool, which is not active in this workspace. Activate write_file in the Tools view, then apply again.',
      'Open Tools',
    );
    if (choice) await vscode.commands.executeCommand('toolbelt.tools.focus');
    return;
  }
  if (chat.controller.busy) {
    void vscode.window.showInformationMessage('Toolbelt: a reply is still being written. Apply the code once it is done (or stop it).');
    return;
  }
  const target = named ?? (await askForPath(language));
  if (!target) return;
  const result = await chat.controller.runPersonToolCall('write_file', { path: target, content: code });
  log.info(`Apply to File ${JSON.stringify(target)}: ${result.status}.`);
  if (result.status === 'ok') {
    const folder = vscode.workspace.workspaceFolders[0].uri;
    const uri = path.isAbsolute(target) ? vscode.Uri.file(target) : vscode.Uri.joinPath(folder, target);
    await vscode.window.showTextDocument(uri, { preview: true, preserveFocus: true }).then(undefined, () => undefined);
  } else if (result.status === 'error') {
    void vscode.window.showWarningMessage(`Toolbelt: the code was not written. ${result.text}`);
  }
}

/** The path to write to, asked with the active file (same language) or a new file's name filled in. */
async function askForPath(language: string | undefined): Promise<string | undefined> {
  const blockLanguage = resolveLanguage(language);
  const active = vscode.window.activeTextEditor?.document;
  const activePath = active && active.uri.scheme === 'file' ? vscode.workspace.asRelativePath(active.uri, false) : undefined;
  const sameLanguage = activePath && blockLanguage && languageOfPath(activePath)?.id === blockLanguage.id;
  const value = sameLanguage ? activePath : suggestedFileName(blockLanguage);
  const base = value.lastIndexOf('/') + 1;
  const stem = value.slice(base).lastIndexOf('.');
  const answer = await vscode.window.showInputBox({
    title: 'Apply to File',
    prompt: 'The workspace file to write this code to (created if missing, replaced if it exists)',
    value,
    valueSelection: [base, stem > 0 ? base + stem : value.length],
    validateInput: (text) => (text.trim() ? undefined : 'Enter a path inside the workspace, e.g. src/example.ts'),
  });
  return answer?.trim() || undefined;
}
