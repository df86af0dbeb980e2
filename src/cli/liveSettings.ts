import { watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import { readSettingsFile, SettingsSnapshot, type SettingsFile } from './settingsFiles';

export const WORKSPACE_SETTINGS = '.vscode/settings.json';
export const WORKSPACE_MCP_JSON = '.vscode/mcp.json';

/** Which files changed in one reload. */
export interface SettingsChange {
  /** `.vscode/settings.json` or the person's settings file. */
  settings: boolean;
  /** `.vscode/mcp.json`. */
  mcp: boolean;
}

/** How long after the last file event the files are read again (editors write in bursts). */
const SETTLE_MS = 50;

/**
 * The workspace's settings and mcp.json, and the person's settings file, as they are now: read at
 * start, read again whenever a file changes (the folders are watched, so a file written by rename,
 * created or deleted counts), and each change told to the listeners once.
 */
export class LiveSettings {
  private snapshot: SettingsSnapshot;
  private mcp: SettingsFile;
  private readonly listeners = new Set<(change: SettingsChange) => void>();
  private watchers: FSWatcher[] = [];
  private vscodeWatcher: FSWatcher | undefined;
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly root: string,
    readonly userFile: string | undefined,
  ) {
    this.snapshot = this.readSnapshot();
    this.mcp = this.readMcp();
  }

  get current(): SettingsSnapshot {
    return this.snapshot;
  }

  /** `.vscode/mcp.json` as it is now (empty text when there is none). */
  get mcpJson(): SettingsFile {
    return this.mcp;
  }

  onDidChange(listener: (change: SettingsChange) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Reads the files again; tells the listeners when one changed. */
  reload(): SettingsChange {
    const snapshot = this.readSnapshot();
    const mcp = this.readMcp();
    const change: SettingsChange = {
      settings: snapshot.workspace.text !== this.snapshot.workspace.text || snapshot.workspace.exists !== this.snapshot.workspace.exists || snapshot.user?.text !== this.snapshot.user?.text,
      mcp: mcp.text !== this.mcp.text || mcp.exists !== this.mcp.exists,
    };
    this.snapshot = snapshot;
    this.mcp = mcp;
    if (change.settings || change.mcp) for (const listener of [...this.listeners]) listener(change);
    return change;
  }

  /** Follows changes from now on; `onProblem` hears of a folder that cannot be watched. */
  watch(onProblem: (message: string) => void = () => undefined): void {
    const schedule = () => {
      if (this.timer) clearTimeout(this.timer);
      this.timer = setTimeout(() => {
        this.timer = undefined;
        this.watchVscodeFolder(schedule, onProblem);
        this.reload();
      }, SETTLE_MS);
    };
    this.watchers.push(...[this.root, ...(this.userFile ? [path.dirname(this.userFile)] : [])].flatMap((dir) => this.watchFolder(dir, schedule, onProblem)));
    this.watchVscodeFolder(schedule, onProblem);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const watcher of [...this.watchers, ...(this.vscodeWatcher ? [this.vscodeWatcher] : [])]) watcher.close();
    this.watchers = [];
    this.vscodeWatcher = undefined;
    this.listeners.clear();
  }

  /** `.vscode/` may come and go: watched whenever it is there. */
  private watchVscodeFolder(schedule: () => void, onProblem: (message: string) => void): void {
    this.vscodeWatcher?.close();
    [this.vscodeWatcher] = this.watchFolder(path.join(this.root, '.vscode'), schedule, () => undefined);
    if (!this.vscodeWatcher && this.snapshot.workspace.exists) onProblem(`${WORKSPACE_SETTINGS}: its folder cannot be watched; changes apply after a restart.`);
  }

  private watchFolder(dir: string, schedule: () => void, onProblem: (message: string) => void): FSWatcher[] {
    try {
      const watcher = watch(dir, { persistent: false }, schedule);
      watcher.on('error', () => watcher.close());
      return [watcher];
    } catch (error) {
      onProblem(`${dir} cannot be watched (${(error as NodeJS.ErrnoException).code ?? String(error)}); changes there apply after a restart.`);
      return [];
    }
  }

  private readSnapshot(): SettingsSnapshot {
    const workspace = readSettingsFile(path.join(this.root, WORKSPACE_SETTINGS), WORKSPACE_SETTINGS);
    const user = this.userFile ? readSettingsFile(this.userFile, this.userFile) : undefined;
    if (user && !user.exists && user.problems.length === 0) user.problems.push(`${this.userFile}: there is no such file (--user-settings).`);
    return new SettingsSnapshot(workspace, user);
  }

  private readMcp(): SettingsFile {
    return readSettingsFile(path.join(this.root, WORKSPACE_MCP_JSON), WORKSPACE_MCP_JSON);
  }
}
