import * as vscode from 'vscode';
import { BUILTIN_SOURCE } from '../tools/toolCatalog';
import { runsCommands } from './riskIcons';
import type { WorkspaceTools } from './workspaceTools';

/** Remembered per workspace: the note was shown here once. */
const SHOWN_KEY = 'toolbelt.commandToolNoteShown';

export const COMMAND_TOOL_NOTE =
  'Toolbelt: run_bash is on. The model can now run shell commands in this workspace folder with your account\'s rights. ' +
  'Each command asks you first unless toolbelt.runBash.allowedCommands allows it; toolbelt.runBash.deniedCommands refuses commands outright.';

/**
 * Once per workspace, when a tool that runs commands goes from off to on, says what it can do and
 * how to restrict it. A tool that was on before this window started does not trigger it.
 */
export function registerCommandToolNote(context: vscode.ExtensionContext, tools: WorkspaceTools): void {
  let enabledBefore = enabledCommandTools(tools);
  context.subscriptions.push(
    tools.onDidChange(() => {
      const now = enabledCommandTools(tools);
      const newlyEnabled = [...now].some((name) => !enabledBefore.has(name));
      enabledBefore = now;
      if (!newlyEnabled || context.workspaceState.get<boolean>(SHOWN_KEY)) return;
      void context.workspaceState.update(SHOWN_KEY, true);
      void vscode.window.showInformationMessage(COMMAND_TOOL_NOTE, 'Restrict Commands').then((choice) => {
        if (choice === 'Restrict Commands') void vscode.commands.executeCommand('workbench.action.openSettings', 'toolbelt.runBash');
      });
    }),
  );
}

function enabledCommandTools(tools: WorkspaceTools): Set<string> {
  return new Set(tools.list().filter((tool) => tool.source.id === BUILTIN_SOURCE.id && tool.enabled && runsCommands(tool)).map((tool) => tool.name));
}
