import { randomUUID } from 'node:crypto';
import * as vscode from 'vscode';
import type { ToolCaller } from '../../tools/caller';
import type { CallGroups } from '../callGroups';
import { confirmWithDialog } from '../toolContext';
import type { ExpectedInvocations } from './expectedInvocations';
import type { ChatMessage } from '../../providers/types';
import type { ChatTargets } from '../shellHandover';
import { loadChatRuntime } from '../chat/runtimeLoader';
import { readSettings } from '../settings';
import type { ToolsView } from './offeredToolKeys';
import { InvokeToolExecutor } from './invokeToolExecutor';
import { VsCodeModelProvider } from './vscodeModelProvider';

/** `contributes.chatParticipants[0].id`; people type `@toolbelt`. */
export const PARTICIPANT_ID = 'toolbelt.agent';

export interface ParticipantDeps {
  tools: ToolsView;
  workspaceRoot: () => string;
  log: vscode.LogOutputChannel;
  /** Where the request's calls meet the `toolbelt_*` tools that run them. */
  expected: ExpectedInvocations;
  /** The request's undo record. */
  groups: CallGroups;
}

/** `@toolbelt` in VS Code's Chat view: Toolbelt's Agent with the workspace's tools, on the model picked there. */
export function registerParticipant(extension: vscode.ExtensionContext, deps: ParticipantDeps, targets: Pick<ChatTargets, 'participant'>): vscode.Disposable {
  const participant = targets.participant(PARTICIPANT_ID, (request, context, stream, token) => handleRequest(request, context, stream, token, deps));
  participant.iconPath = vscode.Uri.joinPath(extension.extensionUri, 'media', 'toolbelt.svg');
  return participant;
}

/**
 * One `@toolbelt` turn. The Agent and the provider SDKs load here (dist/chat.js), not at
 * activation. Stop in the Chat view aborts the model request and every running tool.
 */
export async function handleRequest(
  request: Pick<vscode.ChatRequest, 'prompt' | 'model' | 'toolInvocationToken'>,
  context: Pick<vscode.ChatContext, 'history'>,
  stream: Pick<vscode.ChatResponseStream, 'markdown' | 'progress'>,
  token: vscode.CancellationToken,
  deps: ParticipantDeps,
): Promise<vscode.ChatResult> {
  const runtime = loadChatRuntime();
  const settings = readSettings();
  // This request is the caller of its tool calls: its own chat id, summary and undo record.
  const chatId = `participant:${randomUUID()}`;
  const group = deps.groups.begin(chatId);
  const session: { summary: () => string } = { summary: () => '' };
  const caller: ToolCaller = {
    kind: 'participant',
    chatId,
    label: '@toolbelt',
    get sessionContext() {
      return session.summary();
    },
    confirm: confirmWithDialog,
    beforeChange: group.beforeChange,
  };
  const agent = new runtime.Agent(new VsCodeModelProvider(request.model), {
    toolRegistry: new InvokeToolExecutor(deps.tools, request.toolInvocationToken, deps.expected, caller),
    history: historyOf(context.history),
    systemPrompt: settings.systemPrompt.trim() || runtime.DEFAULT_SYSTEM_PROMPT,
    workspaceRoot: deps.workspaceRoot() || undefined,
    sessionContextFilePath: settings.sessionContextFile,
    maxToolRounds: settings.maxToolRounds,
  });
  session.summary = () => agent.sessionContext;
  const controller = new AbortController();
  const cancelled = token.onCancellationRequested(() => controller.abort());
  try {
    for await (const event of agent.streamChat(request.prompt, { signal: controller.signal })) {
      if (event.type === 'text') stream.markdown(event.text);
      else if (event.type === 'tool_call_start') stream.progress(`Toolbelt: ${event.name} ${shortArgs(event.arguments)}`);
      else if (event.type === 'error') return failed(event.message, deps.log);
    }
    return {};
  } catch (error) {
    if (controller.signal.aborted) return {};
    return failed(error instanceof Error ? error.message : String(error), deps.log);
  } finally {
    cancelled.dispose();
    await group.end();
  }
}

function failed(message: string, log: vscode.LogOutputChannel): vscode.ChatResult {
  log.warn(`@toolbelt: ${message}`);
  return { errorDetails: { message } };
}

/** Earlier turns with @toolbelt, as plain user and assistant text (tool calls are not replayed). */
export function historyOf(history: vscode.ChatContext['history']): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (const turn of history) {
    if (turn instanceof vscode.ChatRequestTurn) {
      if (turn.participant === PARTICIPANT_ID) messages.push({ role: 'user', content: turn.prompt });
    } else if (turn instanceof vscode.ChatResponseTurn && turn.participant === PARTICIPANT_ID) {
      const text = turn.response
        .map((part) => (part instanceof vscode.ChatResponseMarkdownPart ? part.value.value : ''))
        .join('')
        .trim();
      if (text) messages.push({ role: 'assistant', content: text });
    }
  }
  return messages;
}

function shortArgs(json: string): string {
  const flat = json.replace(/\s+/g, ' ');
  return flat.length > 80 ? `${flat.slice(0, 79)}…` : flat;
}
