import * as vscode from 'vscode';
import { hideFromSandboxes, sandboxRequestFor } from '../tools/sandbox';
import { createApi } from './api';
import { registerApiKeyCommand } from './apiKeys';
import { CHAT_VIEW } from './chat/chatView';
import { registerChat } from './chat/registerChat';
import { readSettings } from './settings';
import { shutdownFlushes, stateStore } from './storage';
import { TOOL_STATE_FILE } from './toolState';
import { registerToolCommands } from './toolCommands';
import { WorkspaceToolContext } from './toolContext';
import { registerToolLog } from './toolLog';
import { registerCommandToolNote } from './commandToolNote';
import { registerInstallCli } from './installCli';
import { registerOtherAgents } from './otherAgents';
import { registerProtectAgents } from './protectAgents';
import { registerPolicyTestDiagnostics } from './policyTestDiagnostics';
import { registerRuleDiagnostics } from './ruleDiagnostics';
import { registerRegistryDiagnostics } from './registryDiagnostics';
import { registerToolsPlacement } from './toolsPlacement';
import { registerToolsView, TOOLS_VIEW } from './toolsTree';
import { handOver } from './shellHandover';
import type { Host, ShellParts } from './shellParts';
import { registerNativeChat } from './nativeChat/registerNativeChat';
import { registerToolSources } from './sources/registerToolSources';
import { WorkspaceTools } from './workspaceTools';

/**
 * Builds the services and registers the commands, the tree and the chat: everything activate()
 * used to do. Loaded (dist/host.js) on first use, so a window that never shows Toolbelt pays
 * only for the shell. The shell has already disposed its command stand-ins, so the commands
 * registered here take their ids; `parts` are the shell's other registrations, taken over here.
 */
export function startHost(parts: ShellParts, reason: string, loadStarted: number): Host {
  const { context } = parts;
  const shell = handOver(parts, reason, loadStarted);
  const log = vscode.window.createOutputChannel('Toolbelt', { log: true });
  // Presence started before the host and keeps serving VS Code's chat; its watcher and keys serve the host too.
  const { watcher, keys } = shell.presence;
  shell.presence.attachLog(log);
  // Workspace facts only: each caller (the panel, @toolbelt, VS Code's chat) brings its own approvals and undo.
  // Undo's copies of earlier file contents, chat history and the call log: no sandboxed process sees them.
  for (const storage of [context.storageUri, context.globalStorageUri]) if (storage?.scheme === 'file') hideFromSandboxes(storage.fsPath);
  const toolState = stateStore(context, TOOL_STATE_FILE, log);
  const toolContext = new WorkspaceToolContext({ state: toolState, log, watcher });
  const tools = new WorkspaceTools(toolState, toolContext, log, watcher);
  context.subscriptions.push(log, toolContext, tools, watcher.onDidChange((change) => change.excludes && toolContext.refreshExcludes()));

  const tree = registerToolsView(context, tools, (provider) => shell.treeView(TOOLS_VIEW, provider));
  registerToolCommands(context, tools, tree, log);
  registerCommandToolNote(context, tools);
  context.subscriptions.push(registerOtherAgents(context, log), registerInstallCli(context, log), registerProtectAgents(log, () => tree.refresh()));
  registerToolsPlacement(context, log);
  registerRegistryDiagnostics(context, tools, log);
  context.subscriptions.push(registerPolicyTestDiagnostics(tools, toolContext, watcher, log), registerRuleDiagnostics(toolContext, watcher, log));
  registerToolSources(context, tools, log, () => {
    const { cwd: _cwd, ...request } = sandboxRequestFor(toolContext, toolContext.workspaceRoot);
    return request;
  });
  registerApiKeyCommand(context, keys, () => readSettings().provider);
  // Before the chat: shutdown flushes run newest first, so the log flushes after the chat's stopped turn.
  const toolLog = registerToolLog(context, tools, log);
  const chat = registerChat(context, tools, keys, watcher, log, (view) => shell.webviewView(CHAT_VIEW, view), toolContext);
  registerNativeChat(context, { tools, toolContext, log, targets: shell.chat, presence: shell.presence });

  const hostMs = performance.now() - shell.loadStarted;
  log.info(`Activated in ${shell.activationMs.toFixed(1)} ms; the tools, tree and chat loaded in ${hostMs.toFixed(1)} ms when ${shell.reason} first needed them.`);
  return {
    api: createApi(tools, tree, chat, shell.activationMs, toolLog, toolContext),
    flush: () => shutdownFlushes.flushAll(),
  };
}
