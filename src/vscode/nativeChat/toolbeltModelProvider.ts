import * as vscode from 'vscode';
import { resolveLimits, outputReserve } from '../../providers/contextWindow';
import { DEFAULT_MODELS } from '../../providers/defaults';
import { endpointLabel, endpointOf } from '../../providers/endpoints';
import { labelOf } from '../../providers/errors';
import { estimateTokens } from '../../providers/tokens';
import type { ChatMessage, ToolCall } from '../../providers/types';
import type { ChatTool, ToolParameters } from '../../tools/interface';
import type { ApiKeys } from '../apiKeys';
import { loadChatRuntime } from '../chat/runtimeLoader';
import { providerSettingsOf } from '../../providers/chatSettings';
import { readSettings, type SettingsWatcher } from '../settings';
import type { ChatInformationShape, ChatProviderShape, RequestMessageShape, ResponseOptionsShape, ResponsePartShape } from './chatProviderApi';
import { Disposables } from '../dispose';

/** `contributes.languageModelChatProviders[0].vendor`. */
export const VENDOR = 'toolbelt';

/**
 * The model configured in Toolbelt's settings (`toolbelt.provider`, `model`, `baseUrl`, the key in
 * SecretStorage) as a VS Code chat model, so Copilot's agent and any extension can run on Ollama,
 * Gemini or any OpenAI-compatible server. The SDKs load on the first request (dist/chat.js).
 */
export class ToolbeltModelProvider extends Disposables implements ChatProviderShape {
  private readonly changed = this.register(new vscode.EventEmitter<void>());
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;

  constructor(
    private readonly keys: ApiKeys,
    watcher: SettingsWatcher,
    /** The workspace's description of a `toolbelt_*` tool (a settings override included), if it has one. */
    private readonly descriptionOf: (lmToolName: string) => string | undefined = () => undefined,
  ) {
    super();
    this.register(watcher.onDidChange((change) => change.chat && this.changed.fire()));
  }

  provideLanguageModelChatInformation(): ChatInformationShape[] {
    // With toolbelt.provider "vscode" Toolbelt's model would be VS Code's own models calling back into themselves.
    return readSettings().provider === 'vscode' ? [] : [describeModel()];
  }

  async provideLanguageModelChatResponse(
    _model: ChatInformationShape,
    messages: readonly RequestMessageShape[],
    options: ResponseOptionsShape,
    progress: vscode.Progress<ResponsePartShape>,
    token: vscode.CancellationToken,
  ): Promise<void> {
    const settings = readSettings();
    if (settings.provider === 'vscode') {
      throw new Error('Toolbelt\'s model serves toolbelt.provider, which is "vscode" now: pick the model you want in the model picker directly.');
    }
    // The same rule as the panel: one key per endpoint, none needed for a local or custom server.
    const endpoint = endpointOf(settings.provider, settings.baseUrl);
    const apiKey = await this.keys.get(endpoint);
    if (!apiKey && this.keys.needsKey(endpoint)) {
      throw new Error(`No ${endpointLabel(endpoint)} API key is set: run "Toolbelt: Set API Key".`);
    }
    const provider = loadChatRuntime().createProvider({ ...providerSettingsOf(settings, settings.provider), apiKey });
    const controller = new AbortController();
    const cancelled = token.onCancellationRequested(() => controller.abort());
    try {
      // package.json fixes a tool's description for every model; through Toolbelt's own model the
      // workspace's override reaches the model too.
      const tools = (options.tools ?? []).map((tool) => toChatTool(tool, this.descriptionOf(tool.name)));
      for await (const event of provider.stream({ messages: fromVsCodeMessages(messages), tools, signal: controller.signal })) {
        if (token.isCancellationRequested) break;
        if (event.type === 'text') progress.report(new vscode.LanguageModelTextPart(event.text));
        else if (event.type === 'tool_call') progress.report(new vscode.LanguageModelToolCallPart(event.call.id, event.call.name, argumentsOf(event.call)));
      }
    } finally {
      cancelled.dispose();
    }
  }

  provideTokenCount(_model: ChatInformationShape, text: string | RequestMessageShape): Promise<number> {
    if (typeof text === 'string') return Promise.resolve(estimateTokens(text));
    return Promise.resolve(text.content.reduce<number>((sum, part) => sum + estimateTokens(textOfPart(part)), 4));
  }
}

function modelName(): string {
  const settings = readSettings();
  return settings.model || DEFAULT_MODELS[settings.provider];
}

/** The configured model as VS Code's picker lists it, with the limits Toolbelt plans with. */
export function describeModel(): ChatInformationShape {
  const settings = readSettings();
  const model = modelName();
  const limits = resolveLimits(model, { setting: settings.contextWindow || undefined });
  const maxOutputTokens = outputReserve(limits);
  return {
    id: `${settings.provider}/${model}`,
    name: `${model} (Toolbelt)`,
    family: model,
    version: settings.provider,
    maxInputTokens: limits.contextTokens - maxOutputTokens,
    maxOutputTokens,
    tooltip: `${labelOf(settings.provider)} ${model}${settings.baseUrl ? ` at ${settings.baseUrl}` : ''}, configured in Toolbelt's settings`,
    detail: labelOf(settings.provider),
    capabilities: { toolCalling: true },
  };
}

function toChatTool(tool: vscode.LanguageModelChatTool, description = tool.description): ChatTool {
  const schema = (tool.inputSchema ?? {}) as Partial<ToolParameters>;
  const parameters: ToolParameters = { ...schema, type: 'object', properties: schema.properties ?? {} };
  return { type: 'function', function: { name: tool.name, description, parameters } };
}

/** VS Code's messages in Toolbelt's provider-neutral shape: tool calls and results included. */
export function fromVsCodeMessages(messages: readonly RequestMessageShape[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    const text = message.content.map(textOfPart).join('');
    if (message.role === vscode.LanguageModelChatMessageRole.Assistant) {
      const toolCalls: ToolCall[] = message.content
        .filter((part): part is vscode.LanguageModelToolCallPart => part instanceof vscode.LanguageModelToolCallPart)
        .map((part) => ({ id: part.callId, name: part.name, arguments: JSON.stringify(part.input ?? {}) }));
      out.push({ role: 'assistant', content: text, ...(toolCalls.length > 0 ? { toolCalls } : {}) });
      continue;
    }
    const names = new Map(out.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : [])).map((c) => [c.id, c.name]));
    for (const part of message.content) {
      if (part instanceof vscode.LanguageModelToolResultPart) {
        out.push({ role: 'tool', toolCallId: part.callId, name: names.get(part.callId) ?? '', content: part.content.map(textOfPart).join('') });
      }
    }
    if (text) out.push({ role: (message.role as number) === 3 /* System, where VS Code has it */ ? 'system' : 'user', content: text });
  }
  return out;
}

function textOfPart(part: unknown): string {
  if (part instanceof vscode.LanguageModelTextPart) return part.value;
  if (part && typeof part === 'object' && 'value' in part && typeof (part as { value: unknown }).value === 'string') return (part as { value: string }).value;
  return '';
}

function argumentsOf(call: ToolCall): object {
  try {
    const value: unknown = JSON.parse(call.arguments || '{}');
    return value && typeof value === 'object' ? value : {};
  } catch {
    return {};
  }
}
