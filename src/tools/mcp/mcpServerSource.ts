import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { IsolationKind } from '../sandbox';
import { ToolCancelledError } from '../toolErrors';
import type { SourceCallResult, SourceDisposable, SourceState, SourceTool, ToolSource } from '../toolSource';
import { toSourceCallResult, type McpCallResultLike } from './callResult';
import { ChildProcessTransport, type ChildExit } from './childProcessTransport';
import { definitionHash } from './definitionHash';
import { loadSdkClient, type SdkClientModule } from './loadSdkClient';
import { DEFAULT_MCP_LIMITS, type McpLimits, type McpLogger } from './mcpLimits';
import type { McpInputDefinition, McpServerConfig } from './mcpConfig';
import { readEnvFileText, resolveMcpServer, type McpVariableContext, type ResolvedMcpServer } from './mcpVariables';
import type { SandboxRequest } from '../sandbox';
import { StderrTail } from './stderrTail';
import { listAllTools } from './toolListing';

export type { McpLimits, McpLogger };
export { DEFAULT_MCP_LIMITS };

export interface McpServerSourceOptions {
  server: McpServerConfig;
  /** The `inputs` its `${input:id}` references name. */
  inputs?: readonly McpInputDefinition[];
  variables?: McpVariableContext;
  /**
   * Asked before every start with the definition as written and its hash (definitionHash.ts);
   * the VS Code side decides from trust and the remembered approvals. `false` → failed: "not approved".
   */
  approve(definition: McpServerConfig, hash: string): Promise<boolean>;
  /**
   * Asked before a stdio server starts without the OS sandbox (toolbelt.sandbox.mode "auto" and none
   * here), with why; as run_bash asks for each such command. Absent, or false: it does not start.
   */
  approveUnsandboxed?(definition: McpServerConfig, hash: string, detail: string): Promise<boolean>;
  logger: McpLogger;
  limits?: Partial<McpLimits>;
  clientInfo?: { name: string; version: string };
  /** Tests may count loads; the default loads the SDK lazily. */
  loadSdk?: () => Promise<SdkClientModule>;
  /** How a stdio server's processes are contained; the detected way when absent (tests force 'process-group'). */
  isolation?: IsolationKind;
  /** The OS sandbox a stdio server starts in (read at each start); none: it runs as before. */
  sandbox?: () => Omit<SandboxRequest, 'cwd'> | undefined;
}

interface Session {
  client: Client;
  transport: Transport;
  child?: ChildProcessTransport;
  stderr?: StderrTail;
  closedByUs: boolean;
  /** The transport closed (the process exited, the connection dropped, or stop()). */
  ended?: boolean;
}

const MAX_MALFORMED_LOGGED = 20;

/** One MCP server as a tool source: started on demand, its tools listed, its calls bounded. */
export class McpServerSource implements ToolSource {
  readonly id: string;
  readonly kind = 'mcp' as const;
  readonly label: string;
  readonly origin: string;
  private readonly limits: McpLimits;
  private current: SourceState = { state: 'not-started' };
  private toolList: readonly SourceTool[] = [];
  private session: Session | undefined;
  private starting: Promise<void> | undefined;
  private generation = 0;
  private readonly listeners = new Set<() => void>();
  private relisting = false;
  private relistAgain = false;
  /** Cuts of tool definitions already warned about, so a server re-listing its tools does not repeat them. */
  private readonly warnedAbout = new Set<string>();

  constructor(private readonly options: McpServerSourceOptions) {
    this.id = options.server.name;
    this.label = options.server.name;
    this.origin = options.server.origin;
    this.limits = { ...DEFAULT_MCP_LIMITS, ...options.limits };
  }

  state(): SourceState {
    return this.current;
  }

  tools(): readonly SourceTool[] {
    return this.toolList;
  }

  /** The process id of a running stdio server. */
  get pid(): number | undefined {
    return this.session?.child?.pid;
  }

  get containment(): string | undefined {
    return this.session?.child?.containment;
  }

  onDidChange(listener: () => void): SourceDisposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  start(): Promise<void> {
    if (this.current.state === 'running') return Promise.resolve();
    if (this.starting) return this.starting;
    const starting: Promise<void> = this.run().finally(() => {
      if (this.starting === starting) this.starting = undefined;
    });
    this.starting = starting;
    return starting;
  }

  async stop(): Promise<void> {
    // A start in flight notices the new generation and gives up; a later start() begins afresh.
    this.generation++;
    this.starting = undefined;
    const session = this.session;
    this.session = undefined;
    if (session) await this.closeSession(session);
    this.toolList = [];
    if (this.current.state !== 'not-started') this.setState({ state: 'stopped' });
  }

  async call(tool: string, args: Record<string, unknown>, options: { signal?: AbortSignal } = {}): Promise<SourceCallResult> {
    const { signal } = options;
    if (signal?.aborted) throw new ToolCancelledError(`Cancelled before ${this.describeCall(tool)} started.`);
    // A failed server is not retried on every call (it may need a person's approval): the tree restarts it.
    if (this.current.state === 'not-started' || this.current.state === 'stopped' || this.current.state === 'starting') await this.start();
    const session = this.session;
    const now = this.state();
    if (now.state !== 'running' || !session) {
      throw new Error(`MCP server "${this.id}" is not running${now.state === 'failed' ? `: ${now.reason}` : ''}. Restart it from the Tools view.`);
    }
    const sdk = await this.loadSdk();
    // A signal of its own per call: the SDK never removes its abort listener, and a turn's signal outlives many calls.
    const local = new AbortController();
    const forward = () => local.abort(signal?.reason);
    signal?.addEventListener('abort', forward, { once: true });
    try {
      const result = await session.client.callTool({ name: tool, arguments: args }, undefined, { signal: local.signal, timeout: this.limits.callTimeoutMs });
      return toSourceCallResult(result as McpCallResultLike, this.limits.maxOutputChars);
    } catch (error) {
      if (signal?.aborted) throw new ToolCancelledError(`Cancelled ${this.describeCall(tool)}; the server was told (notifications/cancelled).`);
      const kind = sdk.errorKind(error);
      if (kind === 'timeout') throw new Error(`${this.describeCall(tool)} did not finish within ${seconds(this.limits.callTimeoutMs)} s; it was cancelled.`);
      if (kind === 'closed' || session.child?.exit) {
        const ended = this.state();
        const reason = ended.state === 'failed' ? ended.reason : 'the connection closed';
        throw new Error(`MCP server "${this.id}" stopped during ${this.describeCall(tool)}: ${reason}`);
      }
      if (kind === 'server') return { text: `MCP server "${this.id}" refused the call: ${(error as Error).message}`, isError: true };
      throw new Error(`${this.describeCall(tool)} failed: ${(error as Error).message}`);
    } finally {
      signal?.removeEventListener('abort', forward);
    }
  }

  /** The last stderr lines of the current or last stdio process. */
  recentStderr(): string[] {
    return this.lastStderr?.recent() ?? [];
  }

  private lastStderr: StderrTail | undefined;

  private async run(): Promise<void> {
    const generation = ++this.generation;
    const { server } = this.options;
    const variables = this.options.variables ?? {};
    this.setState({ state: 'starting' });
    try {
      const envFileText = await readEnvFileText(server, variables);
      const hash = definitionHash(server, envFileText);
      const approved = await this.options.approve(server, hash).catch((error: Error) => {
        this.options.logger.warn(`MCP server "${this.id}": the approval failed: ${error.message}`);
        return false;
      });
      if (generation !== this.generation) return;
      if (!approved) return this.fail('not approved');
      const resolved = await resolveMcpServer(server, this.options.inputs ?? [], variables, envFileText);
      const sdk = await this.loadSdk();
      if (generation !== this.generation) return;
      const session = await this.connect(sdk, resolved, generation, hash);
      if (generation !== this.generation) return;
      await this.listTools(session);
      if (generation !== this.generation) return;
      if (session.ended) throw new Error('the connection closed');
      this.setState({ state: 'running' });
      this.options.logger.info(`MCP server "${this.id}" is running${session.child ? ` (pid ${session.child.pid})` : ''} with ${this.toolList.length} tools.`);
    } catch (error) {
      if (generation !== this.generation) return;
      const session = this.session;
      this.session = undefined;
      if (session) await this.closeSession(session);
      this.fail(this.startFailure(error, session));
    }
  }

  private async connect(sdk: SdkClientModule, resolved: ResolvedMcpServer, generation: number, hash: string): Promise<Session> {
    const info = this.options.clientInfo ?? { name: 'toolbelt', version: '0.1.0' };
    const requestOptions = { timeout: this.limits.initializeTimeoutMs };
    let session: Session | undefined;
    if (resolved.type === 'stdio') {
      const stderr = new StderrTail(this.limits.stderrLines, this.limits.stderrLineChars, (line) => this.options.logger.info(`[${this.id} stderr] ${line}`));
      this.lastStderr = stderr;
      let malformed = 0;
      const sandbox = this.options.sandbox?.();
      // The server's own variables (its `env` and `envFile`) pass into the sandbox; the rest of the host's do not.
      const ownEnv = Object.keys(resolved.env).filter((name) => Object.hasOwn(this.options.server.type === 'stdio' ? this.options.server.env : {}, name) || process.env[name] !== resolved.env[name]);
      const child: ChildProcessTransport = new ChildProcessTransport(resolved, {
        // As written, not resolved: substituted inputs are secrets.
        onSpawn: (pid) => this.options.logger.info(`MCP server "${this.id}" started: pid ${pid}, ${this.commandAsWritten()}${child.containment ? ` (${child.containment})` : ''}`),
        ...(sandbox && { sandbox: { ...sandbox, extraEnvNames: [...(sandbox.extraEnvNames ?? []), ...ownEnv], confirmUnsandboxed: (detail: string) => this.approveUnsandboxed(hash, detail) } }),
        onStderr: (chunk) => stderr.append(chunk),
        onMalformed: (line) => {
          malformed++;
          if (malformed <= MAX_MALFORMED_LOGGED) this.options.logger.warn(`MCP server "${this.id}" wrote a line that is not JSON-RPC: ${line.slice(0, 200)}`);
          if (malformed === MAX_MALFORMED_LOGGED) this.options.logger.warn(`MCP server "${this.id}": further malformed lines are not logged.`);
        },
        onOversized: (cut) =>
          this.options.logger.warn(
            `MCP server "${this.id}" sent a message of ${cut.bytes.toLocaleString('en-US')} bytes, over the ${megabytes(this.limits.maxMessageBytes)} Toolbelt reads whole; ` +
              `it was read as it arrived and cut (${cut.strings} long strings cut, ${cut.items} items and ${cut.deep} deep parts left out).`,
          ),
        killGraceMs: this.limits.killGraceMs,
        maxMessageBytes: this.limits.maxMessageBytes,
        stopMessageBytes: this.limits.stopMessageBytes,
        isolation: this.options.isolation,
      });
      const client = sdk.createClient(info, () => this.onToolsChanged(session));
      session = { client, transport: child, child, stderr, closedByUs: false };
      this.attach(session);
      await sdk.connect(client, child, requestOptions);
    } else {
      const connected = await sdk
        .connectHttp(() => sdk.createClient(info, () => this.onToolsChanged(session)), resolved.url, resolved.headers, resolved.type, requestOptions)
        .catch((error: Error) => {
          // The query string is left out: it may carry a substituted secret.
          const cause = error.cause as NodeJS.ErrnoException | undefined;
          const detail = cause?.code ?? cause?.message;
          throw new Error(`cannot connect to ${resolved.url.origin}${resolved.url.pathname}: ${error.message}${detail ? ` (${detail})` : ''}`);
        });
      session = { client: connected.client, transport: connected.transport, closedByUs: false };
      if (generation === this.generation) {
        this.attach(session);
        this.options.logger.info(`MCP server "${this.id}" connected over ${connected.via}.`);
      }
    }
    if (generation !== this.generation) {
      if (this.session === session) this.session = undefined;
      await this.closeSession(session);
    }
    return session;
  }

  /** Makes a session current and watches it for a crash or a dropped connection. */
  private attach(session: Session): void {
    this.session = session;
    let errors = 0;
    session.client.onerror = (error) => {
      errors++;
      if (errors <= MAX_MALFORMED_LOGGED) this.options.logger.warn(`MCP server "${this.id}": ${error.message.slice(0, 500)}`);
      if (errors === MAX_MALFORMED_LOGGED) this.options.logger.warn(`MCP server "${this.id}": further protocol errors are not logged.`);
    };
    session.client.onclose = () => this.onSessionClosed(session);
  }

  private onSessionClosed(session: Session): void {
    session.ended = true;
    session.stderr?.flush();
    // While starting, run() turns the closed connection into the failure reason.
    if (session.closedByUs || session !== this.session || this.current.state !== 'running') return;
    this.session = undefined;
    // Sweeps up anything the crashed server left running.
    void session.transport.close().catch(() => undefined);
    const reason = this.endReason(session);
    const tail = session.stderr?.recent() ?? [];
    this.options.logger.error(`MCP server "${this.id}" crashed: ${reason}${tail.length ? `\nLast stderr lines:\n${tail.join('\n')}` : ''}`);
    this.fail(reason);
  }

  private onToolsChanged(session: Session | undefined): void {
    if (!session || session !== this.session) return;
    if (this.relisting) {
      this.relistAgain = true;
      return;
    }
    this.relisting = true;
    void (async () => {
      do {
        this.relistAgain = false;
        try {
          await this.listTools(session);
        } catch (error) {
          this.options.logger.warn(`MCP server "${this.id}": listing its changed tools failed: ${(error as Error).message}`);
        }
      } while (this.relistAgain && session === this.session);
      this.relisting = false;
      if (session === this.session) this.fire();
    })();
  }

  private async listTools(session: Session): Promise<void> {
    const tools = await listAllTools(session.client, this.id, this.limits, this.options.logger, this.warnedAbout);
    if (session === this.session) this.toolList = tools;
  }

  private async closeSession(session: Session): Promise<void> {
    session.closedByUs = true;
    await session.client.close().catch(() => undefined);
    await session.transport.close().catch(() => undefined);
  }

  /** Whether the server may start without the sandbox: the caller's person decides; nobody to ask is a no. */
  private async approveUnsandboxed(hash: string, detail: string): Promise<boolean> {
    const ask = this.options.approveUnsandboxed;
    if (!ask) return false;
    return ask.call(this.options, this.options.server, hash, detail).catch((error: Error) => {
      this.options.logger.warn(`MCP server "${this.id}": asking to start it without a sandbox failed: ${error.message}`);
      return false;
    });
  }

  private startFailure(error: unknown, session: Session | undefined): string {
    const message = (error as Error).message ?? String(error);
    if (session?.child?.stoppedBecause) return session.child.stoppedBecause;
    if (/timed out/i.test(message) && session) return `did not answer initialize within ${seconds(this.limits.initializeTimeoutMs)} s`;
    if (session?.child?.exit) return `${this.endReason(session)} before it was ready`;
    return message.replace(/^MCP server "[^"]*":\s*/, '');
  }

  private endReason(session: Session): string {
    const exit: ChildExit | undefined = session.child?.exit;
    if (!session.child) return 'the connection closed';
    // Toolbelt stopped it: what the server wrote as it went down (EPIPE) is not the reason.
    if (session.child.stoppedBecause) return session.child.stoppedBecause;
    const how = !exit ? 'the connection closed' : exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
    const tail = session.stderr?.recent().slice(-3) ?? [];
    return tail.length ? `${how}; stderr: ${tail.join(' | ')}` : how;
  }

  private fail(reason: string): void {
    this.toolList = [];
    this.setState({ state: 'failed', reason });
    this.options.logger.warn(`MCP server "${this.id}" failed: ${reason}`);
  }

  private setState(state: SourceState): void {
    this.current = state;
    this.fire();
  }

  private fire(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.options.logger.error(`A listener of MCP server "${this.id}" threw: ${(error as Error).message}`);
      }
    }
  }

  private loadSdk(): Promise<SdkClientModule> {
    return (this.options.loadSdk ?? loadSdkClient)();
  }

  private commandAsWritten(): string {
    const { server } = this.options;
    return server.type === 'stdio' ? [server.command, ...server.args].join(' ') : server.url;
  }

  private describeCall(tool: string): string {
    return `the call to "${this.id}/${tool}"`;
  }
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

function seconds(ms: number): string {
  return String(Math.round(ms / 100) / 10);
}
