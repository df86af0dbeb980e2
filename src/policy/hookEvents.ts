import { readFileSync, readlinkSync } from 'node:fs';
import type { HookAgent, NativeCall, NativeKind } from '../tools/nativeCalls';

/**
 * Each agent's pre-tool-call hook event (JSON on stdin) → one NativeCall. The shapes are the ones
 * the real agents send (test/fixtures/hookEvents/, captured from Claude Code 2.1, Codex 0.169 and
 * Gemini CLI 0.61; Copilot's and Cursor's from their hook references).
 */
export class HookEventError extends Error {
  override name = 'HookEventError';
}

type Json = Record<string, unknown>;

export interface ParsedEvent {
  call: NativeCall;
  /** The agent's working folder as the event names it (the default workspace). */
  cwd?: string;
  /** The event asks nothing of a pre-tool hook (an after-edit notice): answered with nothing. */
  observeOnly?: boolean;
}

export function parseHookEvent(agent: HookAgent, text: string, env: NodeJS.ProcessEnv = process.env): ParsedEvent {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new HookEventError(`the hook event on stdin is not JSON (${(error as Error).message})`);
  }
  if (!isObject(value)) throw new HookEventError('the hook event on stdin is not a JSON object');
  switch (agent) {
    case 'claude-code':
      return claudeCode(value);
    case 'codex':
      return codex(value);
    case 'gemini-cli':
      return geminiCli(value, env);
    case 'copilot':
      return copilot(value);
    case 'cursor':
      return cursor(value);
  }
}

// ---- Claude Code: {session_id, cwd, permission_mode, hook_event_name: "PreToolUse", tool_name, tool_input} ----

/** Claude Code tools that reach no file, command or network of their own (a subagent's calls meet the hook themselves). */
const CLAUDE_INERT = new Set(['TodoWrite', 'TodoRead', 'Task', 'Agent', 'ExitPlanMode', 'EnterPlanMode', 'AskUserQuestion', 'BashOutput', 'KillShell', 'KillBash', 'TaskOutput', 'TaskStop', 'Skill', 'SlashCommand', 'ListMcpResourcesTool']);

function claudeCode(event: Json): ParsedEvent {
  const tool = requiredString(event, 'tool_name');
  const input = objectField(event, 'tool_input');
  const mode = str(event.permission_mode);
  // bypassPermissions: an ask does not stop an Edit/Write into .vscode/, .claude/, .git/ (the file is written); dontAsk asks nobody.
  const canAsk = mode !== 'bypassPermissions' && mode !== 'dontAsk';
  const base = { agent: 'claude-code' as const, tool, sessionId: str(event.session_id), cwd: str(event.cwd), args: input, canAsk };
  const mcp = mcpName(tool);
  if (mcp) return withCwd({ ...base, kind: 'mcp', mcp }, event);
  const shape = claudeShape(tool, input);
  return withCwd({ ...base, ...shape }, event);
}

function claudeShape(tool: string, input: Json): Pick<NativeCall, 'kind' | 'command' | 'paths' | 'urls' | 'inert'> {
  switch (tool) {
    case 'Bash':
      return { kind: 'shell', command: requiredString(input, 'command') };
    case 'Read':
    case 'NotebookRead':
      return { kind: 'read', paths: [requiredString(input, tool === 'Read' ? 'file_path' : 'notebook_path')] };
    case 'Write':
    case 'Edit':
    case 'MultiEdit':
      return { kind: 'write', paths: [requiredString(input, 'file_path')] };
    case 'NotebookEdit':
      return { kind: 'write', paths: [requiredString(input, 'notebook_path')] };
    case 'Glob':
    case 'Grep':
    case 'LS':
      return { kind: 'read', paths: searchPaths(input, ['path']) };
    case 'WebFetch':
      return { kind: 'fetch', urls: [requiredString(input, 'url')] };
    case 'WebSearch':
      return { kind: 'fetch', urls: [] };
    default:
      return CLAUDE_INERT.has(tool) ? { kind: 'other', inert: true } : { kind: 'other' };
  }
}

// ---- Codex: Claude's shape; tool_name Bash {command}, apply_patch {command: patch}, mcp__server__tool ----

function codex(event: Json): ParsedEvent {
  const tool = requiredString(event, 'tool_name');
  const input = objectField(event, 'tool_input');
  // Codex ignores ask and allow (the call runs): only deny (or exit 2) blocks.
  const base = { agent: 'codex' as const, tool, sessionId: str(event.session_id), cwd: str(event.cwd), args: input, canAsk: false };
  const mcp = mcpName(tool);
  if (mcp) return withCwd({ ...base, kind: 'mcp', mcp }, event);
  if (tool === 'apply_patch') return withCwd({ ...base, kind: 'write', paths: patchPaths(requiredString(input, 'command')) }, event);
  if (tool === 'Bash' || tool === 'shell' || tool === 'exec_command' || tool === 'local_shell') {
    const command = input.command;
    return withCwd({ ...base, kind: 'shell', command: Array.isArray(command) ? command.map(String).join(' ') : requiredString(input, 'command') }, event);
  }
  return withCwd({ ...base, kind: 'other' }, event);
}

/** The files an apply_patch envelope adds, updates, deletes or moves to. */
export function patchPaths(patch: string): string[] {
  const paths: string[] = [];
  for (const line of patch.split('\n')) {
    const found = /^\*\*\* (?:Add File|Update File|Delete File|Move to): (.+)$/.exec(line.trimEnd());
    if (found) paths.push(found[1].trim());
  }
  if (paths.length === 0) throw new HookEventError('apply_patch names no file (no "*** Add/Update/Delete File:" line)');
  return paths;
}

// ---- Gemini CLI: {session_id, cwd, hook_event_name: "BeforeTool", tool_name, tool_input, mcp_context?} ----

const GEMINI_INERT = new Set(['write_todos', 'ask_user', 'enter_plan_mode', 'exit_plan_mode', 'complete_task', 'update_topic', 'activate_skill', 'invoke_agent', 'get_internal_docs']);

function geminiCli(event: Json, env: NodeJS.ProcessEnv): ParsedEvent {
  const tool = requiredString(event, 'tool_name');
  const input = objectField(event, 'tool_input');
  const base = { agent: 'gemini-cli' as const, tool, sessionId: str(event.session_id) ?? str(env.GEMINI_SESSION_ID), cwd: str(event.cwd), args: input, canAsk: geminiCanAsk() };
  const context = isObject(event.mcp_context) ? event.mcp_context : undefined;
  if (context) return withCwd({ ...base, kind: 'mcp', mcp: { server: str(context.server_name) ?? '', tool: str(context.tool_name) ?? tool } }, event);
  switch (tool) {
    case 'run_shell_command':
      return withCwd({ ...base, kind: 'shell', command: requiredString(input, 'command'), ...(str(input.dir_path) ? { cwd: joinCwd(str(event.cwd), str(input.dir_path)!) } : {}) }, event, true);
    case 'read_file':
      return withCwd({ ...base, kind: 'read', paths: [requiredString(input, 'file_path')] }, event);
    case 'read_many_files':
      return withCwd({ ...base, kind: 'read', paths: stringList(input.include ?? input.paths) }, event);
    case 'write_file':
    case 'replace':
      return withCwd({ ...base, kind: 'write', paths: [requiredString(input, 'file_path')] }, event);
    case 'list_directory':
    case 'glob':
    case 'grep_search':
    case 'search_file_content':
      return withCwd({ ...base, kind: 'read', paths: searchPaths(input, ['dir_path', 'path']) }, event);
    case 'web_fetch':
      return withCwd({ ...base, kind: 'fetch', urls: urlsIn(str(input.url) ?? str(input.prompt) ?? '') }, event);
    case 'google_web_search':
      return withCwd({ ...base, kind: 'fetch', urls: [] }, event);
    default: {
      const mcp = mcpName(tool);
      if (mcp) return withCwd({ ...base, kind: 'mcp', mcp }, event);
      return withCwd({ ...base, kind: 'other', ...(GEMINI_INERT.has(tool) ? { inert: true } : {}) }, event);
    }
  }
}

/**
 * Gemini CLI's ask waits forever in a headless or yolo run, and its event does not say which run
 * it is: the gemini process above the hook does (its arguments and its terminal). Not found → no.
 */
export function geminiCanAsk(pid = process.ppid): boolean {
  for (let hops = 0, current = pid; hops < 8 && current > 1; hops++) {
    const args = processArgs(current);
    if (args === undefined) return false;
    if (args.some((arg) => /(^|[\\/])gemini(\.js)?$/.test(arg) || /@google[\\/]gemini-cli/.test(arg))) {
      const headless = args.some((arg, i) => arg === '-p' || arg === '--prompt' || arg.startsWith('--prompt=') || arg === '-y' || arg === '--yolo' || arg === '--approval-mode=yolo' || (arg === '--approval-mode' && args[i + 1] === 'yolo'));
      return !headless && onTerminal(current);
    }
    current = parentOf(current) ?? 0;
  }
  return false;
}

function processArgs(pid: number): string[] | undefined {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
  } catch {
    return undefined;
  }
}

function parentOf(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return undefined;
  }
}

function onTerminal(pid: number): boolean {
  try {
    return /^\/dev\/(pts\/\d+|tty)/.test(readlinkSync(`/proc/${pid}/fd/0`));
  } catch {
    return false;
  }
}

// ---- Copilot: VS Code's agent {hookEventName, sessionId, cwd, tool_name, tool_input}; Copilot CLI {cwd, toolName, toolArgs: JSON text} ----

function copilot(event: Json): ParsedEvent {
  const cliShape = typeof event.toolName === 'string' && event.tool_name === undefined;
  const tool = cliShape ? requiredString(event, 'toolName') : requiredString(event, 'tool_name');
  const input = cliShape ? toolArgs(event.toolArgs) : objectField(event, 'tool_input');
  // VS Code's Chat asks the person; Copilot CLI's ask has no one to answer it in a prompt run, and its event does not say which run it is.
  const base = { agent: 'copilot' as const, tool, sessionId: str(event.sessionId) ?? str(event.session_id), cwd: str(event.cwd), args: input, canAsk: !cliShape };
  const mcp = mcpName(tool);
  if (mcp) return withCwd({ ...base, kind: 'mcp', mcp }, event);
  return withCwd({ ...base, ...copilotShape(tool, input) }, event);
}

const COPILOT_INERT = new Set(['manage_todo_list', 'todo', 'think', 'report_intent', 'update_todo', 'get_errors', 'get_changed_files', 'get_vscode_api', 'runSubagent']);

function copilotShape(tool: string, input: Json): Pick<NativeCall, 'kind' | 'command' | 'paths' | 'urls' | 'inert'> {
  switch (tool) {
    case 'run_in_terminal':
    case 'runInTerminal':
    case 'bash':
    case 'shell':
    case 'powershell':
      return { kind: 'shell', command: requiredString(input, 'command') };
    case 'read_file':
    case 'readFile':
    case 'view':
      return { kind: 'read', paths: [pathOf(input, ['filePath', 'path', 'file_path'])] };
    case 'editFiles': {
      // VS Code's hooks reference: {"tool_name":"editFiles","tool_input":{"files":["src/main.ts"]}}.
      const files = stringList(input.files);
      if (files.length === 0) throw new HookEventError('editFiles names no file');
      return { kind: 'write', paths: files };
    }
    case 'list_dir':
    case 'file_search':
    case 'grep_search':
    case 'glob':
    case 'grep':
    case 'semantic_search':
      return { kind: 'read', paths: searchPaths(input, ['path', 'dir', 'includePattern']) };
    case 'create_file':
    case 'create':
    case 'edit':
    case 'str_replace':
    case 'replace_string_in_file':
    case 'insert_edit_into_file':
    case 'edit_notebook_file':
    case 'create_directory':
    case 'apply_patch':
      return { kind: 'write', paths: tool === 'apply_patch' ? patchPaths(str(input.input) ?? requiredString(input, 'command')) : [pathOf(input, ['filePath', 'path', 'file_path', 'dirPath'])] };
    case 'multi_replace_string_in_file': {
      const list = Array.isArray(input.replacements) ? input.replacements.filter(isObject).map((r) => pathOf(r, ['filePath'])) : [];
      if (list.length === 0) throw new HookEventError('multi_replace_string_in_file names no file');
      return { kind: 'write', paths: list };
    }
    case 'fetch_webpage':
    case 'web_fetch':
      return { kind: 'fetch', urls: stringList(input.urls ?? input.url) };
    default:
      return COPILOT_INERT.has(tool) ? { kind: 'other', inert: true } : { kind: 'other' };
  }
}

function toolArgs(value: unknown): Json {
  if (isObject(value)) return value;
  if (typeof value !== 'string') return {};
  try {
    const parsed: unknown = JSON.parse(value);
    if (isObject(parsed)) return parsed;
  } catch {
    // said below
  }
  throw new HookEventError('toolArgs is not a JSON object');
}

// ---- Cursor: {hook_event_name, conversation_id, workspace_roots, …}: beforeShellExecution {command, cwd}, beforeReadFile {file_path}, beforeMCPExecution {tool_name, tool_input}, preToolUse ----

function cursor(event: Json): ParsedEvent {
  const name = requiredString(event, 'hook_event_name');
  const roots = stringList(event.workspace_roots);
  const cwd = str(event.cwd) ?? roots[0];
  const base = { agent: 'cursor' as const, sessionId: str(event.conversation_id) ?? str(event.session_id), cwd, args: {} as Json };
  const parsed = (call: NativeCall, observeOnly = false): ParsedEvent => ({ call, ...(cwd ? { cwd } : {}), ...(observeOnly ? { observeOnly } : {}) });
  switch (name) {
    case 'beforeShellExecution': {
      const command = requiredString(event, 'command');
      return parsed({ ...base, tool: 'shell', kind: 'shell', command, args: { command }, canAsk: true });
    }
    case 'beforeReadFile': {
      const file = requiredString(event, 'file_path');
      // beforeReadFile answers allow or deny only.
      return parsed({ ...base, tool: 'read_file', kind: 'read', paths: [file], args: { file_path: file }, canAsk: false });
    }
    case 'beforeMCPExecution': {
      const tool = requiredString(event, 'tool_name');
      const server = str(event.server) ?? str(event.server_name) ?? str(event.url) ?? str(event.command) ?? '';
      return parsed({ ...base, tool, kind: 'mcp', mcp: { server, tool }, args: toolArgs(event.tool_input), canAsk: true });
    }
    case 'preToolUse': {
      const tool = requiredString(event, 'tool_name');
      const input = toolArgs(event.tool_input);
      const shape = tool === 'Shell' || tool === 'run_terminal_cmd' ? { kind: 'shell' as NativeKind, command: requiredString(input, 'command') }
        : tool === 'Read' || tool === 'read_file' ? { kind: 'read' as NativeKind, paths: [pathOf(input, ['file_path', 'path', 'target_file'])] }
          : tool === 'Write' || tool === 'edit_file' || tool === 'Delete' || tool === 'delete_file' ? { kind: 'write' as NativeKind, paths: [pathOf(input, ['file_path', 'path', 'target_file'])] }
            : { kind: 'other' as NativeKind };
      return parsed({ ...base, tool, ...shape, args: input, canAsk: false });
    }
    default:
      // afterFileEdit and other notices: nothing to decide.
      return parsed({ ...base, tool: name, kind: 'other', inert: true, canAsk: false }, true);
  }
}

// ---- shared ----

/** `mcp__server__tool` (Claude Code, Codex, Copilot) → server and tool. */
function mcpName(tool: string): { server: string; tool: string } | undefined {
  const found = /^mcp__(.+?)__(.+)$/.exec(tool);
  return found ? { server: found[1], tool: found[2] } : undefined;
}

function withCwd(call: NativeCall, event: Json, keepCallCwd = false): ParsedEvent {
  const cwd = str(event.cwd);
  return { call: keepCallCwd ? call : { ...call, ...(cwd ? { cwd } : {}) }, ...(cwd ? { cwd } : {}) };
}

function joinCwd(cwd: string | undefined, dir: string): string {
  return cwd && !dir.startsWith('/') ? `${cwd.replace(/\/$/, '')}/${dir}` : dir;
}

/** A search's folder (or the working folder); a glob's fixed beginning is its folder. */
function searchPaths(input: Json, keys: readonly string[]): string[] {
  for (const key of keys) {
    const value = str(input[key]);
    if (value) return [value.replace(/[*?[{].*$/, '') || '.'];
  }
  return ['.'];
}

function pathOf(input: Json, keys: readonly string[]): string {
  for (const key of keys) {
    const value = str(input[key]);
    if (value) return value;
  }
  throw new HookEventError(`the tool's input names no file (${keys.join(' / ')})`);
}

function urlsIn(text: string): string[] {
  return text.match(/https?:\/\/[^\s"'<>)]+/g) ?? [];
}

function stringList(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function requiredString(object: Json, key: string): string {
  const value = object[key];
  if (typeof value !== 'string') throw new HookEventError(`the hook event has no ${key} string`);
  return value;
}

function objectField(object: Json, key: string): Json {
  const value = object[key];
  if (value === undefined) return {};
  if (!isObject(value)) throw new HookEventError(`the hook event's ${key} is not an object`);
  return value;
}

function str(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function isObject(value: unknown): value is Json {
  return !!value && typeof value === 'object' && !Array.isArray(value);
}
