import * as vscode from 'vscode';
import { capDefinition } from '../../tools/mcp';
import { DEFAULT_MCP_LIMITS } from '../../tools/mcp';
import { isOwnToolName } from '../../tools/toolNames';
import type { SourceCallResult, SourceDisposable, SourceState, SourceTool, ToolSource } from '../../tools/toolSource';
import { describeToolResult } from './toolResultText';
import { Disposables } from '../dispose';

export const EXTENSIONS_SOURCE_ID = 'extensions';

/** `vscode.lm.onDidChangeTools` is newer than the API this extension is typed against: used where the host has it. */
type LmWithChanges = typeof vscode.lm & { onDidChangeTools?: vscode.Event<void> };

/**
 * The tools other extensions (and VS Code's own MCP support) contribute to `vscode.lm.tools`,
 * as one source. Toolbelt's own `toolbelt_*` tools are left out: they are the builtins.
 * Always running: there is nothing to start.
 */
export class ExtensionToolSource extends Disposables implements ToolSource {
  readonly id = EXTENSIONS_SOURCE_ID;
  readonly kind = 'extension' as const;
  readonly label = 'Other extensions';
  readonly origin = 'vscode.lm.tools';
  private readonly listeners = new Set<() => void>();
  /** Whether the host tells about new and removed tools; without it the list is read afresh whenever the catalog asks. */
  readonly followsChanges: boolean;
  private readonly seen = new WeakMap<vscode.LanguageModelToolInformation, SourceTool>();

  constructor(private readonly lm: LmWithChanges = vscode.lm) {
    super();
    this.followsChanges = typeof lm.onDidChangeTools === 'function';
    if (lm.onDidChangeTools) this.register(lm.onDidChangeTools(() => this.fire()));
  }

  state(): SourceState {
    return { state: 'running' };
  }

  tools(): readonly SourceTool[] {
    return (this.lm.tools ?? []).filter((tool) => !isOwnToolName(tool.name)).map((tool) => this.listed(tool));
  }

  /**
   * A tool as the catalog lists it, its description and schema capped as an MCP server's are (VS
   * Code's own MCP servers reach Toolbelt this way). Made once per tool: the catalog asks often.
   */
  private listed(tool: vscode.LanguageModelToolInformation): SourceTool {
    let listed = this.seen.get(tool);
    if (!listed) {
      const parameters = (tool.inputSchema ?? { type: 'object', properties: {} }) as SourceTool['parameters'];
      const description = typeof tool.description === 'string' ? tool.description : '';
      let capped: ReturnType<typeof capDefinition>;
      try {
        capped = capDefinition(description, parameters, DEFAULT_MCP_LIMITS);
      } catch {
        // Not JSON (a cycle, a BigInt): no model could be sent it either.
        capped = { ...capDefinition(description, { type: 'object', properties: {} }, DEFAULT_MCP_LIMITS), parameters: { type: 'object', properties: {} } };
        capped.notices.push('input schema left out: it is not JSON');
      }
      listed = {
        name: tool.name,
        description: capped.description,
        parameters: capped.parameters,
        ...(capped.notices.length > 0 && { notices: capped.notices }),
      };
      this.seen.set(tool, listed);
    }
    return listed;
  }

  async start(): Promise<void> {}

  async stop(): Promise<void> {}

  async call(tool: string, args: Record<string, unknown>, options: { signal?: AbortSignal } = {}): Promise<SourceCallResult> {
    const { signal } = options;
    signal?.throwIfAborted();
    const cancellation = new vscode.CancellationTokenSource();
    const cancel = () => cancellation.cancel();
    signal?.addEventListener('abort', cancel, { once: true });
    try {
      const result = await this.lm.invokeTool(tool, { input: args, toolInvocationToken: undefined }, cancellation.token);
      return { text: describeToolResult(result?.content ?? []), isError: false };
    } catch (error) {
      if (signal?.aborted || error instanceof vscode.CancellationError) throw signal?.reason ?? error;
      // The tool itself failed (or VS Code refused the call): the model reads why.
      return { text: error instanceof Error ? error.message : String(error), isError: true };
    } finally {
      signal?.removeEventListener('abort', cancel);
      cancellation.dispose();
    }
  }

  onDidChange(listener: () => void): SourceDisposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  override dispose(): void {
    super.dispose();
    this.listeners.clear();
  }

  private fire(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
