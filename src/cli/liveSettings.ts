import { lstatSync, readlinkSync, realpathSync, watch, type FSWatcher } from 'node:fs';
import * as path from 'node:path';
import { GOVERNED_MCP_ORIGIN } from '../tools/mcp';
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
  private governed: SettingsFile;
  private readonly listeners = new Set<(change: SettingsChange) => void>();
  private watchers: FSWatcher[] = [];
  private vscodeWatcher: FSWatcher | undefined;
  /** The folders a settings file given as a link leads through (a dotfiles checkout), watched by folder. */
  private linkWatchers = new Map<string, FSWatcher>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    readonly root: string,
    readonly userFile: string | undefined,
  ) {
    this.snapshot = this.readSnapshot();
    this.mcp = this.readMcp();
    this.governed = this.readGoverned();
  }

  get current(): SettingsSnapshot {
    return this.snapshot;
  }

  /** `.vscode/mcp.json` as it is now (empty text when there is none). */
  get mcpJson(): SettingsFile {
    return this.mcp;
  }

  /** `.vscode/toolbelt.mcp.json`, the servers Toolbelt governs alone (empty text when there is none). */
  get governedMcpJson(): SettingsFile {
    return this.governed;
  }

  onDidChange(listener: (change: SettingsChange) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** Reads the files again; tells the listeners when one changed. */
  reload(): SettingsChange {
    const snapshot = this.readSnapshot();
    const mcp = this.readMcp();
    const governed = this.readGoverned();
    const changed = (a: SettingsFile, b: SettingsFile) => a.text !== b.text || a.exists !== b.exists;
    const change: SettingsChange = {
      settings: snapshot.workspace.text !== this.snapshot.workspace.text || snapshot.workspace.exists !== this.snapshot.workspace.exists || snapshot.user?.text !== this.snapshot.user?.text,
      mcp: changed(mcp, this.mcp) || changed(governed, this.governed),
    };
    this.snapshot = snapshot;
    this.mcp = mcp;
    this.governed = governed;
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
        this.watchLinkTargets(schedule, onProblem);
        this.reload();
      }, SETTLE_MS);
    };
    this.watchers.push(...[this.root, ...(this.userFile ? [path.dirname(this.userFile)] : [])].flatMap((dir) => this.watchFolder(dir, schedule, onProblem)));
    this.watchVscodeFolder(schedule, onProblem);
    this.watchLinkTargets(schedule, onProblem);
  }

  /**
   * A settings file that is a link is read through it, so its changes happen in the target's
   * folder: every folder the links lead through is watched too, and again after a link moves.
   */
  private watchLinkTargets(schedule: () => void, onProblem: (message: string) => void): void {
    const files = [path.join(this.root, WORKSPACE_SETTINGS), ...(this.userFile ? [this.userFile] : [])];
    const wanted = new Set(files.flatMap(linkFolders));
    for (const [dir, watcher] of this.linkWatchers) {
      if (wanted.has(dir)) continue;
      watcher.close();
      this.linkWatchers.delete(dir);
    }
    for (const dir of wanted) {
      if (this.linkWatchers.has(dir)) continue;
      const [watcher] = this.watchFolder(dir, schedule, onProblem);
      if (watcher) this.linkWatchers.set(dir, watcher);
    }
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
    for (const watcher of [...this.watchers, ...this.linkWatchers.values(), ...(this.vscodeWatcher ? [this.vscodeWatcher] : [])]) watcher.close();
    this.watchers = [];
    this.linkWatchers.clear();
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

  private readGoverned(): SettingsFile {
    return readSettingsFile(path.join(this.root, GOVERNED_MCP_ORIGIN), GOVERNED_MCP_ORIGIN);
  }
}

/** Links followed before giving up (the kernel's own limit for a path is 40). */
const MAX_LINKS = 40;

/** The folders a file's links lead through, up to its real one; none when the file is no link. */
function linkFolders(file: string): string[] {
  const folders: string[] = [];
  let current = file;
  try {
    for (let hop = 0; hop < MAX_LINKS && lstatSync(current).isSymbolicLink(); hop++) {
      current = path.resolve(path.dirname(current), readlinkSync(current));
      folders.push(path.dirname(current));
    }
    if (folders.length > 0) folders.push(path.dirname(realpathSync(file)));
  } catch {
    // a dangling or missing link: the folders found so far are watched, and it is read again when they change
  }
  return [...new Set(folders)];
}
