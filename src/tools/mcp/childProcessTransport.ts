import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { IsolationKind } from '../sandbox';
import { ProcessTracker, type TreeKiller } from '../sandbox';
import { describeContainment, sandboxAvailability, sandboxDecision, sandboxEngine } from '../sandbox';
import { sandboxEnvironment } from '../sandbox';
import { prepareSandbox, type PreparedSandbox, type SandboxRequest } from '../sandbox';
import { SandboxKiller, spawnSandboxed } from '../sandbox';
import type { BoundedJsonLimits } from './boundedJson';
import { MessageReader, type MessageCut } from './messageReader';
import { spawnServer, type ChildLaunch, type ServerProcess } from './serverProcess';

export type { ChildLaunch };

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
  /** A message up to this size is parsed whole; a larger one is read as it arrives and cut (messageReader.ts; default 4 MB). */
  maxMessageBytes?: number;
  /** A message over maxMessageBytes arrived, and what of it was left out. */
  onOversized?(cut: MessageCut): void;
  /** A line past this size stops the server as soon as it crosses it (default 32 MB; messageReader.ts). */
  stopMessageBytes?: number;
  /** How long stop waits after closing stdin, and again after SIGTERM, before escalating (default 2 s). */
  killGraceMs?: number;
  /** Use this containment instead of the detected one (tests force 'process-group'). */
  isolation?: IsolationKind;
  /** Run the server inside the OS sandbox (sandboxLaunch.ts) as this request says; without it, as before. */
  sandbox?: Omit<SandboxRequest, 'cwd'>;
}

/** Marks every process a server starts, so a child that leaves the process group is still found. */
const MARKER_VARIABLE = 'TOOLBELT_MCP_RUN_ID';
/** Why a server did not start without the sandbox (toolbelt.sandbox.mode "auto", none here, nobody allowed it). */
export const UNSANDBOXED_NOT_ALLOWED = 'not started: no sandbox is available here, and nobody allowed this server to run without one';
/** A line past this size stops the server as soon as it crosses it (mcpLimits.ts stopMessageBytes). */
export const DEFAULT_STOP_MESSAGE_BYTES = 32 * 1024 * 1024;
/** What of an oversized message is kept: more than any cap after it (output 30,000, description 2,048 characters). */
export const OVERSIZED_LIMITS: Readonly<BoundedJsonLimits> = Object.freeze({ stringChars: 256 * 1024, keptChars: 4 * 1024 * 1024, depth: 64 });

/**
 * MCP's stdio transport, written for Toolbelt rather than the SDK's so that it can report how the
 * server ended (exit code, signal), contain it (the OS sandbox where the settings ask for it and the
 * machine has one; else serverProcess.ts: a PID namespace of its own, or a process group with a
 * tracker) and stop the whole tree: stdin closed, then SIGTERM, then SIGKILL
 * for everything it started, so nothing outlives stop(). Non-JSON lines on stdout are reported and
 * skipped, and an oversized message is cut, not fatal.
 */
export class ChildProcessTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: <T extends JSONRPCMessage>(message: T) => void;

  /** How the process ended; set before onclose fires. */
  exit: ChildExit | undefined;
  /** Why Toolbelt stopped the server on its own (a message over the limit); set before onclose fires. */
  stoppedBecause: string | undefined;
  private child: ChildProcess | undefined;
  private killer: TreeKiller | undefined;
  private started = false;
  /** How the server's processes are contained, once started, e.g. `sandboxed, network off`. */
  containment: string | undefined;
  /** Set when the server runs without a sandbox that was not switched off: the environment is cut to the allow-list all the same. */
  private allowListedEnv: Record<string, string> | undefined;
  private readonly reader: MessageReader;
  private closing: Promise<void> | undefined;
  /** Settles once the process exists (or could not be made); stop waits for it, so a start in flight is stopped too. */
  private spawning: Promise<void> | undefined;
  private closed = false;
  private spawnFailed = false;
  private readonly exited: Promise<void>;
  private markExited!: () => void;

  constructor(
    private readonly launch: ChildLaunch,
    private readonly options: ChildTransportOptions,
  ) {
    this.exited = new Promise((resolve) => (this.markExited = resolve));
    const maxMessageBytes = options.maxMessageBytes ?? 4 * 1024 * 1024;
    const stopMessageBytes = Math.max(options.stopMessageBytes ?? DEFAULT_STOP_MESSAGE_BYTES, maxMessageBytes);
    this.reader = new MessageReader(
      { maxMessageBytes, stopMessageBytes, oversized: { ...OVERSIZED_LIMITS, keptChars: maxMessageBytes } },
      {
        message: (message) => this.onmessage?.(message),
        malformed: (line) => this.options.onMalformed(line),
        oversized: (cut) => this.options.onOversized?.(cut),
        overLimit: () => this.stopOverLimit(stopMessageBytes),
      },
    );
  }

  get pid(): number | undefined {
    return this.child?.pid;
  }

  async start(): Promise<void> {
    if (this.started) throw new Error('The MCP stdio transport was already started.');
    this.started = true;
    const marker = randomUUID();
    const cwd = this.launch.cwd ?? this.options.sandbox?.roots[0] ?? process.cwd();
    const spawning = this.spawn(marker, cwd);
    this.spawning = spawning.then(
      () => undefined,
      () => undefined,
    );
    await spawning.catch((error: NodeJS.ErrnoException) => {
      this.spawnFailed = true;
      this.markExited();
      throw new Error(error.code ? this.spawnError(error) : error.message);
    });
    // close() came while the sandbox or the namespace was being prepared: it stops the process made
    // since (stopTree waits for the spawn), and the start fails instead of serving.
    if (this.closing) throw new Error('The MCP server was stopped while it was starting.');
  }

  /**
   * Spawns the server and listens to it at once. Whether it started is read from the process
   * itself (a pid means it runs), not from the 'spawn' event of a later tick, which an await
   * between the spawn and the listener could let pass unheard: a start that never settles.
   */
  private async spawn(marker: string, cwd: string): Promise<void> {
    const { child, killer } = await this.spawnContained(marker, cwd);
    this.child = child;
    this.killer = killer;
    child.stdin?.on('error', (error) => this.onerror?.(error));
    child.stdout?.on('data', (chunk: Buffer) => this.reader.push(chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => this.options.onStderr(chunk));
    child.once('exit', (code, signal) => {
      this.exit = { code, signal };
      this.markExited();
      // Let stdout drain before telling the client, but never wait on a pipe a grandchild holds.
      // Not unref'd: whoever awaits the start or a call waits on this (see delay below).
      const timer = setTimeout(() => this.finish(), 500);
      child.once('close', () => {
        clearTimeout(timer);
        this.finish();
      });
    });
    if (child.pid !== undefined) {
      child.on('error', (error: NodeJS.ErrnoException) => this.onerror?.(new Error(this.spawnError(error))));
      this.options.onSpawn?.(child.pid);
      return;
    }
    // No pid: the spawn failed, and Node says why on a later tick ('error', then 'close').
    await new Promise<never>((_resolve, reject) => {
      child.once('error', reject);
      child.once('close', () => reject(new Error(`cannot start ${this.launch.command}`)));
    });
  }

  /** In the sandbox when one is to be used; otherwise as serverProcess.ts contains it. */
  private async spawnContained(marker: string, cwd: string): Promise<ServerProcess> {
    const sandbox = await this.prepareSandbox(marker, cwd);
    if (sandbox) {
      const child = spawnSandboxed(sandbox, [this.launch.command, ...this.launch.args], { cwd, stdio: ['pipe', 'pipe', 'pipe'] });
      child.once('exit', () => void sandbox.dispose()).once('error', () => void sandbox.dispose());
      return { child, killer: new SandboxKiller(child), containment: this.containment ?? 'sandboxed' };
    }
    const launch = this.allowListedEnv ? { ...this.launch, env: this.allowListedEnv } : this.launch;
    const spawned = await spawnServer(launch, { name: MARKER_VARIABLE, value: marker }, this.options.isolation);
    this.containment = this.containment ? `${this.containment}; ${spawned.containment}` : spawned.containment;
    return spawned;
  }

  /**
   * The sandbox the server runs in, or undefined to run it as before: none asked for, or
   * `mode: 'off'`. Without a sandbox here, the rule is run_bash's: `required` rejects, and `auto`
   * runs it only once a person allowed that start (`confirmUnsandboxed`), saying why it was not otherwise.
   */
  private async prepareSandbox(marker: string, cwd: string): Promise<PreparedSandbox | undefined> {
    const request = this.options.sandbox;
    if (!request || process.platform === 'win32') return undefined;
    const availability = await sandboxAvailability();
    const decision = sandboxDecision(request.setting, availability, `Start ${this.launch.command}`);
    if (decision.kind === 'refuse') throw new Error(decision.message.replace('Nothing was run.', 'The server was not started.'));
    if (decision.kind === 'ask') {
      const why = `it would run without a sandbox, with your account's full powers (${availability.detail.replace(/\.$/, '')})`;
      if (!(await (request.confirmUnsandboxed?.(why) ?? Promise.resolve(false)))) throw new Error(`${UNSANDBOXED_NOT_ALLOWED}: ${why}.`);
    }
    const engine = decision.kind === 'sandboxed' ? await sandboxEngine() : undefined;
    this.containment = describeContainment(request.setting, engine !== undefined);
    const extraEnvNames = [...(request.extraEnvNames ?? []), MARKER_VARIABLE];
    // No sandbox here but not switched off: the environment is still cut to the allow-list.
    if (decision.kind === 'ask') this.allowListedEnv = sandboxEnvironment(this.launch.env, [...(request.setting.env ?? []), ...extraEnvNames], {});
    if (!engine) return undefined;
    const programWords = [this.launch.command, ...this.launch.args];
    return prepareSandbox({ ...request, cwd, sourceEnv: { ...this.launch.env, [MARKER_VARIABLE]: marker }, extraEnvNames, programWords }, engine);
  }

  private spawnError(error: NodeJS.ErrnoException): string {
    return error.code === 'ENOENT' ? `command not found: ${this.launch.command}` : `cannot start ${this.launch.command}: ${error.message}`;
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

  /** A line crossed the hard limit: nothing more is read, and the server is stopped now (not at a timeout). */
  private stopOverLimit(limit: number): void {
    if (this.stoppedBecause) return;
    this.stoppedBecause = `sent a message over the ${Math.round(limit / (1024 * 1024))} MB limit; it was stopped`;
    // The server's further writes fail (EPIPE) instead of piling up in the pipe.
    this.child?.stdout?.destroy();
    this.onerror?.(new Error(`the server ${this.stoppedBecause}.`));
    void this.close();
  }

  private async stopTree(): Promise<void> {
    await this.spawning;
    const grace = this.options.killGraceMs ?? 2000;
    const child = this.child;
    const running = () => child !== undefined && !this.exit && !this.spawnFailed;
    // While the server still runs, its descendants are still its descendants: a look now remembers
    // them all, before closing stdin lets it exit and orphan them (the tracker knows them by that).
    if (running() && this.killer instanceof ProcessTracker) await this.killer.hasLeftovers();
    if (running()) {
      child?.stdin?.end();
      await Promise.race([this.exited, delay(grace)]);
    }
    // Even after a clean exit, children it left behind (same group, or marked) are stopped.
    if (process.platform === 'win32') {
      // No process groups or signals there (untested in CI): taskkill ends the whole tree.
      if (running() && child?.pid !== undefined) spawn('taskkill', ['/pid', String(child.pid), '/T', '/F'], { stdio: 'ignore', windowsHide: true }).on('error', () => child.kill());
    } else if (this.killer && (running() || (await this.killer.hasLeftovers()))) await this.killer.kill(running() ? grace : 0);
    this.killer?.dispose();
    // Signals are sent, not yet delivered (a namespace ends through its first process): wait until
    // /proc shows nobody left, so stop() means gone.
    if (this.killer) await this.untilNoLeftovers(this.killer, grace);
    if (running()) await Promise.race([this.exited, delay(grace)]);
    if (running()) child?.kill('SIGKILL');
    child?.stdout?.destroy();
    child?.stderr?.destroy();
    this.finish();
  }

  private async untilNoLeftovers(killer: TreeKiller, graceMs: number): Promise<void> {
    const deadline = Date.now() + graceMs;
    while ((await killer.hasLeftovers().catch(() => false)) && Date.now() < deadline) await delay(20);
  }

  private finish(): void {
    if (this.closed) return;
    this.closed = true;
    this.onclose?.();
  }
}

/**
 * A wait someone awaits (a start's failure cleanup, stop()) keeps the event loop alive: an unref'd
 * timer there leaves a process with nothing else to do (a test runner, the CLI) an empty loop and
 * a promise nobody settles, so stop() and the start that failed never return.
 */
const delay = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));
