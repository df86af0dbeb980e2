import * as vscode from 'vscode';
import type { ChatTool, ToolExecuteOptions, ToolExecutor, ToolResult, ToolStatus } from '../../tools/interface';
import { STATUS_NOTES } from './languageModelTools';
import { lmToolName } from './lmToolEntries';
import { availabilityIn, type ToolsView } from './offeredToolKeys';

/** What VS Code answers when the person clicks Skip on a tool's confirmation card. */
const SKIPPED = /^The user chose to skip the tool call/;

/**
 * The Agent's tools inside an `@toolbelt` request: the workspace's offered tools (description
 * overrides included), each call made through `vscode.lm.invokeTool` with the request's token, so
 * VS Code shows the call and its confirmation card inline in the chat.
 */
export class InvokeToolExecutor implements ToolExecutor {
  constructor(
    private readonly tools: ToolsView,
    private readonly toolInvocationToken: vscode.ChatParticipantToolToken | undefined,
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
    try {
      const result = await vscode.lm.invokeTool(lmToolName(name), { input: args, toolInvocationToken: this.toolInvocationToken }, source.token);
      const text = result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
      return { text, status: statusOf(name, text), durationMs: elapsed() };
    } catch (error) {
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

function statusOf(name: string, text: string): ToolStatus {
  if (SKIPPED.test(text)) return 'refused';
  for (const status of ['refused', 'cancelled', 'error'] as const) if (text.endsWith(STATUS_NOTES[status](name))) return status;
  return 'ok';
}
