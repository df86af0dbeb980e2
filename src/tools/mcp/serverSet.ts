import { canonicalJson } from '../canonicalJson';
import { GOVERNED_MCP_ORIGIN } from './governedConfig';
import { MCP_JSON_ORIGIN, parseMcpJson, parseMcpServers, USER_SETTINGS_ORIGIN, type McpInputDefinition, type McpServerConfig } from './mcpConfig';

/** One server as the workspace and the person define it, ready to start. */
export interface McpDefinition {
  server: McpServerConfig;
  inputs: readonly McpInputDefinition[];
  /** The folder `${workspaceFolder}` names for it: the first folder for the person's own servers. */
  workspaceFolder?: string;
  /** Changes when anything that would start it differently changes. */
  fingerprint: string;
}

/** One workspace folder's files, as read (undefined: the file is not there). */
export interface McpFolderFiles {
  /** The folder's path, when it is on disk. */
  root?: string;
  /** Prefixed to the origin when there are several folders (`api/.vscode/mcp.json`). */
  name?: string;
  /** `.vscode/toolbelt.mcp.json`: the servers Toolbelt governs alone. */
  governed?: string;
  /** `.vscode/mcp.json`, which VS Code runs too. */
  mcpJson?: string;
}

/** A server name the caller keeps for something else, and why. */
export interface ReservedName {
  name: string;
  why: string;
}

/**
 * Which MCP servers exist, read the same way by the extension and the CLI: the person's own
 * (`toolbelt.mcp.servers`, user settings) first — they win a name clash — then each folder's
 * `.vscode/toolbelt.mcp.json` (a server moved there wins over a copy left behind), then its
 * `.vscode/mcp.json`. A later server of a name already taken is left out, with a problem.
 */
export function mcpServerSet(userServers: unknown, folders: readonly McpFolderFiles[], reserved: readonly ReservedName[] = []): { servers: Map<string, McpDefinition>; problems: string[] } {
  const problems: string[] = [];
  const all: McpDefinition[] = [];
  const fromUser = parseMcpServers(userServers, USER_SETTINGS_ORIGIN);
  problems.push(...fromUser.errors);
  for (const server of fromUser.servers) all.push(definition(server, fromUser.inputs, folders[0]?.root));
  for (const [file, originName] of [['governed', GOVERNED_MCP_ORIGIN], ['mcpJson', MCP_JSON_ORIGIN]] as const) {
    for (const folder of folders) {
      const text = folder[file];
      if (text === undefined) continue;
      const parsed = parseMcpJson(text, folders.length > 1 && folder.name ? `${folder.name}/${originName}` : originName);
      problems.push(...parsed.errors);
      for (const server of parsed.servers) all.push(definition(server, parsed.inputs, folder.root));
    }
  }
  const servers = new Map<string, McpDefinition>();
  for (const found of all) {
    const { name, origin } = found.server;
    const first = servers.get(name);
    const kept = reserved.find((r) => r.name === name);
    if (first) problems.push(`MCP server "${name}" (${origin}): a server of that name is defined in ${first.server.origin} already; this one is left out.`);
    else if (kept) problems.push(`MCP server "${name}" (${origin}): "${name}" is ${kept.why}; rename the server.`);
    else servers.set(name, found);
  }
  return { servers, problems };
}

/** Whether a server waits for the person's approval before it starts: every server but the person's own. */
export function needsApproval(server: McpServerConfig): boolean {
  return server.origin !== USER_SETTINGS_ORIGIN;
}

function definition(server: McpServerConfig, inputs: readonly McpInputDefinition[], workspaceFolder: string | undefined): McpDefinition {
  const used = inputs.filter((input) => JSON.stringify(server).includes(`\${input:${input.id}}`));
  return {
    server,
    inputs,
    ...(workspaceFolder !== undefined && { workspaceFolder }),
    fingerprint: canonicalJson({ server, inputs: used, workspaceFolder: workspaceFolder ?? null }),
  };
}
