import * as vscode from 'vscode';
import { GOVERNED_MCP_ORIGIN, moveServerInFolder } from '../../tools/mcp';
import type { McpServers } from './mcpServers';
import { serverNameOf } from './mcpCommands';
import { governancePath } from './sourceTree';

export const GOVERN_SERVER = 'toolbelt.mcp.governServer';
/** Workspace state: the servers the person was already offered to govern through Toolbelt only. */
const OFFERED_KEY = 'toolbelt.mcp.governOffered';

/**
 * One governed path: a server of `.vscode/mcp.json` is started by VS Code too, so Copilot's agent
 * reaches it without Toolbelt's policy. **Govern Through Toolbelt Only** moves its definition to
 * Toolbelt's own file (`.vscode/toolbelt.mcp.json`, which VS Code does not read); Toolbelt offers
 * it once per server, the first time the workspace's registry uses such a server.
 */
export function registerGovernedServers(context: vscode.ExtensionContext, servers: McpServers, usedServers: () => string[], log: vscode.LogOutputChannel): vscode.Disposable {
  const govern = async (arg?: unknown): Promise<boolean> => {
    const name = serverNameOf(arg) ?? (await pickShared(servers));
    if (!name) return false;
    const moved = await moveToGoverned(name).catch((error: unknown) => {
      void vscode.window.showErrorMessage(`Toolbelt: ${error instanceof Error ? error.message : String(error)}`);
      return false;
    });
    if (!moved) return false;
    log.info(`MCP server "${name}" moved from .vscode/mcp.json to ${GOVERNED_MCP_ORIGIN}: only Toolbelt starts it now.`);
    await servers.reload();
    return true;
  };
  const offer = () => void offerOnce(context, servers, usedServers(), govern);
  return vscode.Disposable.from(vscode.commands.registerCommand(GOVERN_SERVER, govern), servers.onDidLoad(offer));
}

/** Moves the server from the first folder whose .vscode/mcp.json defines it into Toolbelt's file there. */
async function moveToGoverned(name: string): Promise<boolean> {
  for (const folder of vscode.workspace.workspaceFolders ?? []) {
    if (folder.uri.scheme === 'file' && (await moveServerInFolder(folder.uri.fsPath, name))) return true;
  }
  throw new Error(`no .vscode/mcp.json of this workspace defines a server "${name}".`);
}

async function offerOnce(context: vscode.ExtensionContext, servers: McpServers, used: string[], govern: (name: string) => Promise<boolean>): Promise<void> {
  const offered = new Set(context.workspaceState.get<string[]>(OFFERED_KEY, []));
  const shared = servers.servers().filter((server) => governancePath(server.origin) === 'shared' && used.includes(server.id) && !offered.has(server.id));
  if (shared.length === 0) return;
  for (const server of shared) offered.add(server.id);
  await context.workspaceState.update(OFFERED_KEY, [...offered]);
  const names = shared.map((server) => `"${server.id}"`).join(', ');
  const choice = await vscode.window.showWarningMessage(
    `VS Code also starts MCP server ${names} from .vscode/mcp.json, so Copilot's agent can use its tools without Toolbelt's policy. Govern it through Toolbelt only? Its definition moves to ${GOVERNED_MCP_ORIGIN}.`,
    'Govern Through Toolbelt Only',
    'Not Now',
  );
  if (choice !== 'Govern Through Toolbelt Only') return;
  for (const server of shared) await govern(server.id);
}

async function pickShared(servers: McpServers): Promise<string | undefined> {
  const shared = servers.servers().filter((server) => governancePath(server.origin) === 'shared');
  if (shared.length === 0) {
    void vscode.window.showInformationMessage('Toolbelt: every MCP server Toolbelt reads is governed by it already (none is in .vscode/mcp.json).');
    return undefined;
  }
  return (await vscode.window.showQuickPick(shared.map((server) => ({ label: server.id, description: server.origin })), { title: 'Govern which server through Toolbelt only?' }))?.label;
}
