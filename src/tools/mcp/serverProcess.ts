import { spawn, type ChildProcess } from 'node:child_process';
import { constants, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { PidNamespace } from '../sandbox';
import { processIsolation, type IsolationKind } from '../sandbox';
import { NamespaceKiller, ProcessTracker, type TreeKiller } from '../sandbox';

export interface ChildLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

/** A stdio server's process and what stops everything it started. */
export interface ServerProcess {
  child: ChildProcess;
  /** Undefined on Windows (taskkill /T does it) or when the spawn failed at once. */
  killer: TreeKiller | undefined;
  /** How the server's processes are contained, for the log. */
  containment: string;
}

/** Looks for new processes of a server this often where no PID namespace holds them (Linux). */
export const TRACKER_POLL_MS = 1000;

/**
 * Starts a stdio MCP server so that stop() can end every process it starts, whatever they do:
 * - where Linux gives one (processIsolation, as run_bash), the server runs in a PID namespace of
 *   its own: ending the namespace kills every process in it, including a grandchild that made a
 *   new session, cleared its environment and was orphaned (`setsid -f env -i …`). It costs
 *   nothing while the server runs.
 * - elsewhere, in a process group of its own, with a ProcessTracker polling the process table
 *   (Linux) so a descendant that leaves the group, the session and the environment marker is
 *   still known by its parent chain once seen. A grandchild that detaches within one poll of
 *   starting, and whose parent exits at once, can escape this fallback.
 * `marker` goes into the environment either way (the tracker finds marked processes too).
 */
export async function spawnServer(launch: ChildLaunch, marker: { name: string; value: string }, force?: IsolationKind): Promise<ServerProcess> {
  const env = { ...launch.env, [marker.name]: marker.value };
  const common = { env, stdio: ['pipe', 'pipe', 'pipe'] as ['pipe', 'pipe', 'pipe'], windowsHide: true };
  if (process.platform === 'win32') {
    const child = spawn(launch.command, launch.args, { ...common, cwd: launch.cwd, shell: true });
    return { child, killer: undefined, containment: 'taskkill /T on stop' };
  }
  const isolation = await processIsolation({ force });
  const namespace = isolation.unshareArgs ? await PidNamespace.open(isolation.unshareArgs).catch(() => undefined) : undefined;
  if (namespace) {
    const cwd = launch.cwd ?? process.cwd();
    // nsenter would start and then fail to run a missing command; say so as a plain spawn would.
    const missing = await missingCommand(launch.command, cwd, env.PATH);
    if (missing) {
      namespace.end();
      throw missing;
    }
    const child = spawn('nsenter', [...namespace.enterArgs(cwd), '--', launch.command, ...launch.args], { ...common, cwd, detached: true });
    if (child.pid === undefined) namespace.end();
    return { child, killer: child.pid === undefined ? undefined : new NamespaceKiller(namespace, child.pid), containment: 'its own PID namespace' };
  }
  const child = spawn(launch.command, launch.args, { ...common, cwd: launch.cwd, detached: true });
  if (child.pid === undefined) return { child, killer: undefined, containment: 'none' };
  const tracker = new ProcessTracker(child.pid, `${marker.name}=${marker.value}`, TRACKER_POLL_MS);
  void tracker.start().catch(() => undefined);
  return { child, killer: tracker, containment: `its own process group, tracked (${isolation.detail})` };
}

/** An ENOENT error like spawn's when `command` is neither an executable path nor found on PATH. */
async function missingCommand(command: string, cwd: string, searchPath: string | undefined): Promise<NodeJS.ErrnoException | undefined> {
  const candidates = command.includes('/') ? [path.resolve(cwd, command)] : (searchPath ?? '').split(path.delimiter).filter(Boolean).map((dir) => path.resolve(cwd, dir, command));
  for (const candidate of candidates) {
    const ok = await fs.access(candidate, constants.X_OK).then(
      () => fs.stat(candidate).then((s) => s.isFile()),
      () => false,
    );
    if (ok) return undefined;
  }
  return Object.assign(new Error(`spawn ${command} ENOENT`), { code: 'ENOENT' });
}
