import * as vscode from 'vscode';
import { DEFAULT_SYSTEM_PROMPT } from '../agent/prompt';
import { createApi, type ToolbeltApi } from './api';
import { ApiKeys, registerApiKeyCommand } from './apiKeys';
import type { ChatService } from './chat/chatService';
import { CHAT_VIEW } from './chat/chatView';
import { registerChat } from './chat/registerChat';
import { readSettings, SettingsWatcher } from './settings';
import { shutdownFlushes, stateStore } from './storage';
import { registerToolCommands } from './toolCommands';
import { confirmWithDialog, WorkspaceToolContext } from './toolContext';
import { registerToolLog } from './toolLog';
import { registerCommandToolNote } from './commandToolNote';
import { registerRegistryDiagnostics } from './registryDiagnostics';
import { registerToolsView, TOOLS_VIEW } from './toolsTree';
import type { ChatTargets } from './chatStandIns';
import { registerNativeChat } from './nativeChat/registerNativeChat';
import { registerToolSources } from './sources/registerToolSources';
import { WorkspaceTools } from './workspaceTools';

/**
 * What the shell (dist/extension.js) registered at activation and hands over to the host: the
 * views it stood in for, and why the host is loading now.
 */
export interface HostShell {
  /** How long activate() took (the shell's own work). */
  readonly activationMs: number;
  /** What needed the host first: "the toolbelt.tools view", "toolbelt.openChat", "api.tools.list"… */
  readonly reason: string;
  /** performance.now() when the shell began to load dist/host.js, so the log counts reading it too. */
  readonly loadStarted: number;
  /** The tree view the shell created for `id`; from now on `provider` gives its rows. */
  treeView<T>(id: string, provider: vscode.TreeDataProvider<T>): vscode.TreeView<T>;
  /** The shell's registrations for VS Code's chat, waiting for their implementations. */
  readonly chat: ChatTargets;
  /** Hands the webview view `id`, registered by the shell, to `provider`. */
  webviewView(id: string, provider: vscode.WebviewViewProvider): vscode.Disposable;
}

/** Everything the shell reaches through once the host is loaded. */
export interface Host {
  readonly api: ToolbeltApi;
  /** For deactivate(): the chat history, the tool state and the tool log on disk; one line per problem. */
  flush(): Promise<string[]>;
}

/**
 * Builds the services and registers the commands, the tree and the chat: everything activate()
 * used to do. Loaded (dist/host.js) on first use, so a window that never shows Toolbelt pays
 * only for the shell. The shell has already disposed its command stand-ins, so the commands
 * registered here take their ids.
 */
export function startHost(context: vscode.ExtensionContext, shell: HostShell): Host {
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

  const tree = registerToolsView(context, tools, (provider) => shell.treeView(TOOLS_VIEW, provider));
  registerToolCommands(context, tools, tree, log);
  registerCommandToolNote(context, tools);
  registerRegistryDiagnostics(context, tools, log);
  registerToolSources(context, tools, log);
  registerApiKeyCommand(context, keys, () => readSettings().provider);
  // Before the chat: shutdown flushes run newest first, so the log flushes after the chat's stopped turn.
  const toolLog = registerToolLog(context, tools, () => late.chat, log);
  const chat = registerChat(context, tools, keys, watcher, log, (view) => shell.webviewView(CHAT_VIEW, view), toolContext);
  late.chat = chat;
  registerNativeChat(context, { tools, toolContext, keys, watcher, log, targets: shell.chat });

  const hostMs = performance.now() - shell.loadStarted;
  log.info(`Activated in ${shell.activationMs.toFixed(1)} ms; the tools, tree and chat loaded in ${hostMs.toFixed(1)} ms when ${shell.reason} first needed them.`);
  return {
    api: createApi(tools, tree, chat, shell.activationMs, toolLog, toolContext),
    flush: () => shutdownFlushes.flushAll(),
  };
}
