import { execFile } from 'node:child_process';
import { promises as fs } from 'node:fs';

/** One row of the process table. `start` tells a pid apart from a later process that reuses it. */
export interface ProcessEntry {
  pid: number;
  ppid: number;
  pgid: number;
  sid: number;
  /** Start time in clock ticks since boot (/proc/<pid>/stat field 22); `undefined` where unknown. */
  start?: number;
  zombie: boolean;
}

/** Reads one process from /proc (Linux), or `undefined` when it is gone. */
export async function readProcess(pid: number): Promise<ProcessEntry | undefined> {
  const stat = await fs.readFile(`/proc/${pid}/stat`, 'latin1').catch(() => '');
  return parseStat(stat);
}

/** Parses /proc/<pid>/stat; the command name can hold spaces and parentheses, so split after the last ')'. */
export function parseStat(stat: string): ProcessEntry | undefined {
  const close = stat.lastIndexOf(')');
  if (close < 0) return undefined;
  const pid = Number(stat.slice(0, stat.indexOf(' ')));
  const fields = stat.slice(close + 2).split(' ');
  // fields[0] is field 3 (state) of proc(5), so field n is fields[n - 3].
  return {
    pid,
    ppid: Number(fields[1]),
    pgid: Number(fields[2]),
    sid: Number(fields[3]),
    start: Number(fields[19]),
    zombie: fields[0] === 'Z' || fields[0] === 'X',
  };
}

/** Every process this user can see: /proc on Linux, `ps` elsewhere (no start times there). */
export async function listProcesses(): Promise<ProcessEntry[]> {
  if (process.platform === 'linux') {
    const entries = await fs.readdir('/proc').catch(() => [] as string[]);
    const rows = await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map((e) => readProcess(Number(e))));
    return rows.filter((row): row is ProcessEntry => row !== undefined);
  }
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid=,pgid=,stat='], (error, stdout) => {
      if (error) return resolve([]);
      const rows: ProcessEntry[] = [];
      for (const line of stdout.trim().split('\n')) {
        const [pid, ppid, pgid, state] = line.trim().split(/\s+/);
        rows.push({ pid: Number(pid), ppid: Number(ppid), pgid: Number(pgid), sid: 0, zombie: state?.startsWith('Z') ?? false });
      }
      resolve(rows);
    });
  });
}

/** Whether `entry` still names the same living process (same pid and, where known, same start time). */
export async function stillSame(entry: ProcessEntry): Promise<boolean> {
  if (process.platform !== 'linux' || entry.start === undefined) return isAlive(entry.pid);
  const now = await readProcess(entry.pid);
  return now !== undefined && !now.zombie && now.start === entry.start;
}

export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Whether a process's environment holds `NAME=value` (Linux; other systems cannot read it cheaply). */
export async function hasEnvironmentEntry(pid: number, entry: string): Promise<boolean> {
  if (process.platform !== 'linux') return false;
  const environ = await fs.readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
  return environ.split('\0').includes(entry);
}

/** The PID namespace a process lives in (Linux), e.g. `pid:[4026532281]`. */
export function pidNamespaceOf(pid: number): Promise<string | undefined> {
  return fs.readlink(`/proc/${pid}/ns/pid`).catch(() => undefined);
}

export function sendSignal(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(pid, signal);
  } catch {
    // Gone already, or not ours to signal.
  }
}
