import * as path from 'node:path';
import type * as vscode from 'vscode';
import { JsonStateFile, type StateStore } from './jsonStateFile';

/** A state file in the workspace storage folder; without a workspace, the workspace Memento. */
export function stateStore(context: vscode.ExtensionContext, name: string, log?: vscode.LogOutputChannel): StateStore {
  const folder = context.storageUri?.scheme === 'file' ? context.storageUri.fsPath : undefined;
  log?.info(folder ? `${name} lives in ${folder}.` : `${name}: no workspace storage folder (${context.storageUri?.toString() ?? 'none'}); using workspace state.`);
  return folder ? new JsonStateFile(path.join(folder, name)) : context.workspaceState;
}
