import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { definitionHash } from '../../tools/mcp';
import { GOVERNED_MCP_ORIGIN } from '../../tools/mcp';
import type { McpServerConfig } from '../../tools/mcp';
import { readEnvFileText } from '../../tools/mcp';
import type { McpServers } from './mcpServers';
import type { ServerApprovals } from './serverApprovals';
import { governancePath } from './sourceTree';

/** `contributes.mcpServerDefinitionProviders[0].id`. */
export const GOVERNED_PROVIDER = 'toolbelt.governed';
/** A test seam: the definitions the provider gives VS Code now. */
export const GOVERNED_DEFINITIONS_COMMAND = 'toolbelt.mcp.governedDefinitions';

/** One stdio server as VS Code's MCP support starts it. */
export interface GovernedDefinition {
  label: string;
  command: string;
  args: string[];
  env: Record<string, string>;
  version: string;
}

interface McpProviderShape {
  onDidChangeMcpServerDefinitions: vscode.Event<void>;
  provideMcpServerDefinitions(): Promise<unknown[]>;
}

type McpStdioDefinitionClass = new (label: string, command: string, args?: string[], env?: Record<string, string>, version?: string) => unknown;

/**
 * VS Code's chat reaches the servers Toolbelt governs (`.vscode/toolbelt.mcp.json`) through
 * Toolbelt: one MCP server definition that VS Code starts, `toolbelt mcp --no-builtins` on this
 * workspace, so every call of Copilot's agent to those tools goes through Toolbelt's policy
 * (asking through VS Code's elicitation). Only servers the person approved in Toolbelt, as they are
 * defined now, may start there. VS Code 1.101+; nothing on older ones.
 */
export function registerGovernedProvider(context: vscode.ExtensionContext, servers: McpServers, approvals: ServerApprovals, log: vscode.LogOutputChannel): vscode.Disposable {
  const changed = new vscode.EventEmitter<void>();
  const definitions = () => governedDefinitions(context, servers, approvals);
  const disposables: vscode.Disposable[] = [changed, servers.onDidLoad(() => changed.fire())];
  if (context.extensionMode === vscode.ExtensionMode.Test) disposables.push(vscode.commands.registerCommand(GOVERNED_DEFINITIONS_COMMAND, definitions));
  const api = (vscode.lm as unknown as { registerMcpServerDefinitionProvider?: (id: string, provider: McpProviderShape) => vscode.Disposable }).registerMcpServerDefinitionProvider;
  const Definition = (vscode as unknown as { McpStdioServerDefinition?: McpStdioDefinitionClass }).McpStdioServerDefinition;
  if (!api || !Definition) {
    log.info(`This VS Code (${vscode.version}) cannot take MCP servers from extensions; VS Code's chat does not reach the servers of ${GOVERNED_MCP_ORIGIN}.`);
    return vscode.Disposable.from(...disposables);
  }
  disposables.push(
    api(GOVERNED_PROVIDER, {
      onDidChangeMcpServerDefinitions: changed.event,
      provideMcpServerDefinitions: async () => (await definitions()).map((d) => new Definition(d.label, d.command, d.args, d.env, d.version)),
    }),
  );
  return vscode.Disposable.from(...disposables);
}

/** A definition per folder whose governed servers the person approved as they are now. */
export async function governedDefinitions(context: vscode.ExtensionContext, servers: McpServers, approvals: ServerApprovals): Promise<GovernedDefinition[]> {
  const folder = vscode.workspace.workspaceFolders?.find((f) => f.uri.scheme === 'file')?.uri.fsPath;
  if (!folder) return [];
  const approved: string[] = [];
  for (const server of servers.servers()) {
    if (governancePath(server.origin) !== 'governed') continue;
    const config = servers.config(server.id);
    if (config && approvals.approvedAsIs(config, await hashOf(config, folder))) approved.push(server.id);
  }
  if (approved.length === 0) return [];
  const userSettings = context.globalStorageUri.scheme === 'file' ? path.resolve(context.globalStorageUri.fsPath, '..', '..', 'settings.json') : undefined;
  const args = [
    path.join(context.extensionPath, 'dist', 'cli.js'), 'mcp', '--workspace', folder, '--no-builtins',
    ...(userSettings && existsSync(userSettings) ? ['--user-settings', userSettings] : []),
    ...approved.flatMap((name) => ['--approve-server', name]),
  ];
  const version = createHash('sha256').update(JSON.stringify(args)).digest('hex').slice(0, 12);
  // The extension host's own runtime runs the CLI: node in a server, Electron as node on the desktop.
  return [{ label: `Toolbelt: ${approved.join(', ')}`, command: process.execPath, args, env: { ELECTRON_RUN_AS_NODE: '1' }, version }];
}

function hashOf(server: McpServerConfig, folder: string): Promise<string> {
  return readEnvFileText(server, { workspaceFolder: folder }).then(
    (text) => definitionHash(server, text),
    () => definitionHash(server),
  );
}
