import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import { sendSignal } from './processTable';

/** How long a new namespace may take to come up before it counts as unavailable. */
const OPEN_TIMEOUT_MS = 5000;

/**
 * A PID namespace held open by a placeholder first process, so the command itself is an ordinary
 * process inside it (not the namespace's init: its signals, exit status and `kill $$` behave as
 * without the namespace) and its leftovers can be seen after it exits. Ending the placeholder ends
 * the namespace: the kernel kills every process in it, and nothing inside can leave it.
 */
export class PidNamespace {
  private ended = false;

  private constructor(
    private readonly holder: ChildProcess,
    /** Host pid of the `unshare` process that created the namespaces. */
    readonly holderPid: number,
    private readonly unshareArgs: readonly string[],
    /** `/proc/<pid>/ns/pid` of every process inside, e.g. `pid:[4026532281]`. */
    readonly link: string,
  ) {}

  /**
   * Creates the namespaces with `unshare <args> -- bash -c <placeholder>`; the placeholder says
   * `ready` once it runs as pid 1 (and /proc is mounted, where asked), then waits for its stdin to
   * close — so the namespace also ends if this process dies.
   */
  static open(unshareArgs: readonly string[]): Promise<PidNamespace> {
    return new Promise((resolve, reject) => {
      const holder = spawn('unshare', [...unshareArgs, '--', 'bash', '-c', 'echo ready; while read -r _; do :; done'], {
        stdio: ['pipe', 'pipe', 'ignore'],
        detached: true,
      });
      const fail = (why: string) => {
        clearTimeout(timer);
        if (holder.pid) sendSignal(holder.pid, 'SIGKILL');
        reject(new Error(`Could not create a PID namespace (unshare ${unshareArgs.join(' ')}): ${why}`));
      };
      const timer = setTimeout(() => fail('it did not start in time'), OPEN_TIMEOUT_MS);
      holder.on('error', (error) => fail(error.message));
      holder.on('exit', (code, signal) => fail(`unshare exited (${signal ?? code})`));
      holder.stdout!.once('data', async () => {
        const link = await fs.readlink(`/proc/${holder.pid}/ns/pid_for_children`).catch(() => undefined);
        if (!link) return fail('its namespace could not be read');
        clearTimeout(timer);
        holder.removeAllListeners('exit');
        holder.stdout!.destroy();
        holder.unref();
        resolve(new PidNamespace(holder, holder.pid!, unshareArgs, link));
      });
    });
  }

  /** `nsenter` options that run a program inside, in `cwd`, as the same user. */
  enterArgs(cwd: string): string[] {
    const ns = `/proc/${this.holderPid}/ns`;
    return [
      ...(this.unshareArgs.includes('--user') ? [`--user=${ns}/user`, '--preserve-credentials'] : []),
      ...(this.unshareArgs.includes('--mount-proc') ? [`--mount=${ns}/mnt`] : []),
      `--pid=${ns}/pid_for_children`,
      `--wd=${cwd}`,
    ];
  }

  /** Kills the placeholder, and with it (`--kill-child`, then the kernel) everything inside. */
  end(): void {
    if (this.ended) return;
    this.ended = true;
    sendSignal(this.holderPid, 'SIGKILL');
    sendSignal(-this.holderPid, 'SIGKILL');
    this.holder.stdin?.destroy();
  }
}
