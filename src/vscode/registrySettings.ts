import * as vscode from 'vscode';
import { addEntries, locateEntry, minimalEdit, registryPath, removeEntries, setEntryDescription } from './sources/settingsText';
import { REGISTRY_KEY, SECTION } from './settings';

type Entry = Record<string, unknown>;

/** How long an edit waits for VS Code to read the saved settings file again. */
const RELOAD_WAIT_MS = 5000;

/**
 * Edits `toolbelt.tools.registry` in the workspace's settings file as text (jsonc-parser), so
 * every other entry keeps its layout and every comment stays. When only user settings hold a
 * registry, the workspace copy starts from it so the user loses nothing.
 */
export class RegistrySettings {
  entries(): unknown[] {
    const inspected = vscode.workspace.getConfiguration(SECTION).inspect<unknown>(REGISTRY_KEY);
    const value = inspected?.workspaceValue ?? inspected?.globalValue ?? [];
    return Array.isArray(value) ? [...value] : [];
  }

  has(name: string): boolean {
    return this.entries().some((entry) => nameOf(entry) === name);
  }

  async add(names: string[]): Promise<void> {
    const missing = names.filter((name) => !this.has(name));
    if (missing.length === 0) return;
    const inspected = vscode.workspace.getConfiguration(SECTION).inspect<unknown>(REGISTRY_KEY);
    const userEntries = inspected?.workspaceValue === undefined && Array.isArray(inspected?.globalValue) ? inspected.globalValue : [];
    await this.edit((text, path) => addEntries(text, missing, path, userEntries));
  }

  async remove(name: string): Promise<boolean> {
    if (!this.has(name)) return false;
    return this.edit((text, path) => removeEntries(text, name, path));
  }

  /** Sets or (with an empty text) clears the description override of a registered tool. */
  async setDescription(name: string, description: string | undefined): Promise<boolean> {
    if (!this.has(name)) return false;
    const text = description?.trim() ? description.trim() : undefined;
    return this.edit((source, path) => setEntryDescription(source, name, text, path));
  }

  /** Where a tool's entry is written: the settings file and the range of its name. */
  async locate(name: string): Promise<{ uri: vscode.Uri; range?: vscode.Range } | undefined> {
    for (const file of this.settingsFiles()) {
      const document = await vscode.workspace.openTextDocument(file.uri).then(undefined, () => undefined);
      if (!document) continue;
      const found = locateEntry(document.getText(), name, registryPath(file.inWorkspaceFile));
      if (found) return { uri: file.uri, range: new vscode.Range(document.positionAt(found.offset), document.positionAt(found.offset + found.length)) };
    }
    const first = this.settingsFiles()[0];
    return first ? { uri: first.uri } : undefined;
  }

  private settingsFiles(): { uri: vscode.Uri; inWorkspaceFile: boolean }[] {
    const files: { uri: vscode.Uri; inWorkspaceFile: boolean }[] = [];
    if (vscode.workspace.workspaceFile?.scheme === 'file') files.push({ uri: vscode.workspace.workspaceFile, inWorkspaceFile: true });
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder) files.push({ uri: vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json'), inWorkspaceFile: false });
    return files;
  }

  /**
   * Applies one text change to the file VS Code writes workspace settings to (the workspace file of
   * a multi-root workspace, else the first folder's .vscode/settings.json), then waits until the
   * configuration has read it again. Returns false when nothing changed.
   */
  private async edit(change: (text: string, path: (string | number)[]) => string | undefined): Promise<boolean> {
    const [target] = this.settingsFiles();
    if (!target) throw new Error('Open a folder first: tools are registered in the workspace settings.');
    const path = registryPath(target.inWorkspaceFile);
    const reloaded = configurationReloaded();
    try {
      const document = await vscode.workspace.openTextDocument(target.uri).then(undefined, () => undefined);
      if (!document) {
        const text = change('{\n}\n', path);
        if (text === undefined) return false;
        await vscode.workspace.fs.writeFile(target.uri, new TextEncoder().encode(text));
      } else {
        if (document.isDirty) throw new Error(`${vscode.workspace.asRelativePath(target.uri)} has unsaved changes; save it, then try again.`);
        const before = document.getText();
        const after = change(before, path);
        if (after === undefined || after === before) return false;
        const edit = minimalEdit(before, after);
        const workspaceEdit = new vscode.WorkspaceEdit();
        workspaceEdit.replace(target.uri, new vscode.Range(document.positionAt(edit.offset), document.positionAt(edit.offset + edit.length)), edit.content);
        // save() also answers false when auto-save (on by default in the browser) saved it first.
        const saved = (await vscode.workspace.applyEdit(workspaceEdit)) && ((await document.save()) || (!document.isDirty && document.getText() === after));
        if (!saved) throw new Error(`Could not write ${vscode.workspace.asRelativePath(target.uri)}.`);
      }
      await reloaded.done;
      return true;
    } finally {
      reloaded.dispose();
    }
  }
}

/** Resolves when VS Code has applied a change of the registry setting, or after RELOAD_WAIT_MS. */
function configurationReloaded(): { done: Promise<void>; dispose(): void } {
  let subscription: vscode.Disposable | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const done = new Promise<void>((resolve) => {
    subscription = vscode.workspace.onDidChangeConfiguration((event) => event.affectsConfiguration(`${SECTION}.${REGISTRY_KEY}`) && resolve());
    timer = setTimeout(resolve, RELOAD_WAIT_MS);
  });
  return { done, dispose: () => (subscription?.dispose(), clearTimeout(timer)) };
}

function nameOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (entry && typeof entry === 'object' && typeof (entry as Entry).name === 'string') return (entry as Entry).name as string;
  return undefined;
}
