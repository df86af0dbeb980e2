import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import ignore from 'ignore';
import * as vscode from 'vscode';
import type { Attachment } from '../../protocol';
import type { ToolContext } from '../../tools/types';
import { readExcludeGlobs } from '../settings';
import { readAttachment, type AttachmentTarget } from './attachmentReader';

/** Workspace files offered at most (VS Code's own fuzzy match narrows them as the person types). */
export const MAX_PICKER_FILES = 5000;

export interface TargetItem extends vscode.QuickPickItem {
  target?: AttachmentTarget;
}

export interface PickedContext {
  attachments: Attachment[];
  /** Why nothing was attached, when the person picked something that cannot be. */
  problem?: string;
}

/**
 * The composer's context picker: the selection, the active file, the open editors, then every
 * workspace file (files.exclude, search.exclude and the folders' .gitignore honoured), in a
 * QuickPick whose fuzzy search is VS Code's. The picked item is read by readAttachment.
 */
export async function pickAttachment(tools: ToolContext, usedChars: number, log?: vscode.LogOutputChannel): Promise<PickedContext> {
  const picker = vscode.window.createQuickPick<TargetItem>();
  picker.title = 'Add context to the message';
  picker.placeholder = 'Search files by name; the selection and open editors come first';
  picker.matchOnDescription = true;
  const editorItems = editorTargets();
  picker.items = editorItems;
  picker.busy = true;
  const cancel = new vscode.CancellationTokenSource();
  void workspaceFiles(cancel.token).then(
    (files) => {
      if (files.length) picker.items = [...editorItems, { label: 'Files', kind: vscode.QuickPickItemKind.Separator }, ...files];
      picker.busy = false;
    },
    (error: unknown) => {
      picker.busy = false;
      log?.warn(`Could not list the workspace's files for the context picker: ${error instanceof Error ? error.message : String(error)}`);
    },
  );
  const picked = await new Promise<TargetItem | undefined>((resolve) => {
    picker.onDidAccept(() => {
      resolve(picker.selectedItems[0]);
      picker.hide();
    });
    picker.onDidHide(() => resolve(undefined));
    picker.show();
  });
  cancel.cancel();
  cancel.dispose();
  picker.dispose();
  if (!picked?.target) return { attachments: [] };
  const read = await readAttachment(tools, picked.target, usedChars);
  return read.ok ? { attachments: [read.attachment] } : { attachments: [], problem: read.reason };
}

/** The selection, the active file and the other open editors, as they are now. */
export function editorTargets(): TargetItem[] {
  const items: TargetItem[] = [];
  const active = vscode.window.activeTextEditor;
  if (active && !active.selection.isEmpty) {
    const { start, end } = active.selection;
    // A selection that ends at the start of a line does not take that line.
    const last = end.character === 0 && end.line > start.line ? end.line - 1 : end.line;
    const range = { start: start.line + 1, end: last + 1 };
    items.push({
      label: '$(selection) Selection',
      description: `${nameOf(active.document.uri)}:${range.start}-${range.end}`,
      target: { kind: 'selection', uri: active.document.uri, text: active.document.getText(active.selection), range },
    });
  }
  if (active) {
    items.push({ label: '$(file) Active file', description: nameOf(active.document.uri), target: fileTarget(active.document.uri) });
  }
  const seen = new Set(active ? [active.document.uri.toString()] : []);
  const open: TargetItem[] = [];
  for (const tab of vscode.window.tabGroups.all.flatMap((group) => group.tabs)) {
    if (!(tab.input instanceof vscode.TabInputText) || seen.has(tab.input.uri.toString())) continue;
    seen.add(tab.input.uri.toString());
    open.push(fileItem(tab.input.uri));
  }
  if (open.length) items.push({ label: 'Open editors', kind: vscode.QuickPickItemKind.Separator }, ...open);
  return items;
}

/** The workspace's files, sorted by path (open ones too, so searching by name always finds a file). */
export async function workspaceFiles(token: vscode.CancellationToken): Promise<TargetItem[]> {
  const excludes = readExcludeGlobs();
  const uris = await vscode.workspace.findFiles('**/*', excludes.length ? `{${excludes.join(',')}}` : null, MAX_PICKER_FILES, token);
  const ignored = await gitignoreFilters();
  return uris
    .filter((uri) => !ignored(uri))
    .map((uri) => ({ uri, name: nameOf(uri) }))
    .sort((a, b) => a.name.localeCompare(b.name))
    .map(({ uri }) => fileItem(uri));
}

/** Each folder's root .gitignore, as a test "is this file ignored?". */
async function gitignoreFilters(): Promise<(uri: vscode.Uri) => boolean> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file');
  const rules = await Promise.all(
    folders.map(async (folder) => {
      const text = await fs.readFile(path.join(folder.uri.fsPath, '.gitignore'), 'utf8').catch(() => '');
      return { root: folder.uri.fsPath, rules: text ? ignore().add(text) : undefined };
    }),
  );
  return (uri) => {
    const folder = rules.find((r) => uri.fsPath.startsWith(r.root + path.sep));
    if (!folder?.rules) return false;
    return folder.rules.ignores(path.relative(folder.root, uri.fsPath).split(path.sep).join('/'));
  };
}

function fileItem(uri: vscode.Uri): TargetItem {
  const name = nameOf(uri);
  const dir = path.posix.dirname(name);
  return { label: path.posix.basename(name), description: dir === '.' ? '' : dir, iconPath: vscode.ThemeIcon.File, target: fileTarget(uri) };
}

/** An open document's text is what the person sees (saved or not); any other file is read from disk. */
function fileTarget(uri: vscode.Uri): AttachmentTarget {
  const open = vscode.workspace.textDocuments.find((doc) => doc.uri.toString() === uri.toString());
  return { kind: 'file', uri, text: open?.getText() };
}

function nameOf(uri: vscode.Uri): string {
  return uri.scheme === 'file' ? vscode.workspace.asRelativePath(uri) : uri.path;
}
