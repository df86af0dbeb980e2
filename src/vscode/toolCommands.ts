import * as vscode from 'vscode';
import { findBuiltin, summaryOf } from '../tools/manifest';
import type { ToggleResult } from '../tools/toolManager';
import type { ToolsNode, ToolsTreeProvider } from './toolsTree';
import type { WorkspaceTools } from './workspaceTools';

/** A command argument naming a tool: its name, a tree node, or anything with a `name`. */
export function toolNameOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object') {
    const node = arg as Partial<ToolsNode> & { name?: unknown; tool?: { name?: unknown } };
    if (typeof node.tool?.name === 'string') return node.tool.name;
    if (typeof node.name === 'string') return node.name;
  }
  return undefined;
}

export function registerToolCommands(
  context: vscode.ExtensionContext,
  tools: WorkspaceTools,
  tree: ToolsTreeProvider,
  log: vscode.LogOutputChannel,
): void {
  const toggle = async (arg: unknown, enable: boolean): Promise<ToggleResult | undefined> => {
    const name = toolNameOf(arg) ?? (await pickTool(tools, enable));
    if (!name) return undefined;
    const result = enable ? await tools.enable(name) : await tools.disable(name);
    if (!result.ok) void vscode.window.showErrorMessage(`Toolbelt: ${result.error}`);
    else log.info(`${enable ? 'Enabled' : 'Disabled'} ${name}.`);
    return result;
  };

  const withName = (run: (name: string) => Promise<unknown>) => async (arg: unknown) => {
    const name = toolNameOf(arg) ?? (await pickTool(tools, 'registered'));
    return name ? run(name) : undefined;
  };

  context.subscriptions.push(
    vscode.commands.registerCommand('toolbelt.enableTool', (arg?: unknown) => toggle(arg, true)),
    vscode.commands.registerCommand('toolbelt.disableTool', (arg?: unknown) => toggle(arg, false)),
    vscode.commands.registerCommand('toolbelt.tools.list', () => tools.list()),
    vscode.commands.registerCommand('toolbelt.tools.available', () => tools.available()),
    vscode.commands.registerCommand('toolbelt.tools.refresh', () => {
      tools.reload();
      tree.refresh();
    }),
    vscode.commands.registerCommand('toolbelt.tools.openSettings', async () => {
      const command = vscode.workspace.workspaceFolders?.length ? 'workbench.action.openWorkspaceSettingsFile' : 'workbench.action.openSettingsJson';
      await vscode.commands.executeCommand(command);
    }),
    vscode.commands.registerCommand('toolbelt.tools.addReadOnly', async () => {
      if (!vscode.workspace.workspaceFolders?.length) {
        void vscode.window.showErrorMessage('Toolbelt: open a folder first; tools are registered per workspace.');
        return [];
      }
      const added = await tools.addReadOnly();
      if (added.length) void vscode.window.showInformationMessage(`Toolbelt: added ${added.join(', ')}.`);
      return added;
    }),
    vscode.commands.registerCommand(
      'toolbelt.tools.removeFromWorkspace',
      withName(async (name) => {
        const removed = await tools.removeFromSettings(name);
        if (!removed) void vscode.window.showWarningMessage(`Toolbelt: "${name}" is not in this workspace's toolbelt.tools.registry.`);
        return removed;
      }),
    ),
    vscode.commands.registerCommand(
      'toolbelt.tools.editDescription',
      withName(async (name) => {
        const current = tools.list().find((t) => t.name === name);
        const text = await vscode.window.showInputBox({
          title: `Description of ${name} for the model`,
          prompt: 'Leave empty to use the builtin description.',
          value: current?.descriptionOverridden ? current.description : '',
          placeHolder: findBuiltin(name)?.description,
        });
        if (text === undefined) return false;
        return tools.setDescription(name, text);
      }),
    ),
    vscode.commands.registerCommand(
      'toolbelt.tools.revealInSettings',
      withName(async (name) => {
        const location = await tools.settings.locate(name);
        if (!location) return;
        const editor = await vscode.window.showTextDocument(location.uri);
        if (location.range) {
          editor.selection = new vscode.Selection(location.range.start, location.range.end);
          editor.revealRange(location.range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
        }
      }),
    ),
    vscode.commands.registerCommand(
      'toolbelt.tools.toggleAskBeforeCall',
      withName(async (name) => {
        const tool = tools.list().find((t) => t.name === name || t.modelName === name);
        const result = tools.setRunWithoutAsking(name, tool?.runWithoutAsking !== true);
        if (!result.ok) void vscode.window.showErrorMessage(`Toolbelt: ${result.error}`);
        else log.info(`${name} ${tool?.runWithoutAsking !== true ? 'runs without asking' : 'asks before each call'} from now on.`);
        return result;
      }),
    ),
    vscode.commands.registerCommand('toolbelt.showLog', () => log.show()),
  );
}

type PickMode = boolean | 'registered';

/** A quick pick of the tools a command can act on: to enable, to disable, or any registered one. */
async function pickTool(tools: WorkspaceTools, mode: PickMode): Promise<string | undefined> {
  const registered = tools.list();
  const names = new Set(registered.map((t) => t.name));
  const items: (vscode.QuickPickItem & { name: string })[] = [];
  if (mode === true) {
    for (const t of registered.filter((t) => !t.enabled)) items.push({ name: t.name, label: t.name, description: 'registered, disabled', detail: summaryOf(t) });
    for (const t of tools.available().tools.filter((t) => !names.has(t.name))) {
      items.push({ name: t.name, label: t.name, description: 'adds it to this workspace', detail: summaryOf(t) });
    }
  } else {
    for (const t of registered.filter((t) => mode === 'registered' || t.enabled)) items.push({ name: t.name, label: t.name, detail: summaryOf(t) });
  }
  if (items.length === 0) {
    void vscode.window.showInformationMessage(mode === true ? 'Toolbelt: every tool is enabled already.' : 'Toolbelt: no tool to choose from.');
    return undefined;
  }
  const title = mode === true ? 'Enable a tool' : mode === false ? 'Disable a tool' : 'Choose a tool';
  return (await vscode.window.showQuickPick(items, { title, matchOnDetail: true }))?.name;
}
