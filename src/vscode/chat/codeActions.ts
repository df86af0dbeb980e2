import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WebviewMessage } from '../../protocol';
import type { ToolRegistry } from '../../tools/registry';
import { mergeSnippet } from '../../chat/snippetMerge';
import { pathFromFirstLine } from '../../common/fenceInfo';
import { languageOfPath, resolveLanguage, suggestedFileName } from '../../common/languages';
import type { ChatController } from '../../chat/chatController';
import { currentText, type ApplyPreviews } from './applyPreview';

export type CodeActionMessage = Extract<WebviewMessage, { type: 'insertCode' | 'applyCode' | 'newFile' }>;

/** What the code-block buttons need of the chat. */
export interface CodeActionChat {
  controller: Pick<ChatController, 'busy'>;
  registry: Pick<ToolRegistry, 'isToolEnabled'>;
  previews: Pick<ApplyPreviews, 'propose'>;
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
 * Merges the code into the file it belongs to (or the selection there) and shows the result as a
 * diff that waits for Keep or Undo (applyPreview.ts); nothing is written before Keep. A block
 * replaces the whole file only when it is the whole file (snippetMerge.ts).
 */
async function applyToFile(code: string, named: string | undefined, language: string | undefined, chat: CodeActionChat, log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>): Promise<void> {
  const folders = vscode.workspace.workspaceFolders;
  if (!folders?.length) {
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
  const target = named ? { path: named, uri: path.isAbsolute(named) ? vscode.Uri.file(named) : vscode.Uri.joinPath(folders[0].uri, named) } : await pickTarget(language);
  if (!target) return;
  const open = vscode.workspace.textDocuments.find((document) => document.uri.toString() === target.uri.toString());
  if (open?.isDirty) {
    void vscode.window.showWarningMessage(`Toolbelt: ${target.path} has unsaved changes. Save them (or revert them), then choose Apply again.`);
    return;
  }
  const before = await currentText(target.uri);
  const snippet = pathFromFirstLine(code) ? code.slice(code.indexOf('\n') + 1) : code;
  const editor = vscode.window.activeTextEditor;
  const selected = editor && !editor.selection.isEmpty && editor.document.uri.toString() === target.uri.toString() ? editor.selection : undefined;
  const merge = mergeSnippet({ file: before, snippet, selection: selected && { start: editor!.document.offsetAt(selected.start), end: editor!.document.offsetAt(selected.end) } });
  if (merge.kind === 'unchanged') {
    log.info(`Apply to File: ${target.path} already has the code.`);
    void vscode.window.showInformationMessage(`Toolbelt: ${target.path} already has this code; nothing to apply.`);
    return;
  }
  const lines = selected && { start: selected.start.line + 1, end: selected.end.character === 0 && selected.end.line > selected.start.line ? selected.end.line : selected.end.line + 1 };
  await chat.previews.propose(target, before, merge, lines);
}

/** The file a block that names none goes into: the active editor's when it is a workspace file in the block's language, else the one the person names. */
async function pickTarget(language: string | undefined): Promise<{ path: string; uri: vscode.Uri } | undefined> {
  const blockLanguage = resolveLanguage(language);
  const active = vscode.window.activeTextEditor?.document;
  const inWorkspace = active && active.uri.scheme === 'file' && vscode.workspace.getWorkspaceFolder(active.uri);
  const activePath = inWorkspace ? vscode.workspace.asRelativePath(active.uri, (vscode.workspace.workspaceFolders?.length ?? 0) > 1) : undefined;
  const sameLanguage = activePath && blockLanguage && languageOfPath(activePath)?.id === blockLanguage.id;
  if (sameLanguage && active) return { path: activePath, uri: active.uri };
  const value = suggestedFileName(blockLanguage);
  const base = value.lastIndexOf('/') + 1;
  const stem = value.slice(base).lastIndexOf('.');
  const answer = await vscode.window.showInputBox({
    title: 'Apply to File',
    prompt: 'The workspace file this code goes into: merged into it if it exists (you see the change before anything is written), created if not',
    value,
    valueSelection: [base, stem > 0 ? base + stem : value.length],
    validateInput: (text) => (text.trim() ? undefined : 'Enter a path inside the workspace, e.g. src/example.ts'),
  });
  const chosen = answer?.trim();
  if (!chosen) return undefined;
  const folder = vscode.workspace.workspaceFolders![0].uri;
  return { path: chosen, uri: path.isAbsolute(chosen) ? vscode.Uri.file(chosen) : vscode.Uri.joinPath(folder, chosen) };
}
