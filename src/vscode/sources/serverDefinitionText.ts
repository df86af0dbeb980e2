import type { McpServerConfig } from '../../tools/mcp';

/**
 * What a person reads before a workspace-defined server starts: exactly what will run or where it
 * connects. Environment variables and headers by name only: their values may be secrets.
 * No vscode import (unit-tested).
 */
export function describeServerDefinition(server: McpServerConfig): string {
  const lines: string[] = [];
  if (server.type === 'stdio') {
    lines.push(`Command: ${[server.command, ...server.args].map(quoteIfNeeded).join(' ')}`);
    const env = Object.keys(server.env);
    if (env.length) lines.push(`Environment: ${env.join(', ')}`);
    if (server.envFile) lines.push(`Environment file: ${server.envFile}`);
    if (server.cwd) lines.push(`Working folder: ${server.cwd}`);
  } else {
    lines.push(`URL (${server.type}): ${server.url}`);
    const headers = Object.keys(server.headers);
    if (headers.length) lines.push(`Headers: ${headers.join(', ')}`);
  }
  lines.push(`Defined in: ${server.origin}`);
  return lines.join('\n');
}

/** The question a modal asks, the first time or after the definition changed. */
export function approvalQuestion(server: McpServerConfig, changed: boolean): string {
  return changed
    ? `The MCP server "${server.name}" in ${server.origin} changed since you allowed it. Start it as it is now?`
    : `Start the MCP server "${server.name}" defined in ${server.origin}? It runs with your permissions.`;
}

function quoteIfNeeded(part: string): string {
  return /^[\w@%+=:,./-]+$/.test(part) ? part : JSON.stringify(part);
}
