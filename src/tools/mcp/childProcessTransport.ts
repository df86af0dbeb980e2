import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { ProcessTracker } from '../processTree';
import { describeContainment, sandboxAvailability, sandboxDecision, sandboxEngine } from '../sandbox';
import { sandboxEnvironment } from '../sandboxEnvironment';
import { prepareSandbox, type PreparedSandbox, type SandboxRequest } from '../sandboxLaunch';
import { spawnSandboxed } from '../sandboxProcess';

export interface ChildLaunch {
  command: string;
  args: string[];
  env: Record<string, string>;
  cwd?: string;
}

export interface ChildExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface ChildTransportOptions {
  /** Every stderr chunk, as text. */
  onStderr(chunk: string): void;
  /** A stdout line that is not a JSON-RPC message (servers that log to stdout). */
  onMalformed(line: string): void;
  /** The process is running (before any message is exchanged). */
  onSpawn?(pid: number): void;
  /** A single message over this size closes the transport (default 32 MB). */
  maxMessageBytes?: number;
  /** How long stop waits after closing stdin, and again after SIGTERM, before escalating (default 2 s). */
  killGraceMs?: number;
  /** Run the server inside the OS sandbox (sandboxLaunch.ts) as this request says; without it, as before. */
  sandbox?: Omit<SandboxRequest, 'cwd'>;
}

/** Marks every process a server starts, so a child that leaves the process group is still found. */
const MARKER_VARIABLE = 'TOOLBELT_MCP_RUN_ID';
const NEWLINE = 0x0a;

/**
 * MCP's stdio transport, written for Toolbelt rather than the SDK's so that it can report how the
 * server ended (exit code, signal), run it in its own process group and stop the whole tree:
 * stdin closed, then SIGTERM, then SIGKILL for the group and every marked descendant, so nothing
 * outlives stop(). Non-JSON lines on stdout are reported and skipped, not fatal.
 */
export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  /** How the process ended; set before onclose fires. */
  exit: ChildExit | undefined;
  private child: ChildProcess | undefined;
  private tracker: ProcessTracker | undefined;
  private chunks: Buffer[] = [];
  private pendingBytes = 0;
  private closing: Promise<void> | undefined;
  private closed = false;
  private spawnFailed = false;
  private readonly exited: Promise<void>;
  private markExited!: () => void;

  constructor(
    private readonly launch: ChildLaunch,
    private readonly options: ChildTransportOptions,
  ) {
    this.exited = new Promise((resolve) => (this.markExited = resolve));
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  /** How the server is contained, once started, e.g. `sandboxed, network off`. */
  containment: string | undefined;
  private started = false;
  private allowListedEnv: Record<string, string> | undefined;

  async start(): Promise<void> {
    if (this.started) throw new Error('The MCP stdio transport was already started.');
    this.started = true;
    const marker = randomUUID();
    const cwd = this.launch.cwd ?? this.options.sandbox?.roots[0];
    const sandbox = await this.prepareSandbox(marker, cwd ?? process.cwd());
    return new Promise((resolve, reject) => {
      const env = { ...(this.allowListedEnv ?? this.launch.env), [MARKER_VARIABLE]: marker };
      const child = sandbox
        ? spawnSandboxed(sandbox, [this.launch.command, ...this.launch.args], { cwd: cwd ?? process.cwd(), stdio: ['pipe', 'pipe', 'pipe'] })
        : spawn(this.launch.command, this.launch.args, {
            cwd: this.launch.cwd,
            env,
            stdio: ['pipe', 'pipe', 'pipe'],
            detached: process.platform !== 'win32',
            shell: process.platform === 'win32',
            windowsHide: true,
          });
      if (sandbox) child.once('exit', () => void sandbox.dispose()).once('error', () => void sandbox.dispose());
      this.child = child;
      if (child.pid !== undefined) this.tracker = new ProcessTracker(child.pid, `${MARKER_VARIABLE}=${marker}`);
      child.once('spawn', () => {
        if (child.pid !== undefined) this.options.onSpawn?.(child.pid);
        resolve();
      });
      child.once('error', (error: NodeJS.ErrnoException) => {
        const message = error.code === 'ENOENT' ? `command not found: ${this.launch.command}` : `cannot start ${this.launch.command}: ${error.message}`;
        if (child.pid === undefined) {
          this.spawnFailed = true;
          this.markExited();
          reject(new Error(message));
        } else this.onerror?.(new Error(message));
      });
      child.stdin?.on('error', (error) => this.onerror?.(error));
      child.stdout?.on('data', (chunk: Buffer) => this.receive(chunk));
      child.stderr?.setEncoding('utf8').on('data', (chunk: string) => this.options.onStderr(chunk));
      child.once('exit', (code, signal) => {
        this.exit = { code, signal };
        this.markExited();
        // Let stdout drain before telling the client, but never wait on a pipe a grandchild holds.
        const timer = setTimeout(() => this.finish(), 500);
        timer.unref();
        child.once('close', () => {
          clearTimeout(timer);
          this.finish();
        });
      });
    });
  }

  /**
   * The sandbox the server runs in, or undefined to run it as before: none asked for, `mode: 'off'`,
   * or `auto` where no sandbox is available (approving the server was the consent; `containment`
   * says so). `required` without a sandbox rejects, saying why.
   */
  private async prepareSandbox(marker: string, cwd: string): Promise<PreparedSandbox | undefined> {
    const request = this.options.sandbox;
    if (!request || process.platform === 'win32') return undefined;
    const decision = sandboxDecision(request.setting, await sandboxAvailability(), `Start ${this.launch.command}`);
    if (decision.kind === 'refuse') throw new Error(decision.message.replace('Nothing was run.', 'The server was not started.'));
    const engine = decision.kind === 'sandboxed' ? await sandboxEngine() : undefined;
    this.containment = describeContainment(request.setting, engine !== undefined);
    const extraEnvNames = [...(request.extraEnvNames ?? []), MARKER_VARIABLE];
    // No sandbox here but not switched off: the environment is still cut to the allow-list.
    if (decision.kind === 'ask') this.allowListedEnv = sandboxEnvironment(this.launch.env, [...(request.setting.env ?? []), ...extraEnvNames], {});
    if (!engine) return undefined;
    return prepareSandbox({ ...request, cwd, sourceEnv: { ...this.launch.env, [MARKER_VARIABLE]: marker }, extraEnvNames }, engine);
  }

  send(message: JSONRPCMessage): Promise<void> {
    const stdin = this.child?.stdin;
    if (!stdin || this.exit || this.closing || stdin.destroyed) return Promise.reject(new Error('The MCP server is not running.'));
    return new Promise((resolve, reject) => {
      stdin.write(`${JSON.stringify(message)}\n`, (error) => (error ? reject(error) : resolve()));
    });
  }

  /** Stops the server and everything it started; resolves when the tree is gone. Idempotent. */
  close(): Promise<void> {
    this.closing ??= this.stopTree();
    return this.closing;
  }

  private async stopTree(): Promise<void> {
    const grace = this.options.killGraceMs ?? 2000;
    const child = this.child;
    const running = () => child !== undefined && !this.exit && !this.spawnFailed;
    if (running()) {
      child?.stdin?.end();
      await Promise.race([this.exited, delay(grace)]);
    }
    // Even after a clean exit, children it left behind (same group, or marked) are stopped.
    if (process.platform === 'win32') {
      // No process groups or signals there (untested in CI): taskkill ends the whole tree.
      if (running() && child?.pid !== undefined) spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => child.kill());
    } else if (this.tracker && (running() || (await this.tracker.hasLeftovers()))) await this.tracker.kill(running() ? grace : 0);
    this.tracker?.dispose();
    if (running()) await Promise.race([this.exited, delay(grace)]);
    if (running()) child?.kill('SIGKILL');
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    this.finish();
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }

  private receive(chunk: Buffer): void {
    let start = 0;
    let newline = chunk.indexOf(NEWLINE);
    while (newline !== -1) {
      this.chunks.push(chunk.subarray(start, newline));
      const line = Buffer.concat(this.chunks).toString('utf8');
      this.chunks = [];
      this.pendingBytes = 0;
      this.handleLine(line);
      start = newline + 1;
      newline = chunk.indexOf(NEWLINE, start);
    }
    if (start < chunk.length) {
      this.chunks.push(chunk.subarray(start));
      this.pendingBytes += chunk.length - start;
      const max = this.options.maxMessageBytes ?? 32 * 1024 * 1024;
      if (this.pendingBytes > max) {
        this.chunks = [];
        this.pendingBytes = 0;
        this.onerror?.(new Error(`the server sent a message over ${Math.round(max / (1024 * 1024))} MB; it was stopped.`));
        void this.close();
      }
    }
  }

  private handleLine(raw: string): void {
    const line = raw.trim();
    if (line === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.options.onMalformed(line);
      return;
    }
    if (typeof message !== 'object' || message === null || (message as { jsonrpc?: unknown }).jsonrpc !== '2.0') {
      this.options.onMalformed(line);
      return;
    }
    this.onmessage?.(message as JSONRPCMessage);
  }
}

const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());
