import * as vscode from 'vscode';
import { createApi, type ToolbeltApi } from './vscode/api';
import { ApiKeys, registerApiKeyCommand } from './vscode/apiKeys';
import { readSettings, SettingsWatcher } from './vscode/settings';
import { registerToolCommands } from './vscode/toolCommands';
import { confirmWithDialog, WorkspaceToolContext } from './vscode/toolContext';
import { registerToolsView } from './vscode/toolsTree';
import { WorkspaceTools } from './vscode/workspaceTools';

export function activate(context: vscode.ExtensionContext): ToolbeltApi {
  const started = performance.now();
  const log = vscode.window.createOutputChannel('Toolbelt', { log: true });
  const watcher = new SettingsWatcher();
  const toolContext = new WorkspaceToolContext(
    () => ({ systemPrompt: readSettings().systemPrompt, sessionContext: '' }),
    () => confirmWithDialog,
  );
  const tools = new WorkspaceTools(context.workspaceState, toolContext, log, watcher);
  context.subscriptions.push(log, watcher, tools, watcher.onDidChange((change) => change.excludes && toolContext.refreshExcludes()));

  const tree = registerToolsView(context, tools);
  registerToolCommands(context, tools, tree, log);
  registerApiKeyCommand(context, new ApiKeys(context.secrets), () => readSettings().provider);

  const chat = { send: async () => Promise.reject(new Error('The chat is not configured yet.')) };
  const activationMs = performance.now() - started;
  log.info(`Activated in ${activationMs.toFixed(1)} ms.`);
  return createApi(tools, tree, chat, activationMs);
}

export function deactivate(): void {
  // Everything is disposed through context.subscriptions.
}
