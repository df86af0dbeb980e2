import * as vscode from 'vscode';
import { ProviderError, type ProviderErrorKind } from '../../providers/errors';
import type { ChatMessage, ChatProvider, ChatRequest, ProviderEvent } from '../../providers/types';

/**
 * A model from `vscode.lm` (the one picked in the Chat view, or any other extension's) as a
 * Toolbelt provider, so Toolbelt's Agent loop runs on it: messages, tools and tool calls mapped
 * both ways, streaming, and the request's signal as the model's cancellation.
 */
export class VsCodeModelProvider implements ChatProvider {
  readonly name = 'vscode';

  constructor(private readonly chatModel: vscode.LanguageModelChat) {}

  get model(): string {
    return `${this.chatModel.vendor}/${this.chatModel.id}`;
  }

  async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
    const cancel = new vscode.CancellationTokenSource();
    const onAbort = () => cancel.cancel();
    request.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const options: vscode.LanguageModelChatRequestOptions = {
        justification: 'Toolbelt runs its agent on the model picked in the Chat view.',
        tools: request.tools.map((tool) => ({ name: tool.function.name, description: tool.function.description, inputSchema: tool.function.parameters })),
      };
      const response = await this.send(toVsCodeMessages(request.messages), options, cancel.token);
      for await (const part of response.stream) {
        if (part instanceof vscode.LanguageModelTextPart) yield { type: 'text', text: part.value };
        else if (part instanceof vscode.LanguageModelToolCallPart) {
          yield { type: 'tool_call', call: { id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) } };
        }
      }
      if (request.signal?.aborted) throw new ProviderError('The request was stopped.', { kind: 'timeout', provider: this.name });
      yield { type: 'done', finishReason: 'stop' };
    } catch (error) {
      throw asProviderError(error, this.model);
    } finally {
      request.signal?.removeEventListener('abort', onAbort);
      cancel.dispose();
    }
  }

  private async send(messages: vscode.LanguageModelChatMessage[], options: vscode.LanguageModelChatRequestOptions, token: vscode.CancellationToken): Promise<vscode.LanguageModelChatResponse> {
    return this.chatModel.sendRequest(messages, options, token);
  }
}

/**
 * Toolbelt's conversation in VS Code's message shape. VS Code's stable API has no system role:
 * the system prompt goes first, as a user message. Tool results answering one assistant message
 * go back together in one user message.
 */
export function toVsCodeMessages(messages: readonly ChatMessage[]): vscode.LanguageModelChatMessage[] {
  const out: vscode.LanguageModelChatMessage[] = [];
  let results: vscode.LanguageModelToolResultPart[] = [];
  const flush = () => {
    if (results.length > 0) out.push(vscode.LanguageModelChatMessage.User(results));
    results = [];
  };
  for (const message of messages) {
    if (message.role === 'tool') {
      results.push(new vscode.LanguageModelToolResultPart(message.toolCallId, [new vscode.LanguageModelTextPart(message.content)]));
      continue;
    }
    flush();
    if (message.role === 'assistant') {
      const parts: (vscode.LanguageModelTextPart | vscode.LanguageModelToolCallPart)[] = [];
      if (message.content) parts.push(new vscode.LanguageModelTextPart(message.content));
      for (const call of message.toolCalls ?? []) parts.push(new vscode.LanguageModelToolCallPart(call.id, call.name, parseInput(call.arguments)));
      out.push(vscode.LanguageModelChatMessage.Assistant(parts.length > 0 ? parts : ''));
    } else {
      out.push(vscode.LanguageModelChatMessage.User(message.content));
    }
  }
  flush();
  return out;
}

function parseInput(text: string): object {
  try {
    const value: unknown = JSON.parse(text);
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}

function asProviderError(error: unknown, provider: string): ProviderError {
  if (error instanceof ProviderError) return error;
  const message = error instanceof Error ? error.message : String(error);
  let kind: ProviderErrorKind = 'protocol';
  if (error instanceof vscode.LanguageModelError) {
    kind = error.code === vscode.LanguageModelError.NotFound().code ? 'not_found'
      : error.code === vscode.LanguageModelError.NoPermissions().code ? 'auth'
        : error.code === vscode.LanguageModelError.Blocked().code ? 'rate_limit'
          : 'server';
  } else if (error instanceof vscode.CancellationError) {
    kind = 'timeout';
  }
  return new ProviderError(`${provider}: ${message}`, { kind, provider: 'vscode', cause: error });
}
