import type { SourceCallResult, SourceDisposable, SourceState, SourceTool, ToolSource } from '../../tools/toolSource';

/**
 * An MCP server as the tree and the manager see it: the server itself, with the approval gate's
 * reason in place of a bare "not approved" (`failed: workspace not trusted`).
 */
export class GuardedSource implements ToolSource {
  readonly kind = 'mcp' as const;

  constructor(
    readonly inner: ToolSource & { readonly pid?: number },
    private readonly denial: () => string | undefined,
  ) {}

  get id(): string {
    return this.inner.id;
  }

  get label(): string {
    return this.inner.label;
  }

  get origin(): string | undefined {
    return this.inner.origin;
  }

  /** The process id of a running stdio server. */
  get pid(): number | undefined {
    return this.inner.pid;
  }

  get containment(): string | undefined {
    return this.inner.containment;
  }

  state(): SourceState {
    const state = this.inner.state();
    const denial = state.state === 'failed' && state.reason === 'not approved' ? this.denial() : undefined;
    return denial ? { state: 'failed', reason: denial } : state;
  }

  tools(): readonly SourceTool[] {
    return this.inner.tools();
  }

  start(): Promise<void> {
    return this.inner.start();
  }

  stop(): Promise<void> {
    return this.inner.stop();
  }

  call(tool: string, args: Record<string, unknown>, options?: { signal?: AbortSignal }): Promise<SourceCallResult> {
    return this.inner.call(tool, args, options);
  }

  onDidChange(listener: () => void): SourceDisposable {
    return this.inner.onDidChange(listener);
  }
}
