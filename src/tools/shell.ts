import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { ToolHandler } from './builtinTool';
import { LIMITS } from './manifest';
import { requireConsent, resolveWorkspacePath } from './workspacePaths';

/** After SIGTERM, how long the process tree has to exit before SIGKILL. */
const KILL_GRACE_MS = 2000;
/** Set in every command's environment so its processes can be found even after they detach. */
const MARKER_VARIABLE = 'TOOLBELT_RUN_ID';

/** Keeps the first and last halves of a stream of output within a character budget. */
export class HeadTailBuffer {
  private head = '';
  private tail = '';
  private dropped = 0;

  constructor(private readonly budget: number) {}

  append(text: string): void {
    const half = Math.floor(this.budget / 2);
    if (this.head.length < half) {
      const room = half - this.head.length;
      this.head += text.slice(0, room);
      text = text.slice(room);
    }
    if (!text) return;
    this.tail += text;
    if (this.tail.length > half) {
      this.dropped += this.tail.length - half;
      this.tail = this.tail.slice(this.tail.length - half);
    }
  }

  toString(): string {
    if (this.dropped === 0) return this.head + this.tail;
    return `${this.head}\n\n[... ${this.dropped.toLocaleString('en')} characters of output left out ...]\n\n${this.tail}`;
  }
}

export const runBash: ToolHandler = async (args, ctx, { signal }) => {
  const command = args.command as string;
  const timeoutSeconds = (args.timeoutSeconds as number | undefined) ?? LIMITS.bashDefaultTimeoutSeconds;
  const cwd = (await resolveWorkspacePath(ctx, '.')).absolute;
  await requireConsent(ctx, { tool: 'run_bash', args, summary: `Run \`${command}\``, targets: [], destructive: true, signal });
  signal?.throwIfAborted();
  return runCommand(command, cwd, timeoutSeconds * 1000, signal);
};

/** Runs `bash -c command` in its own process group; on timeout or abort the whole tree is killed. */
export function runCommand(command: string, cwd: string, timeoutMs: number, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve) => {
    const started = Date.now();
    const output = new HeadTailBuffer(LIMITS.bashOutputMaxChars);
    const marker = randomUUID();
    const child = spawn('bash', ['-c', command], {
      cwd,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, TERM: 'dumb', NO_COLOR: '1', PAGER: 'cat', GIT_PAGER: 'cat', GIT_TERMINAL_PROMPT: '0', [MARKER_VARIABLE]: marker },
    });
    let stopReason: string | undefined;
    const stop = (reason: string) => {
      if (stopReason) return;
      stopReason = reason;
      void killTree(child.pid, marker);
    };
    const timer = setTimeout(() => stop(`Timed out after ${timeoutMs / 1000} s; the command and its child processes were killed.`), timeoutMs);
    const onAbort = () => stop('Stopped by the user; the command and its child processes were killed.');
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => output.append(chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(`Could not start bash: ${error.message}`);
    });
    // Background jobs can hold the output pipes open after bash exits; stop them rather than hang.
    child.on('exit', () => {
      setTimeout(async () => {
        if (child.stdout.readableEnded && child.stderr.readableEnded) return;
        if (!(await hasLeftovers(child.pid, marker))) return;
        output.append('\n[Background processes that kept the output open were stopped.]');
        await killTree(child.pid, marker);
      }, 500).unref();
    });
    child.on('close', (code, killedBy) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const status = stopReason ?? (code !== null ? `Exit code: ${code}` : `Killed by ${killedBy}`);
      const text = output.toString().replace(/\s+$/, '');
      resolve(`${status} (${seconds} s)\n${text ? `\n${text}` : '\n(no output)'}`);
    });
  });
}

/**
 * Kills everything a command started: its process group, its descendants, and on Linux every
 * process that still carries the run's marker in its environment (which catches daemons that
 * called setsid and were re-parented to init). SIGTERM first, SIGKILL after a grace period.
 */
export async function killTree(pid: number | undefined, marker?: string): Promise<void> {
  if (!pid) return;
  const pids = [...new Set([pid, ...(await descendants(pid)), ...(await markedProcesses(marker))])];
  signalAll(pid, pids, 'SIGTERM');
  await new Promise((r) => setTimeout(r, KILL_GRACE_MS).unref());
  const late = await markedProcesses(marker);
  signalAll(pid, [...pids, ...late], 'SIGKILL');
}

/** Whether anything the command started is still alive after bash itself exited. */
async function hasLeftovers(pid: number | undefined, marker: string): Promise<boolean> {
  if (!pid) return false;
  try {
    process.kill(-pid, 0);
    return true;
  } catch {
    return (await markedProcesses(marker)).length > 0;
  }
}

function signalAll(groupLeader: number, pids: number[], sig: NodeJS.Signals): void {
  try {
    process.kill(-groupLeader, sig);
  } catch {
    // The group is gone already.
  }
  for (const p of pids) {
    try {
      process.kill(p, sig);
    } catch {
      // Exited already.
    }
  }
}

async function markedProcesses(marker: string | undefined): Promise<number[]> {
  if (!marker || process.platform !== 'linux') return [];
  const needle = `${MARKER_VARIABLE}=${marker}`;
  const entries = await fs.readdir('/proc').catch(() => [] as string[]);
  const found: number[] = [];
  await Promise.all(
    entries.filter((e) => /^\d+$/.test(e)).map(async (entry) => {
      const environ = await fs.readFile(`/proc/${entry}/environ`, 'latin1').catch(() => '');
      if (environ.split('\0').includes(needle)) found.push(Number(entry));
    }),
  );
  return found.filter((p) => p !== process.pid);
}

function descendants(root: number): Promise<number[]> {
  return new Promise((resolve) => {
    execFile('ps', ['-A', '-o', 'pid=,ppid='], (error, stdout) => {
      if (error) return resolve([]);
      const children = new Map<number, number[]>();
      for (const line of stdout.trim().split('\n')) {
        const [pid, ppid] = line.trim().split(/\s+/).map(Number);
        if (!children.has(ppid)) children.set(ppid, []);
        children.get(ppid)!.push(pid);
      }
      const found: number[] = [];
      const queue = [root];
      while (queue.length) {
        for (const child of children.get(queue.shift()!) ?? []) {
          found.push(child);
          queue.push(child);
        }
      }
      resolve(found);
    });
  });
}
