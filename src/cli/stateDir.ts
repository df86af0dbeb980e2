import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { CheckpointStore } from '../tools/checkpoints';
import type { CheckpointLease } from '../tools/callGroups';

/**
 * Where the CLI keeps a workspace's undo records and call log: outside the workspace (a workspace
 * cannot then edit its own undo records, and git never sees them), one folder per workspace under
 * `--state-dir` / TOOLBELT_STATE_DIR, else `$XDG_STATE_HOME/toolbelt` (`~/.local/state/toolbelt`;
 * `%LOCALAPPDATA%\toolbelt` on Windows).
 */
export function stateDirFor(workspaceRoot: string, base: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  const root =
    base ??
    (process.platform === 'win32'
      ? path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'toolbelt')
      : path.join(env.XDG_STATE_HOME || path.join(home, '.local', 'state'), 'toolbelt'));
  const id = createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 16);
  const name = path.basename(workspaceRoot).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'workspace';
  return path.join(root, `${name}-${id}`);
}

export const CHECKPOINTS_FOLDER = 'checkpoints';
const LOCK_FILE = 'lock';
const RETRY_MS = 50;

/**
 * The checkpoint store of one state folder, shared by every call group of this process and
 * guarded by a lock file against other toolbelt processes (an MCP server per agent, `toolbelt
 * undo`): the store is opened fresh (its index read again) when this process takes the lock, and
 * the lock is let go when the last group ends, so no process writes over another's records.
 */
export class CheckpointAccess {
  private held: { store: CheckpointStore; users: number } | undefined;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    readonly dir: string,
    private readonly lockTimeoutMs = 30_000,
  ) {}

  lease(): Promise<CheckpointLease> {
    return this.serial(async () => {
      if (!this.held) {
        await this.lock();
        try {
          this.held = { store: await CheckpointStore.open(path.join(this.dir, CHECKPOINTS_FOLDER)), users: 0 };
        } catch (error) {
          await this.unlock();
          throw error;
        }
      }
      const held = this.held;
      held.users++;
      let released = false;
      return {
        store: held.store,
        release: () =>
          this.serial(async () => {
            if (released) return;
            released = true;
            if (--held.users > 0) return;
            this.held = undefined;
            await this.unlock();
          }),
      };
    });
  }

  /** Runs `task` with the store, holding the lock meanwhile. */
  async withStore<T>(task: (store: CheckpointStore) => Promise<T>): Promise<T> {
    const lease = await this.lease();
    try {
      return await task(lease.store as CheckpointStore);
    } finally {
      await lease.release();
    }
  }

  private serial<T>(task: () => Promise<T>): Promise<T> {
    const run = this.queue.then(task, task);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private async lock(): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const file = path.join(this.dir, LOCK_FILE);
    const deadline = Date.now() + this.lockTimeoutMs;
    for (;;) {
      try {
        await fs.writeFile(file, String(process.pid), { flag: 'wx' });
        return;
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
      const holder = Number.parseInt(await fs.readFile(file, 'utf8').catch(() => ''), 10);
      if (await isStale(file, holder)) {
        // A holder that died leaves nothing to wait for.
        await fs.rm(file, { force: true });
        continue;
      }
      if (Date.now() > deadline) throw new Error(`another toolbelt process (pid ${holder}) has held the undo records for ${this.lockTimeoutMs / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, RETRY_MS));
    }
  }

  private async unlock(): Promise<void> {
    await fs.rm(path.join(this.dir, LOCK_FILE), { force: true });
  }
}

/** How long a lock file may stay without a process id before it counts as torn (its writer died between create and write). */
const TORN_LOCK_MS = 2000;

/** Whether a lock file is left over: its process is gone (this process never locks twice), or it never got a process id. */
async function isStale(file: string, pid: number): Promise<boolean> {
  if (!Number.isInteger(pid) || pid <= 0) {
    const stat = await fs.stat(file).catch(() => undefined);
    return stat === undefined || Date.now() - stat.mtimeMs > TORN_LOCK_MS;
  }
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}
