import * as vscode from 'vscode';

/** The workspace's `.vscode/settings.json` (of its first folder on disk). */
export function workspaceSettingsUri(): vscode.Uri | undefined {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file');
  return folder && vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json');
}

/** What a check found: the diagnostics of one file (none: clear them). */
export type SettingsCheck = () => Promise<{ uri: vscode.Uri; diagnostics: vscode.Diagnostic[] } | undefined>;

/**
 * A diagnostic collection on the workspace's settings.json kept current: `check` runs on every
 * event of `changes`, and when the file is opened or saved (its text moved the ranges); only the
 * newest run's answer is shown, and a failed run is logged.
 */
export function settingsDiagnostics(name: string, check: SettingsCheck, changes: ((listener: () => void) => vscode.Disposable)[], log: vscode.LogOutputChannel): vscode.Disposable {
  const collection = vscode.languages.createDiagnosticCollection(name);
  let generation = 0;
  const refresh = () => {
    const mine = ++generation;
    void check().then(
      (found) => {
        if (mine !== generation) return;
        collection.clear();
        if (found) collection.set(found.uri, found.diagnostics);
      },
      (error: unknown) => log.warn(`Could not check the settings (${name}): ${String(error)}`),
    );
  };
  const isSettings = (uri: vscode.Uri) => uri.toString() === workspaceSettingsUri()?.toString();
  const disposables = [
    collection,
    ...changes.map((event) => event(refresh)),
    vscode.workspace.onDidSaveTextDocument((document) => isSettings(document.uri) && refresh()),
    vscode.workspace.onDidOpenTextDocument((document) => isSettings(document.uri) && refresh()),
  ];
  refresh();
  return vscode.Disposable.from(...disposables);
}
