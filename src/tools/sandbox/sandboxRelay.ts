import { spawn, type ChildProcess } from 'node:child_process';
import { readlinkSync } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { PROXY_PORT } from './sandboxInvocation';

const START_TIMEOUT_MS = 5000;

/** What the relay needs of the engine. */
export interface RelayTools {
  bwrap: string;
  socat: string;
  nsenter: string;
}

/**
 * The network allow-list's way out: socat, in a small sandbox of its own with a network namespace
 * holding only a loopback, listens on 127.0.0.1:3128 there and relays each connection to the
 * proxy's Unix socket on the host. The command's sandbox joins that user and network namespace
 * (nsenter, before bwrap makes its own user, mount and PID namespaces), so it reaches the proxy
 * and nothing else. socat stays outside the command's PID namespace and outside its system-call
 * filter: the command can neither see nor trace it, and socat may open the Unix socket that no
 * process inside can. The relay's sandbox leaves user namespaces enabled (the command's bwrap
 * nests its own in it, and disables them there); it masks /tmp and the host's runtime folders
 * but for the proxy's own folder.
 */
export class NetworkRelay {
  private exited = false;

  private constructor(
    private readonly child: ChildProcess,
    private readonly nsenter: string,
    /** bwrap's first process inside: it holds the namespaces while the relay runs. */
    private readonly pid: number,
    /** Its network namespace, as `net:[inode]`, to tell it from whatever process gets that pid later. */
    private readonly netns: string,
  ) {
    child.once('exit', () => (this.exited = true));
  }

  /** Starts socat and resolves once it listens; rejects, with what it said, if it does not. */
  static async start(tools: RelayTools, proxySocket: string, masked: readonly string[]): Promise<NetworkRelay> {
    const args = [
      '--unshare-user', '--unshare-net', '--unshare-pid', '--unshare-ipc', '--unshare-uts', '--cap-drop', 'ALL', '--die-with-parent', '--new-session',
      '--ro-bind', '/', '/', '--tmpfs', '/tmp', ...masked.flatMap((dir) => ['--tmpfs', dir]), '--ro-bind', path.dirname(proxySocket), path.dirname(proxySocket),
      '--info-fd', '3', '--',
      tools.socat, '-d', '-d', `TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr`, `UNIX-CONNECT:${proxySocket}`,
    ];
    const child = spawn(tools.bwrap, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin' } });
    try {
      const [info, stderr] = [child.stdio[3] as Readable, child.stderr!];
      const [pid] = await withTimeout(Promise.all([readInfo(info), listening(stderr, child)]), START_TIMEOUT_MS);
      stderr.resume();
      const netns = namespaceOf(pid);
      if (!netns) throw new Error('its first process is gone');
      return new NetworkRelay(child, tools.nsenter, pid, netns);
    } catch (error) {
      child.kill('SIGKILL');
      throw new Error(`the network relay for toolbelt.sandbox.network "allowlist" did not start (${(error as Error).message}); nothing was run.`);
    }
  }

  /**
   * The words (nsenter and its options) that start a program in the relay's namespaces; throws
   * once the relay is gone, so a command never runs in whatever namespaces a reused pid has.
   */
  enter(): string[] {
    if (this.exited || namespaceOf(this.pid) !== this.netns) throw new Error('the network relay for toolbelt.sandbox.network "allowlist" has stopped; nothing was run.');
    return [this.nsenter, `--user=/proc/${this.pid}/ns/user`, `--net=/proc/${this.pid}/ns/net`, '--preserve-credentials', '--'];
  }

  /** Lets the process exit while the relay idles (bwrap's --die-with-parent then ends it). */
  unref(): void {
    this.child.unref();
    for (const stream of this.child.stdio) (stream as { unref?: () => void } | null)?.unref?.();
  }

  async close(): Promise<void> {
    if (this.exited) return;
    const gone = new Promise<void>((resolve) => this.child.once('exit', () => resolve()));
    this.child.kill('SIGKILL');
    await gone;
  }
}

function namespaceOf(pid: number): string | undefined {
  try {
    return readlinkSync(`/proc/${pid}/ns/net`);
  } catch {
    return undefined;
  }
}

/** bwrap's `--info-fd` JSON: the pid of its first process inside. */
function readInfo(stream: Readable): Promise<number> {
  return new Promise((resolve, reject) => {
    let text = '';
    stream.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
    stream.on('error', reject);
    stream.on('end', () => {
      const pid = Number((/"child-pid":\s*(\d+)/.exec(text) ?? [])[1]);
      if (Number.isInteger(pid) && pid > 0) resolve(pid);
      else reject(new Error('bwrap named no process'));
    });
  });
}

/** Resolves when socat says it listens (`-d -d`), rejects with its last words if it exits first. */
function listening(stderr: Readable, child: ChildProcess): Promise<void> {
  return new Promise((resolve, reject) => {
    let said = '';
    const onData = (chunk: string) => {
      said = (said + chunk).slice(-2000);
      if (/listening on/.test(said)) {
        stderr.off('data', onData);
        child.off('exit', onExit);
        resolve();
      }
    };
    const onExit = () => reject(new Error(said.trim() || 'socat exited'));
    stderr.setEncoding('utf8').on('data', onData);
    child.once('exit', onExit);
    child.once('error', reject);
  });
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`not listening after ${ms / 1000} s`)), ms)));
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
