import * as path from 'node:path';
import * as vscode from 'vscode';
import { AGENT_KINDS, agentConfig, mergeAgentConfig, TOOLBELT_COMMAND, type AgentConfig, type AgentConfigOptions } from '../tools/agents';
import { readFolderFile, resolveFolderFile, writeFolderFile } from '../tools/folderFiles';
import type { ResolvedPath } from '../tools/workspacePaths';
import { findOnPath } from '../tools/programPath';
import { INSTALL_CLI, userSettingsFile } from './installCli';

export const USE_IN_ANOTHER_AGENT = 'toolbelt.useInAnotherAgent';

type AgentItem = vscode.QuickPickItem & { config: AgentConfig };

/**
 * **Toolbelt: Use This Workspace's Tools in Another Agent…**: Claude Code, Cursor and Gemini CLI get
 * `toolbelt mcp` for this folder in their project file (shown first, then merged in with comments
 * and other servers kept); Codex's per-user file is only shown, as a snippet to paste. A project
 * file is checked in, so its entry names `toolbelt` from PATH and no path of this machine; only
 * Codex's snippet, the person's own, names their VS Code settings file as their choices.
 */
export function registerOtherAgents(context: vscode.ExtensionContext, log: vscode.LogOutputChannel): vscode.Disposable {
  return vscode.commands.registerCommand(USE_IN_ANOTHER_AGENT, async (agentArg?: unknown, folderArg?: unknown) => {
    const folder = typeof folderArg === 'string' ? folderArg : await pickFolder();
    if (!folder) return undefined;
    const options = configOptions(context);
    const items: AgentItem[] = AGENT_KINDS.map((agent) => {
      const config = agentConfig(agent, options);
      return { label: config.label, description: config.file, detail: config.scope === 'user' ? 'your own file: shown for you to paste' : 'written into this folder', config };
    });
    const picked = items.find((item) => item.config.agent === agentArg) ?? (await vscode.window.showQuickPick(items, { title: "Use This Workspace's Tools in Another Agent", placeHolder: 'Which agent?' }));
    if (!picked) return undefined;
    const { config } = picked;
    if (config.scope === 'user') {
      await showSnippet(config);
      return { agent: config.agent, written: undefined };
    }
    // The file's real path, inside the folder: a checked-in link may not lead the write elsewhere.
    let target: ResolvedPath;
    let existing: string | undefined;
    let merged: string;
    try {
      target = await resolveFolderFile(folder, config.file);
      existing = await readFolderFile(target);
      merged = mergeAgentConfig(config.agent, existing, options);
    } catch (error) {
      return cannotWrite(config, error);
    }
    const write = typeof agentArg === 'string' ? 'Write' : await confirmWrite(config, existing !== undefined);
    if (write !== 'Write') return undefined;
    try {
      await writeFolderFile(folder, target, merged);
    } catch (error) {
      return cannotWrite(config, error);
    }
    log.info(`${config.label} now starts toolbelt mcp for ${folder} (${config.file}).`);
    const done = `Toolbelt: ${config.label} will use this workspace's tools (${config.file}). Start it in this folder; it asks before it starts a project's server.`;
    void noteWhenNotOnPath(done);
    return { agent: config.agent, written: path.join(folder, config.file) };
  });
}

function cannotWrite(config: AgentConfig, error: unknown): undefined {
  void vscode.window.showErrorMessage(`Toolbelt: ${config.file} could not take the entry: ${error instanceof Error ? error.message : String(error)}`);
  return undefined;
}

/** The person's own VS Code user settings as their choices, when that file exists: only a per-user file gets them. */
function configOptions(context: vscode.ExtensionContext): AgentConfigOptions {
  const userSettings = userSettingsFile(context);
  return userSettings ? { personalArgs: ['--user-settings', userSettings] } : {};
}

/** The agent runs `toolbelt` from PATH: without one there, says so and offers to install the launcher. */
async function noteWhenNotOnPath(done: string): Promise<void> {
  if (findOnPath(process.platform === 'win32' ? `${TOOLBELT_COMMAND}.cmd` : TOOLBELT_COMMAND)) {
    await vscode.window.showInformationMessage(done);
    return;
  }
  const install = "Install 'toolbelt' Command in PATH";
  const picked = await vscode.window.showWarningMessage(`${done} It runs \`toolbelt\`, which is not on your PATH yet.`, install);
  if (picked === install) await vscode.commands.executeCommand(INSTALL_CLI);
}

async function pickFolder(): Promise<string | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length <= 1) return folders[0]?.uri.fsPath;
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'The folder whose tools the agent gets' });
  return picked?.uri.fsPath;
}

async function confirmWrite(config: AgentConfig, exists: boolean): Promise<string | undefined> {
  return vscode.window.showInformationMessage(
    `${exists ? 'Add to' : 'Create'} ${config.file} for ${config.label}?`,
    { modal: true, detail: `${config.label} will start this workspace's tools through Toolbelt's policy:\n\n${config.snippet}` },
    'Write',
  );
}

async function showSnippet(config: AgentConfig): Promise<void> {
  await vscode.env.clipboard.writeText(config.snippet);
  const document = await vscode.workspace.openTextDocument({ language: config.format, content: `# Add to ${config.file} (copied to the clipboard)\n${config.snippet}` });
  await vscode.window.showTextDocument(document, { preview: true });
}
