import * as vscode from 'vscode';
import { DEFAULT_SYSTEM_PROMPT } from './agent/prompt';
import { createApi, type ToolbeltApi } from './vscode/api';
import { ApiKeys, registerApiKeyCommand } from './vscode/apiKeys';
import type { ChatService } from './vscode/chat/chatService';
import { registerChat } from './vscode/chat/registerChat';
import { readSettings, SettingsWatcher } from './vscode/settings';
import { shutdownFlushes, stateStore } from './vscode/storage';
import { registerToolCommands } from './vscode/toolCommands';
import { confirmWithDialog, WorkspaceToolContext } from './vscode/toolContext';
import { registerToolLog } from './vscode/toolLog';
import { registerToolsView } from './vscode/toolsTree';
import { WorkspaceTools } from './vscode/workspaceTools';

export function activate(context: vscode.ExtensionContext): ToolbeltApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Toolbelt', { log: true });
  const watcher = new SettingsWatcher();
  const keys = new ApiKeys(context.secrets);
  // The chat is built after the tools it uses; tools reach it through this late binding.
  const late: { chat?: ChatService } = {};
  // Tools read the chat's live state and ask it for approvals; outside a chat turn a dialog asks.
  const toolState = stateStore(context, 'tool-state.json', log);
  const toolContext = new WorkspaceToolContext(
    () => ({ systemPrompt: readSettings().systemPrompt.trim() || DEFAULT_SYSTEM_PROMPT, sessionContext: late.chat?.controller.sessionContext ?? '' }),
    () => {
      const controller = late.chat?.controller;
      return controller?.busy ? (request) => controller.confirm(request) : confirmWithDialog;
    },
    { state: toolState, log, watcher, beforeChange: () => (late.chat?.started ? (targets) => late.chat!.controller.beforeChange(targets) : undefined) },
  );
  const tools = new WorkspaceTools(toolState, toolContext, log, watcher);
  context.subscriptions.push(log, watcher, toolContext, tools, watcher.onDidChange((change) => change.excludes && toolContext.refreshExcludes()));

  const tree = registerToolsView(context, tools);
  registerToolCommands(context, tools, tree, log);
  registerApiKeyCommand(context, keys, () => readSettings().provider);
  // Before the chat: shutdown flushes run newest first, so the log flushes after the chat's stopped turn.
  const toolLog = registerToolLog(context, tools, () => late.chat, log);
  const chat = registerChat(context, tools, keys, watcher, log);
  late.chat = chat;

  const activationMs = performance.now() - started;
  log.info(`Activated in ${activationMs.toFixed(1)} ms.`);
  return createApi(tools, tree, chat, activationMs, toolLog, toolContext);
}

/** Waits until the chat history and the tool state are on disk; the rest is disposed through context.subscriptions. */
export async function deactivate(): Promise<void> {
  const problems = await shutdownFlushes.flushAll();
  for (const problem of problems) console.error(`Toolbelt: not everything was saved on shutdown: ${problem}`);
}
