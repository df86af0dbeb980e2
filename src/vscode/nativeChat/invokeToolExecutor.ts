import * as vscode from 'vscode';
import type { ToolCaller } from '../../tools/caller';
import type { ChatTool, ToolExecuteOptions, ToolExecutor, ToolResult } from '../../tools/interface';
import type { ExpectedInvocations } from './expectedInvocations';
import { lmToolName } from './lmToolEntries';
import { availabilityIn, type ToolsView } from './offeredToolKeys';

/**
 * The Agent's tools inside an `@toolbelt` request: the workspace's offered tools (description
 * overrides included), each call made through `vscode.lm.invokeTool` with the request's token, so
 * VS Code shows the call and its confirmation card inline in the chat. The tool runs the call for
 * this request's caller and hands its ToolResult back through `expected`.
 */
export class InvokeToolExecutor implements ToolExecutor {
  constructor(
    private readonly tools: ToolsView,
    private readonly toolInvocationToken: vscode.ChatParticipantToolToken | undefined,
    private readonly expected: ExpectedInvocations,
    private readonly caller: ToolCaller,
  ) {}

  getEnabledSchemas(): ChatTool[] {
    return this.tools.manager.registry.getEnabledSchemas().filter((schema) => availabilityIn(this.tools, schema.function.name) === 'offered');
  }

  hasTool(name: string): boolean {
    return this.tools.manager.registry.hasTool(name);
  }

  async run(name: string, args: Record<string, unknown>, options: ToolExecuteOptions = {}): Promise<ToolResult> {
    const { signal } = options;
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    if (signal?.aborted) return { text: `Not run: ${name} was stopped before it started.`, status: 'cancelled', durationMs: 0 };
    const source = new vscode.CancellationTokenSource();
    const onAbort = () => source.cancel();
    signal?.addEventListener('abort', onAbort, { once: true });
    const resultOf = this.expected.expect(name, args, this.caller);
    try {
      const result = await vscode.lm.invokeTool(lmToolName(name), { input: args, toolInvocationToken: this.toolInvocationToken }, source.token);
      const ran = resultOf();
      if (ran) return ran;
      // VS Code answered without running the tool: the person chose Skip on its card.
      const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
      return { text, status: 'refused', durationMs: elapsed(), approvedBy: 'refused' };
    } catch (error) {
      resultOf();
      if (signal?.aborted || error instanceof vscode.CancellationError) {
        return { text: `Stopped: the user stopped ${name} before it finished.`, status: 'cancelled', durationMs: elapsed() };
      }
      return { text: `Error executing ${name}: ${error instanceof Error ? error.message : String(error)}`, status: 'error', durationMs: elapsed() };
    } finally {
      signal?.removeEventListener('abort', onAbort);
      source.dispose();
    }
  }
}
