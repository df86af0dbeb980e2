import { promises as fs, realpathSync } from 'node:fs';
import * as path from 'node:path';
import type { StoreAccess } from '../tools/undo';
import { CheckpointStore } from '../tools/undo';
import { isAlive } from '../tools/sandbox';
import { isInside } from '../tools/pathChecks';
import { hideFromSandboxes } from '../tools/sandbox';
import { stateFolderPath } from '../tools/stateFolder';
import { UsageError } from './usage';

/**
 * Where the CLI keeps a workspace's undo records and call log: outside the workspace (a workspace
 * cannot then edit its own undo records, and git never sees them), one folder per workspace under
 * `--state-dir` / TOOLBELT_STATE_DIR, else `$XDG_STATE_HOME/toolbelt` (`~/.local/state/toolbelt`;
 * `%LOCALAPPDATA%\toolbelt` on Windows). A state folder inside the workspace is refused, the
 * default one too (it is, when the workspace is the home folder): a command run in the workspace
 * could plant records there that a later `toolbelt undo` would carry out.
 */
export function stateDirFor(workspaceRoot: string, base: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const dir = stateFolderPath(workspaceRoot, base, env);
  if (isInside(realWorkspace(workspaceRoot), realExisting(dir))) {
    const which = base === undefined ? `The default state folder ${dir}` : `The state folder ${dir}`;
    throw new UsageError(
      `${which} is inside the workspace ${workspaceRoot}: a command run in the workspace could forge the undo records kept there. ` +
        'Choose a folder outside the workspace with --state-dir DIR or TOOLBELT_STATE_DIR.',
    );
  }
  return dir;
}

function realWorkspace(root: string): string {
  try {
    return realpathSync(root);
  } catch {
    return path.resolve(root);
  }
}

/** The path with its longest existing beginning resolved (links included). */
function realExisting(target: string): string {
  const rest: string[] = [];
  for (let dir = path.resolve(target); ; dir = path.dirname(dir)) {
    try {
      return path.join(realpathSync(dir), ...rest);
    } catch {
      if (path.dirname(dir) === dir) return path.resolve(target);
      rest.unshift(path.basename(dir));
    }
  }
}

export const CHECKPOINTS_FOLDER = 'checkpoints';
const LOCK_FILE = 'lock';
const RETRY_MS = 50;

/** How long a write waits for another toolbelt process's hold on the undo records, and the clock it waits on. */
export interface LockWait {
  timeoutMs?: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

/**
 * The checkpoint store of one state folder, shared by every call group of this process. Other
 * toolbelt processes (an MCP server per agent, `toolbelt run`, `toolbelt undo`) use it too, so each
 * operation — recording one call's paths, ending a group, one undo — takes a lock file for its own
 * length only, reads the index again, and lets go: a long `toolbelt run` never keeps another
 * process's writes from being recorded. A lock held longer than `timeoutMs` makes the operation
 * fail; a call group then says in its result that its change cannot be undone.
 * The folder is hidden from every sandboxed process (it holds the files' earlier contents).
 */
export class CheckpointAccess implements StoreAccess {
  private store: CheckpointStore | undefined;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly timeoutMs: number;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;

  constructor(
    readonly dir: string,
    private readonly roots: () => readonly string[],
    wait: LockWait = {},
  ) {
    this.timeoutMs = wait.timeoutMs ?? 5_000;
    this.now = wait.now ?? Date.now;
    this.sleep = wait.sleep ?? ((ms) => new Promise((resolve) => setTimeout(resolve, ms)));
    hideFromSandboxes(dir);
  }

  /** Runs `task` with the store as the index is now, holding the lock meanwhile. */
  withStore<T>(task: (store: CheckpointStore) => Promise<T>): Promise<T> {
    return this.serial(async () => {
      await this.lock();
      try {
        if (this.store) await this.store.reload();
        else this.store = await CheckpointStore.open(path.join(this.dir, CHECKPOINTS_FOLDER), this.roots);
        return await task(this.store);
      } finally {
        await this.unlock();
      }
    });
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async lock(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 });
    const file = path.join(this.dir, LOCK_FILE);
    const deadline = this.now() + this.timeoutMs;
    for (;;) {
      try {
        await fs.writeFile(file, String(process.pid), { flag: 'wx' });
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number.parseInt(await fs.readFile(file, 'utf8').catch(() => ''), 10);
      if (await this.isStale(file, holder)) {
        // A holder that died leaves nothing to wait for.
        await fs.rm(file, { force: true });
        continue;
      }
      if (this.now() >= deadline) throw new Error(`another toolbelt process (pid ${holder}) held the undo records for more than ${this.timeoutMs / 1000} s`);
      await this.sleep(RETRY_MS);
    }
  }

  private async unlock(): Promise<void> {
    await fs.rm(path.join(this.dir, LOCK_FILE), { force: true });
  }

  /** Whether a lock file is left over: its process is gone (this process never locks twice), or it never got a process id. */
  private async isStale(file: string, pid: number): Promise<boolean> {
    if (!Number.isInteger(pid) || pid <= 0) {
      const stat = await fs.stat(file).catch(() => undefined);
      return stat === undefined || Date.now() - stat.mtimeMs > TORN_LOCK_MS;
    }
    return pid === process.pid || !isAlive(pid);
  }
}

/** How long a lock file may stay without a process id before it counts as torn (its writer died between create and write). */
const TORN_LOCK_MS = 2000;
