import { applyEdits, modify } from 'jsonc-parser';
import { editableJsonTree, objectMember } from '../editableJson';

/*
 * How other agents start `toolbelt mcp` for a workspace: the entry each one's MCP configuration
 * needs, and that entry merged into the file as it is (comments and other servers kept). Pure, so
 * the extension's "Use This Workspace's Tools in Another Agent…" and docs/AGENTS.md agree.
 *
 * A file in the repository is checked in and read on every teammate's machine: its entry names
 * `toolbelt` from PATH and the workspace as the folder the agent runs in (or a variable the agent
 * expands), never a path of the author's machine. The person's own options go only into a file of
 * their own (Codex's ~/.codex/config.toml).
 */

export type AgentKind = 'claude-code' | 'cursor' | 'gemini-cli' | 'codex';
export const AGENT_KINDS: readonly AgentKind[] = ['claude-code', 'cursor', 'gemini-cli', 'codex'];

/** The program every entry runs: Toolbelt's CLI from PATH ("Install 'toolbelt' Command in PATH", or `npm install -g`). */
export const TOOLBELT_COMMAND = 'toolbelt';

export interface AgentConfigOptions {
  /** The server's name in the agent's configuration (default `toolbelt`). */
  serverName?: string;
  /**
   * The person's own options for `toolbelt mcp` (e.g. `--user-settings FILE`): written only into a
   * per-user file, never into one of the repository.
   */
  personalArgs?: readonly string[];
  /**
   * More options for `toolbelt mcp` in every file, checked-in ones too (tests: `--state-dir DIR`).
   * Whatever is given here is written as it is: the extension gives none.
   */
  extraArgs?: readonly string[];
}

export interface AgentConfig {
  agent: AgentKind;
  /** For people: `Claude Code`. */
  label: string;
  /** Where the configuration lives: relative to the workspace, or `~/…` for a per-user file. */
  file: string;
  scope: 'workspace' | 'user';
  format: 'json' | 'toml';
  /** The entry alone, as it would stand in that file. */
  snippet: string;
}

interface AgentFormat {
  label: string;
  file: string;
  scope: 'workspace' | 'user';
  format: 'json' | 'toml';
  /** JSON: the object that maps server names to entries. */
  serversKey?: string;
  /** JSON: fields of the entry besides command and args. */
  extra?: Record<string, unknown>;
  /**
   * How `toolbelt mcp` learns the workspace: none when the agent starts its servers in the folder
   * it runs in (`toolbelt mcp` serves the current folder), else a variable the agent expands.
   */
  workspaceArgs: readonly string[];
}

const FORMATS: Readonly<Record<AgentKind, AgentFormat>> = {
  // Claude Code and Gemini CLI start a stdio server in the folder they run in (Gemini CLI: no `cwd` in the entry → its own).
  'claude-code': { label: 'Claude Code', file: '.mcp.json', scope: 'workspace', format: 'json', serversKey: 'mcpServers', extra: { type: 'stdio' }, workspaceArgs: [] },
  // Cursor does not promise the folder a server starts in; it expands ${workspaceFolder} in `args`.
  cursor: { label: 'Cursor', file: '.cursor/mcp.json', scope: 'workspace', format: 'json', serversKey: 'mcpServers', workspaceArgs: ['--workspace', '${workspaceFolder}'] },
  'gemini-cli': { label: 'Gemini CLI', file: '.gemini/settings.json', scope: 'workspace', format: 'json', serversKey: 'mcpServers', workspaceArgs: [] },
  // One file for every project: the project is the folder Codex runs in.
  codex: { label: 'Codex', file: '~/.codex/config.toml', scope: 'user', format: 'toml', workspaceArgs: [] },
};

const SERVER_NAME = /^[A-Za-z0-9_-]+$/;

function serverOf(format: AgentFormat, options: AgentConfigOptions): { name: string; command: string; args: string[] } {
  const name = options.serverName ?? 'toolbelt';
  if (!SERVER_NAME.test(name)) throw new Error(`"${name}" cannot name an MCP server in every agent's configuration: use letters, digits, "_" and "-".`);
  const personal = format.scope === 'user' ? (options.personalArgs ?? []) : [];
  return { name, command: TOOLBELT_COMMAND, args: ['mcp', ...format.workspaceArgs, ...(options.extraArgs ?? []), ...personal] };
}

/** The entry that starts `toolbelt mcp` for the workspace, for one agent. */
export function agentConfig(agent: AgentKind, options: AgentConfigOptions = {}): AgentConfig {
  const format = FORMATS[agent];
  const server = serverOf(format, options);
  const snippet =
    format.format === 'toml'
      ? tomlTable(server)
      : `${JSON.stringify({ [format.serversKey!]: { [server.name]: { ...format.extra, command: server.command, args: server.args } } }, null, 2)}\n`;
  return { agent, label: format.label, file: format.file, scope: format.scope, format: format.format, snippet };
}

/**
 * The agent's configuration file with the entry added, or replaced when one of the same name is
 * there; everything else (other servers, settings, comments) is kept. `existing`: the file's text,
 * undefined when there is none. Throws UneditableJsonError, naming the line, when a JSON file is
 * not JSON, not an object the entry can go into, or names a key twice (agents would run the other
 * definition of the server).
 */
export function mergeAgentConfig(agent: AgentKind, existing: string | undefined, options: AgentConfigOptions = {}): string {
  const format = FORMATS[agent];
  const server = serverOf(format, options);
  if (format.format === 'toml') return mergeToml(existing ?? '', server);
  const text = existing && existing.trim() !== '' ? existing : '{}\n';
  objectMember(text, editableJsonTree(text, format.file), format.serversKey!, format.file);
  const entry = { ...format.extra, command: server.command, args: server.args };
  const edits = modify(text, [format.serversKey!, server.name], entry, { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } });
  const merged = applyEdits(text, edits);
  return merged.endsWith('\n') ? merged : `${merged}\n`;
}

function tomlTable(server: { name: string; command: string; args: string[] }): string {
  // A TOML basic string is a JSON string (the same escapes), so JSON.stringify writes one.
  return `[mcp_servers.${server.name}]\ncommand = ${JSON.stringify(server.command)}\nargs = [${server.args.map((arg) => JSON.stringify(arg)).join(', ')}]\n`;
}

/** Replaces `[mcp_servers.<name>]` (and its sub-tables) or appends it. */
function mergeToml(text: string, server: { name: string; command: string; args: string[] }): string {
  const lines = text.split('\n');
  const header = /^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$/;
  const ownTable = (line: string) => {
    const match = header.exec(line);
    if (!match || line.trim().startsWith('[[')) return false;
    const key = match[1].replace(/"/g, '');
    return key === `mcp_servers.${server.name}` || key.startsWith(`mcp_servers.${server.name}.`);
  };
  const start = lines.findIndex(ownTable);
  const table = tomlTable(server).trimEnd().split('\n');
  if (start === -1) {
    const body = text.trimEnd();
    return `${body}${body ? '\n\n' : ''}${table.join('\n')}\n`;
  }
  let end = start + 1;
  while (end < lines.length && (!header.test(lines[end]) || ownTable(lines[end]))) end++;
  // Blank lines before the next table stay with it.
  while (end > start + 1 && lines[end - 1].trim() === '') end--;
  return [...lines.slice(0, start), ...table, ...lines.slice(end)].join('\n');
}
