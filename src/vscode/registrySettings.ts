import * as vscode from 'vscode';
import { REGISTRY_KEY, SECTION } from './settings';

type Entry = Record<string, unknown>;

/**
 * Edits `toolbelt.tools.registry` in the workspace's settings, keeping every other entry as the
 * user wrote it. When only user settings hold a registry, the workspace copy starts from it so
 * the user loses nothing.
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
    const entries = this.entries();
    const missing = names.filter((name) => !entries.some((entry) => nameOf(entry) === name));
    if (missing.length === 0) return;
    await this.write([...entries, ...missing.map((name) => ({ name }))]);
  }

  async remove(name: string): Promise<boolean> {
    const entries = this.entries();
    const kept = entries.filter((entry) => nameOf(entry) !== name);
    if (kept.length === entries.length) return false;
    await this.write(kept);
    return true;
  }

  /** Sets or (with an empty text) clears the description override of a registered tool. */
  async setDescription(name: string, description: string | undefined): Promise<boolean> {
    const entries = this.entries();
    const index = entries.findIndex((entry) => nameOf(entry) === name);
    if (index === -1) return false;
    const entry: Entry = typeof entries[index] === 'object' && entries[index] !== null ? { ...(entries[index] as Entry) } : { name };
    if (description && description.trim()) entry.description = description.trim();
    else delete entry.description;
    entries[index] = entry;
    await this.write(entries);
    return true;
  }

  /** Where a tool's entry is written: the settings file and the range of its name. */
  async locate(name: string): Promise<{ uri: vscode.Uri; range?: vscode.Range } | undefined> {
    for (const uri of this.settingsFiles()) {
      const document = await vscode.workspace.openTextDocument(uri).then(undefined, () => undefined);
      if (!document) continue;
      const text = document.getText();
      const match = new RegExp(`"name"\\s*:\\s*"${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}"`).exec(text);
      if (match) {
        return { uri, range: new vscode.Range(document.positionAt(match.index), document.positionAt(match.index + match[0].length)) };
      }
    }
    const first = this.settingsFiles()[0];
    return first ? { uri: first } : undefined;
  }

  private settingsFiles(): vscode.Uri[] {
    const files: vscode.Uri[] = [];
    if (vscode.workspace.workspaceFile?.scheme === 'file') files.push(vscode.workspace.workspaceFile);
    const folder = vscode.workspace.workspaceFolders?.[0];
    if (folder) files.push(vscode.Uri.joinPath(folder.uri, '.vscode', 'settings.json'));
    return files;
  }

  private async write(entries: unknown[]): Promise<void> {
    await vscode.workspace.getConfiguration(SECTION).update(REGISTRY_KEY, entries, vscode.ConfigurationTarget.Workspace);
  }
}

function nameOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (entry && typeof entry === 'object' && typeof (entry as Entry).name === 'string') return (entry as Entry).name as string;
  return undefined;
}
