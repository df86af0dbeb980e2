import * as vscode from 'vscode';
import type { GuardedSource } from './guardedSource';
import type { McpLogs } from './mcpLogs';
import type { McpServers } from './mcpServers';
import { sourceStateText } from './sourceRowText';
import type { ApprovalPrompt, ServerApprovals } from './serverApprovals';

/** A command argument naming a server: its name, or a tree node of it. */
export function serverNameOf(arg: unknown): string | undefined {
  if (typeof arg === 'string') return arg;
  if (arg && typeof arg === 'object' && (arg as { kind?: unknown }).kind === 'source') {
    const id = (arg as { sourceId?: unknown }).sourceId;
    return typeof id === 'string' ? id : undefined;
  }
  return undefined;
}

/** The tree's server actions: start, restart, stop, show log. Each takes a server name or its tree node. */
export function registerMcpCommands(context: vscode.ExtensionContext, servers: McpServers, logs: McpLogs, approvals: ServerApprovals): void {
  const withServer = (run: (server: GuardedSource) => Promise<unknown> | unknown) => async (arg?: unknown) => {
    // A server the settings named a moment ago is still being read: its name is found once that is done.
    await servers.settled();
    const name = serverNameOf(arg) ?? (await pickServer(servers));
    if (!name) return undefined;
    const server = servers.get(name);
    if (!server) {
      void vscode.window.showErrorMessage(`Toolbelt: there is no MCP server named "${name}".`);
      return undefined;
    }
    await run(server);
    return server.state();
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('toolbelt.mcp.start', withServer((server) => server.start())),
    vscode.commands.registerCommand(
      'toolbelt.mcp.restart',
      withServer(async (server) => {
        await server.stop();
        await server.start();
      }),
    ),
    vscode.commands.registerCommand('toolbelt.mcp.stop', withServer((server) => server.stop())),
    vscode.commands.registerCommand('toolbelt.mcp.showLog', withServer((server) => logs.show(server.id))),
  );
  if (context.extensionMode === vscode.ExtensionMode.Test) registerTestSeam(context, approvals);
}

/**
 * Test mode only (an extension host started with a test runner): in-host modals are answered
 * by the workbench itself there, so tests script the approval answer and read what was asked.
 */
function registerTestSeam(context: vscode.ExtensionContext, approvals: ServerApprovals): void {
  const original = approvals.prompt;
  const asked: { server: string; changed: boolean; detail: string }[] = [];
  context.subscriptions.push(
    vscode.commands.registerCommand('toolbelt.mcp.testing.approvals', (options?: { answer?: boolean; restore?: boolean }) => {
      if (options?.restore) {
        approvals.prompt = original;
        asked.length = 0;
      }
      else if (typeof options?.answer === 'boolean') {
        const answer = options.answer;
        const scripted: ApprovalPrompt = async ({ server, changed, detail }) => (asked.push({ server: server.name, changed, detail }), answer);
        approvals.prompt = scripted;
      }
      return [...asked];
    }),
  );
}

async function pickServer(servers: McpServers): Promise<string | undefined> {
  const items = servers.servers().map((server) => ({ label: server.label, description: sourceStateText(server.state(), server.tools().length), detail: server.origin }));
  if (items.length === 0) {
    void vscode.window.showInformationMessage('Toolbelt: no MCP server is defined (.vscode/mcp.json or the toolbelt.mcp.servers setting).');
    return undefined;
  }
  return (await vscode.window.showQuickPick(items, { title: 'Choose an MCP server' }))?.label;
}
