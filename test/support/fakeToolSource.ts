import type { SourceCallResult, SourceDisposable, SourceState, SourceTool, ToolSource } from '../../src/tools/toolSource';

export interface FakeCall {
  tool: string;
  args: Record<string, unknown>;
  signal?: AbortSignal;
}

type Responder = (call: FakeCall) => Promise<SourceCallResult> | SourceCallResult;

/**
 * An in-memory ToolSource for catalog and manager tests: its state, its tools and its answers
 * are set by the test, and every change fires `onDidChange` as a real source does. Tools are
 * offered only while it runs, like an MCP server's.
 */
export class FakeToolSource implements ToolSource {
  readonly kind: 'mcp' | 'extension';
  readonly label: string;
  readonly calls: FakeCall[] = [];
  starts = 0;
  private current: SourceState;
  private offered: SourceTool[];
  private readonly listeners = new Set<() => void>();
  private responder: Responder = (call) => ({ text: `${call.tool} ran with ${JSON.stringify(call.args)}`, isError: false });
  /** What `start()` ends in; `failed` to simulate a server that does not come up. */
  startsInto: SourceState = { state: 'running' };

  constructor(
    readonly id: string,
    options: { kind?: 'mcp' | 'extension'; label?: string; tools?: SourceTool[]; state?: SourceState } = {},
  ) {
    this.kind = options.kind ?? 'mcp';
    this.label = options.label ?? id;
    this.offered = options.tools ?? [];
    this.current = options.state ?? { state: 'not-started' };
  }

  state(): SourceState {
    return this.current;
  }

  tools(): readonly SourceTool[] {
    return this.current.state === 'running' ? this.offered : [];
  }

  async start(): Promise<void> {
    this.starts++;
    if (this.current.state === 'running') return;
    this.setState({ state: 'starting' });
    await Promise.resolve();
    this.setState(this.startsInto);
  }

  async stop(): Promise<void> {
    this.setState({ state: 'stopped' });
  }

  async call(tool: string, args: Record<string, unknown>, options: { signal?: AbortSignal } = {}): Promise<SourceCallResult> {
    const call = { tool, args, signal: options.signal };
    this.calls.push(call);
    return this.responder(call);
  }

  onDidChange(listener: () => void): SourceDisposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  /** How calls are answered from now on. */
  respond(responder: Responder): void {
    this.responder = responder;
  }

  setState(state: SourceState): void {
    this.current = state;
    this.fire();
  }

  /** A changed tool list (MCP `tools/list_changed`). */
  setTools(tools: SourceTool[]): void {
    this.offered = tools;
    this.fire();
  }

  get listenerCount(): number {
    return this.listeners.size;
  }

  private fire(): void {
    for (const listener of [...this.listeners]) listener();
  }
}

/** A source tool with a one-string-parameter schema, enough for most tests. */
export function sourceTool(name: string, extra: Partial<SourceTool> = {}): SourceTool {
  return {
    name,
    description: `The ${name} tool`,
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: [] },
    ...extra,
  };
}

/** A ToolManager logger that keeps what it was told. */
export class RecordingLogger {
  warnings: string[] = [];
  errors: string[] = [];
  warn(message: string) {
    this.warnings.push(message);
  }
  error(message: string) {
    this.errors.push(message);
  }
}
