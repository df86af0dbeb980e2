import type { PidNamespace } from './pidNamespace';
import {
  hasEnvironmentEntry,
  listProcesses,
  pidNamespaceOf,
  readProcess,
  sendSignal,
  stillSame,
  type ProcessEntry,
} from './processTable';

/** Stops everything one command started. */
export interface TreeKiller {
  /** SIGTERM, a grace period, then SIGKILL for every process of the command; never blocks the event loop. */
  kill(graceMs: number): Promise<void>;
  /** Whether anything the command started is still running after its shell exited. */
  hasLeftovers(): Promise<boolean>;
  dispose(): void;
}

/** Awaited by whoever stops a tree, so not unref'd: an unref'd wait leaves an otherwise idle process an empty event loop and a stop that never returns. */
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
/** How often the fallback looks for new descendants while the command runs (Linux only). */
const POLL_MS = 250;
/** Rounds of "stop what we see, look again" before the final SIGKILL; a bounded guard against fork races. */
const FREEZE_ROUNDS = 20;

/**
 * The command runs inside its own PID namespace (see PidNamespace). Ending the namespace kills every
 * process in it, whatever each did to its session, group, parent or environment; this also happens
 * when the call is over (dispose), so nothing the command started outlives it.
 */
export class NamespaceKiller implements TreeKiller {
  constructor(
    private readonly namespace: PidNamespace,
    /** Host pid of the `nsenter` process whose child is the command's bash. */
    private readonly enterPid: number,
  ) {}

  async kill(graceMs: number): Promise<void> {
    sendSignal(-this.enterPid, 'SIGTERM');
    for (const member of await this.members()) sendSignal(member.pid, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && (await this.members()).length > 0) await delay(50);
    this.namespace.end();
  }

  async hasLeftovers(): Promise<boolean> {
    return (await this.members()).length > 0;
  }

  dispose(): void {
    this.namespace.end();
  }

  /** The living processes in the namespace, as host pids, without its placeholder first process. */
  private async members(): Promise<ProcessEntry[]> {
    const table = await listProcesses();
    const inside = await Promise.all(
      table.map(async (p) => (p.ppid !== this.namespace.holderPid && !p.zombie && (await pidNamespaceOf(p.pid)) === this.namespace.link ? p : undefined)),
    );
    return inside.filter((p): p is ProcessEntry => p !== undefined);
  }
}

/**
 * Where no PID namespace is available: the command's process group, its descendants, its session and
 * every process carrying the run's environment marker. While the command runs the table is polled
 * (Linux), and every process ever seen as part of the command is remembered with its start time, so a
 * child that detaches (setsid, double fork, `env -i`) after being seen once is still killed, and a pid
 * reused by an unrelated process is not.
 */
export class ProcessTracker implements TreeKiller {
  private readonly known = new Map<number, ProcessEntry>();
  private rootStart: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private polling = false;
  private disposed = false;

  constructor(
    private readonly root: number,
    private readonly markerEntry: string,
    /** How often to look while the command runs; long-lived commands (MCP servers) look less often. */
    private readonly pollMs = POLL_MS,
  ) {}

  /** Starts remembering the command's processes; call right after spawning. */
  async start(): Promise<void> {
    const root = await readProcess(this.root);
    this.rootStart = root?.start;
    if (process.platform !== 'linux' || this.disposed) return;
    this.timer = setInterval(() => {
      if (this.polling) return;
      this.polling = true;
      void this.snapshot().finally(() => (this.polling = false));
    }, this.pollMs);
    this.timer.unref();
    await this.snapshot();
  }

  dispose(): void {
    this.disposed = true;
    if (this.timer) clearInterval(this.timer);
  }

  async hasLeftovers(): Promise<boolean> {
    return (await this.snapshot()).some((p) => p.pid !== this.root);
  }

  async kill(graceMs: number): Promise<void> {
    const alive = await this.snapshot();
    sendSignal(-this.root, 'SIGTERM');
    await this.signalAll(alive, 'SIGTERM');
    const deadline = Date.now() + graceMs;
    while (Date.now() < deadline && (await this.snapshot()).length > 0) await delay(50);
    // Freeze before killing: a stopped process cannot fork, so repeat until a look finds nobody new.
    let rounds = 0;
    let grew = true;
    let seen: ProcessEntry[] = [];
    while (grew && rounds++ < FREEZE_ROUNDS) {
      const before = this.known.size;
      seen = await this.snapshot();
      grew = rounds === 1 || this.known.size > before;
      sendSignal(-this.root, 'SIGSTOP');
      await this.signalAll(seen, 'SIGSTOP');
    }
    sendSignal(-this.root, 'SIGKILL');
    await this.signalAll(await this.snapshot(), 'SIGKILL');
  }

  /** Adds what belongs to the command now; returns the remembered processes that are still alive. */
  private async snapshot(): Promise<ProcessEntry[]> {
    const table = await listProcesses();
    // Nothing that started before the command can belong to it; this also keeps the environ reads few.
    const recent = table.filter((p) => p.pid !== process.pid && (this.rootStart === undefined || p.start === undefined || p.start >= this.rootStart));
    const seeds = await Promise.all(
      recent.map(async (p) => {
        const belongs = p.pid === this.root || p.pgid === this.root || p.sid === this.root || this.remembers(p) || (await hasEnvironmentEntry(p.pid, this.markerEntry));
        return belongs ? p : undefined;
      }),
    );
    const children = new Map<number, ProcessEntry[]>();
    for (const p of recent) children.set(p.ppid, [...(children.get(p.ppid) ?? []), p]);
    const queue = seeds.filter((p): p is ProcessEntry => p !== undefined);
    const visited = new Set<number>();
    while (queue.length) {
      const p = queue.shift()!;
      if (visited.has(p.pid)) continue;
      visited.add(p.pid);
      this.known.set(p.pid, p);
      queue.push(...(children.get(p.pid) ?? []));
    }
    const byPid = new Map(table.map((p) => [p.pid, p]));
    return [...this.known.values()].filter((p) => {
      const now = byPid.get(p.pid);
      return now !== undefined && !now.zombie && now.start === p.start;
    });
  }

  private remembers(p: ProcessEntry): boolean {
    const known = this.known.get(p.pid);
    return known !== undefined && known.start === p.start;
  }

  private async signalAll(entries: ProcessEntry[], signal: NodeJS.Signals): Promise<void> {
    await Promise.all(
      entries.map(async (p) => {
        if (await stillSame(p)) sendSignal(p.pid, signal);
      }),
    );
  }
}
