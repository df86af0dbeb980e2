import * as vscode from 'vscode';
import { configureToolRows, toolChanges, type ToolRow } from './configureToolsRows';
import type { WorkspaceTools } from './workspaceTools';

type RowItem = vscode.QuickPickItem & { row?: ToolRow };

/**
 * `toolbelt.tools.configure`: every tool in one list with a tick for the ones the model may use,
 * as Copilot's Configure Tools picker; the chat's input opens it, so the chat keeps its height
 * while the tools are one click away. Ticking an available tool adds it to the workspace settings.
 */
export function registerConfigureTools(context: vscode.ExtensionContext, tools: WorkspaceTools, log: vscode.LogOutputChannel): void {
  context.subscriptions.push(vscode.commands.registerCommand('toolbelt.tools.configure', () => configureTools(tools, log)));
}

async function configureTools(tools: WorkspaceTools, log: vscode.LogOutputChannel): Promise<{ enabled: string[]; disabled: string[] } | undefined> {
  if (!vscode.workspace.workspaceFolders?.length) {
    void vscode.window.showInformationMessage('Toolbelt: open a folder first; tools are chosen per workspace.');
    return undefined;
  }
  const rows = configureToolRows(tools.available().tools, tools.list(), tools.trusted);
  const items: RowItem[] = [];
  let group = '';
  for (const row of rows) {
    if (row.group !== group) items.push({ label: (group = row.group), kind: vscode.QuickPickItemKind.Separator });
    items.push({ label: row.name, description: row.description, detail: row.detail, picked: row.enabled, row });
  }
  const pick = vscode.window.createQuickPick<RowItem>();
  pick.title = 'Configure Tools';
  pick.placeholder = 'Tick the tools the model may use in this workspace; Enter applies';
  pick.canSelectMany = true;
  pick.matchOnDescription = true;
  pick.matchOnDetail = true;
  pick.items = items;
  pick.selectedItems = items.filter((item) => item.row?.enabled);
  const accepted = await new Promise<boolean>((resolve) => {
    pick.onDidAccept(() => resolve(true));
    pick.onDidHide(() => resolve(false));
    pick.show();
  });
  const ticked = new Set(pick.selectedItems.flatMap((item) => (item.row ? [item.row.name] : [])));
  pick.dispose();
  if (!accepted) return undefined;
  const { enable, disable } = toolChanges(rows, ticked);
  const enabled: string[] = [];
  const disabled: string[] = [];
  const problems: string[] = [];
  for (const name of enable) {
    const result = await tools.enable(name);
    if (result.ok) enabled.push(name);
    else problems.push(result.error);
  }
  for (const name of disable) {
    const result = await tools.disable(name);
    if (result.ok) disabled.push(name);
    else problems.push(result.error);
  }
  if (enabled.length || disabled.length) log.info(`Configure Tools: enabled ${enabled.join(', ') || 'none'}; switched off ${disabled.join(', ') || 'none'}.`);
  if (problems.length) void vscode.window.showWarningMessage(`Toolbelt: ${problems.join(' ')}`);
  return { enabled, disabled };
}
