import { spawn, type ChildProcess, type StdioPipe } from 'node:child_process';
import type { Writable } from 'node:stream';
import { listProcesses, pidNamespaceOf, sendSignal, type ProcessEntry } from './processTable';
import type { TreeKiller } from './processTree';
import { SECCOMP_FD } from './sandboxInvocation';
import type { PreparedSandbox } from './sandboxLaunch';
import { seccompProgram } from './sandboxSeccomp';

/** Awaited by whoever stops the sandbox, so not unref'd (see processTree.ts). */
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

export interface SandboxSpawnOptions {
  cwd: string;
  /** stdin, stdout, stderr as for spawn (fd 3 carries bwrap's options, fd 4 its filter). */
  stdio: [StdioPipe | 'ignore', StdioPipe, StdioPipe];
}

/**
 * Starts `program` inside a prepared sandbox: bwrap in its own process group, with the sandbox's
 * environment only (bwrap's first process inside is a copy of bwrap, so its /proc/1/environ is
 * what bwrap got), reading its mount options from fd 3 and its system-call filter from fd 4
 * (SECCOMP_FD), which it applies to every process inside, its own first one included.
 */
export function spawnSandboxed(sandbox: PreparedSandbox, program: readonly string[], options: SandboxSpawnOptions): ChildProcess {
  let filter: Buffer | undefined;
  let command: string[];
  try {
    filter = seccompProgram();
    if (!filter) throw new Error(`Toolbelt's sandbox has no system-call filter for ${process.arch}; nothing was run.`);
    command = sandbox.command(program);
  } catch (error) {
    // Nothing started: the proxy, the relay and the mount points go now.
    void sandbox.dispose();
    throw error;
  }
  const [file, ...args] = command;
  const child = spawn(file, args, {
    cwd: options.cwd,
    detached: true,
    env: sandbox.env,
    stdio: [...options.stdio, 'pipe', 'pipe'],
  });
  feed(child.stdio[3] as Writable | null, sandbox.options);
  feed(child.stdio[SECCOMP_FD] as Writable | null, filter);
  return child;
}

function feed(pipe: Writable | null, data: Buffer): void {
  pipe?.on('error', () => undefined);
  pipe?.end(data);
}

/**
 * Stops a sandboxed process tree: SIGTERM to every process inside its PID namespace, a grace
 * period, then SIGKILL to bwrap, which ends the namespace (`--die-with-parent`) and with it every
 * process inside, whatever each did to its session, group or parent.
 */
export class SandboxKiller implements TreeKiller {
  constructor(private readonly bwrap: ChildProcess) {}

  async kill(graceMs: number): Promise<void> {
    for (const member of await this.members()) sendSignal(member.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && this.running() && (await this.members()).length > 0) await delay(50);
    this.end();
  }

  async hasLeftovers(): Promise<boolean> {
    return (await this.members()).length > 0;
  }

  dispose(): void {
    this.end();
  }

  /** ChildProcess.kill signals only a process it has not yet seen exit, so a reused pid is never hit. */
  private end(): void {
    if (this.running()) this.bwrap.kill('SIGKILL');
  }

  private running(): boolean {
    return this.bwrap.exitCode === null && this.bwrap.signalCode === null;
  }

  /** The processes inside, as host pids, without bwrap's own first process (the namespace's init). */
  private async members(): Promise<ProcessEntry[]> {
    if (!this.running() || this.bwrap.pid === undefined) return [];
    const table = await listProcesses();
    const init = table.find((p) => p.ppid === this.bwrap.pid);
    const link = init ? await pidNamespaceOf(init.pid) : undefined;
    if (!init || !link) return [];
    const inside = await Promise.all(table.map(async (p) => (p.pid !== init.pid && !p.zombie && (await pidNamespaceOf(p.pid)) === link ? p : undefined)));
    return inside.filter((p): p is ProcessEntry => p !== undefined);
  }
}
