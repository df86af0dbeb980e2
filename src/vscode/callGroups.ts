import * as vscode from 'vscode';
import { CallGroups } from '../tools/undo';
import { CheckpointStore } from '../tools/undo';

export type { CallGroups } from '../tools/undo';

const stores = new Map<string, Promise<CheckpointStore>>();

/**
 * The workspace's one checkpoint store: the panel's turns and every other caller's call groups share
 * it (one writer of its index). Undo writes only inside the window's workspace folders as they are
 * when it runs.
 */
export function openCheckpoints(dir: string): Promise<CheckpointStore> {
  let store = stores.get(dir);
  if (!store) {
    store = CheckpointStore.open(dir, workspaceFolderPaths);
    stores.set(dir, store);
    store.catch(() => stores.delete(dir));
  }
  return store;
}

function workspaceFolderPaths(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).filter((folder) => folder.uri.scheme === 'file').map((folder) => folder.uri.fsPath);
}

/**
 * Undo records for callers other than the panel: one group per `@toolbelt` request, one per call
 * from VS Code's chat, in the workspace's store (none without a storage folder).
 */
export function callGroupsIn(dir: string | undefined, onProblem: (message: string) => void): CallGroups {
  return new CallGroups(dir ? { withStore: async (task) => task(await openCheckpoints(dir)) } : undefined, onProblem);
}
