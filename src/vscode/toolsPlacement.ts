import * as vscode from 'vscode';

/** The Tools view's own container in the secondary side bar (package.json), empty until the view moves there. */
const BESIDE_EDITOR = 'workbench.view.extension.toolbelt-tools';
/** The activity-bar container the Tools view starts in, under the chat. */
const UNDER_CHAT = 'workbench.view.extension.toolbelt';
const TOOLS_VIEW = 'toolbelt.tools';

/**
 * Under the chat the Tools view and the chat share one column; beside the editor the tree has the
 * secondary side bar's full height and the chat keeps its own. Two commands move it either way
 * (VS Code remembers where it is, and people can still drag it anywhere).
 */
export function registerToolsPlacement(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): void {
  const move = (destinationId: string, where: string) => async () => {
    try {
      await vscode.commands.executeCommand('vscode.moveViews', { viewIds: [TOOLS_VIEW], destinationId });
      await vscode.commands.executeCommand(`${TOOLS_VIEW}.focus`);
    } catch (error) {
      log.warn(`Could not move the Tools view ${where}: ${String(error)}`);
      void vscode.window.showWarningMessage(`Toolbelt could not move the Tools view ${where}. Drag its header there instead.`);
    }
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('toolbelt.tools.moveBesideEditor', move(BESIDE_EDITOR, 'beside the editor')),
    vscode.commands.registerCommand('toolbelt.tools.moveUnderChat', move(UNDER_CHAT, 'under the chat')),
  );
}
