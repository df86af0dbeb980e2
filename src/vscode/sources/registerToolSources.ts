import * as path from 'node:path';
import * as vscode from 'vscode';
import { shutdownFlushes } from '../storage';
import type { WorkspaceTools } from '../workspaceTools';
import { ExtensionToolSource } from './extensionTools';
import { registerMcpCommands } from './mcpCommands';
import { McpInputs } from './mcpInputs';
import { McpLogs } from './mcpLogs';
import { McpServers, type McpServersOptions } from './mcpServers';
import { registerGovernedProvider } from './governedProvider';
import { registerGovernedServers } from './governedServers';
import { ServerApprovals } from './serverApprovals';

export interface ToolSources {
  /** Starts the sources a registered tool waits for; a chat awaits it before each turn. */
  startNeeded(): Promise<void>;
  readonly servers: McpServers;
}

/**
 * Tools from outside Toolbelt: other extensions' (`vscode.lm.tools`) and the MCP servers of
 * `.vscode/mcp.json` and `toolbelt.mcp.servers`, each a source in the workspace's tool manager,
 * with the server actions of the tools view. Servers stop when the extension is disposed.
 */
export function registerToolSources(context: vscode.ExtensionContext, tools: WorkspaceTools, log: vscode.LogOutputChannel, sandbox?: McpServersOptions['sandbox']): ToolSources {
  const extensionTools = new ExtensionToolSource();
  const logs = new McpLogs();
  const approvals = new ServerApprovals(context.workspaceState);
  // The person's settings.json lies two folders above the extension's global storage (…/User/globalStorage/<id>).
  const personalFolder = context.globalStorageUri.scheme === 'file' ? path.resolve(context.globalStorageUri.fsPath, '..', '..') : undefined;
  const servers = new McpServers(tools, { approvals, inputs: new McpInputs(context.secrets), logs, log, sandbox, personalFolder });
  let stopping: Promise<void> | undefined;
  const stopServers = () => (stopping ??= servers.dispose());
  context.subscriptions.push(
    extensionTools,
    tools.addSource(extensionTools),
    logs,
    { dispose: () => void stopServers() },
    // On deactivate the servers are told to stop at once (stdin closed, then signals), without holding up the other flushes.
    shutdownFlushes.add({ flush: async () => void stopServers() }),
  );
  registerMcpCommands(context, servers, logs, approvals);
  const usedServers = () => tools.list().flatMap((tool) => (tool.type === 'mcp' ? [tool.source.id] : []));
  context.subscriptions.push(registerGovernedServers(context, servers, usedServers, log), registerGovernedProvider(context, servers, approvals, log));
  // Until the servers are read, their tools' names would be reported as unknown.
  tools.holdReportsUntil(servers.watch());
  tools.waitForSourcesBeforeStarting(() => servers.settled());
  return { startNeeded: () => tools.startNeeded(), servers };
}
