import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

/** A server Toolbelt starts as a child process and talks to over stdin/stdout. */
export interface McpStdioServerConfig {
  readonly name: string;
  readonly type: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** `null` removes a variable the process would otherwise inherit. */
  readonly env: Readonly<Record<string, string | null>>;
  /** A dotenv file, relative to the workspace folder; `env` wins over it. */
  readonly envFile?: string;
  readonly cwd?: string;
  /** Where it was defined: `.vscode/mcp.json`, `user settings`. */
  readonly origin: string;
}

/** A server reached over HTTP: streamable HTTP (`http`, falling back to SSE) or the older `sse`. */
export interface McpHttpServerConfig {
  readonly name: string;
  readonly type: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly origin: string;
}

export type McpServerConfig = McpStdioServerConfig | McpHttpServerConfig;

/** A value the person types once (an API key); `${input:id}` refers to it. */
export interface McpInputDefinition {
  readonly id: string;
  readonly type: 'promptString';
  readonly description: string;
  readonly password: boolean;
}

export interface McpConfigResult {
  servers: McpServerConfig[];
  inputs: McpInputDefinition[];
  /** One readable message per bad entry (naming the server and the field); the other servers still load. */
  errors: string[];
}

export const MCP_JSON_ORIGIN = '.vscode/mcp.json';
export const USER_SETTINGS_ORIGIN = 'user settings';

const INPUT_REFERENCE = /\$\{input:([^}]*)\}/g;

/** Parses the text of `.vscode/mcp.json` (JSONC: comments and trailing commas allowed). */
export function parseMcpJson(text: string, origin: string = MCP_JSON_ORIGIN): McpConfigResult {
  if (text.trim() === '') return { servers: [], inputs: [], errors: [] };
  const parseErrors: ParseError[] = [];
  const root: unknown = parse(text, parseErrors, { allowTrailingComma: true, disallowComments: false });
  const errors = parseErrors.map((e) => `${origin}: ${printParseErrorCode(e.error)} at ${lineColumn(text, e.offset)}.`);
  if (!isPlainObject(root)) return { servers: [], inputs: [], errors: [...errors, `${origin}: the file must hold a JSON object with "servers".`] };
  const result = parseMcpServers(root.servers, origin, root.inputs);
  return { ...result, errors: [...errors, ...result.errors] };
}

/**
 * Parses a `servers` map (the `servers` of mcp.json, or the `toolbelt.mcp.servers` setting) and
 * the optional `inputs` array its `${input:id}` references may use.
 */
export function parseMcpServers(servers: unknown, origin: string = USER_SETTINGS_ORIGIN, inputs?: unknown): McpConfigResult {
  const errors: string[] = [];
  const parsedInputs = parseInputs(inputs, origin, errors);
  const inputIds = new Set(parsedInputs.map((i) => i.id));
  const result: McpServerConfig[] = [];
  if (servers === undefined || servers === null) return { servers: result, inputs: parsedInputs, errors };
  if (!isPlainObject(servers)) {
    errors.push(`${origin}: "servers" must be an object mapping server names to definitions.`);
    return { servers: result, inputs: parsedInputs, errors };
  }
  for (const [name, entry] of Object.entries(servers)) {
    const where = `MCP server "${name}" (${origin})`;
    try {
      const server = parseServer(name, entry, origin, where);
      for (const id of inputReferences(server)) {
        if (!inputIds.has(id)) throw new Error(`${where}: refers to \${input:${id}}, which "inputs" does not declare.`);
      }
      result.push(server);
    } catch (error) {
      errors.push((error as Error).message);
    }
  }
  return { servers: result, inputs: parsedInputs, errors };
}

/** Every `${input:id}` a server's definition refers to, in order of first appearance. */
export function inputReferences(server: McpServerConfig): string[] {
  const ids = new Set<string>();
  for (const value of definitionStrings(server)) for (const match of value.matchAll(INPUT_REFERENCE)) ids.add(match[1]);
  return [...ids];
}

/** The strings of a definition that may hold variables. */
export function definitionStrings(server: McpServerConfig): string[] {
  if (server.type === 'stdio') {
    const env = Object.values(server.env).filter((v): v is string => v !== null);
    return [server.command, ...server.args, ...env, ...(server.envFile ? [server.envFile] : []), ...(server.cwd ? [server.cwd] : [])];
  }
  return [server.url, ...Object.values(server.headers)];
}

function parseServer(name: string, entry: unknown, origin: string, where: string): McpServerConfig {
  if (name.trim() === '') throw new Error(`MCP server "" (${origin}): a server needs a non-empty name.`);
  if (name.includes('/')) throw new Error(`${where}: the name may not contain "/" (tools are named "<server>/<tool>").`);
  if (!isPlainObject(entry)) throw new Error(`${where}: the definition must be an object.`);
  const type = entry.type ?? (entry.url !== undefined && entry.command === undefined ? 'http' : 'stdio');
  if (type === 'stdio') {
    if (entry.url !== undefined) throw new Error(`${where}: "url" belongs to "http" servers; a stdio server has "command".`);
    const command = entry.command;
    if (typeof command !== 'string' || command.trim() === '') throw new Error(`${where}: "command" must be a non-empty string.`);
    const args = entry.args ?? [];
    if (!Array.isArray(args) || !args.every((a) => typeof a === 'string')) throw new Error(`${where}: "args" must be an array of strings.`);
    const env = parseEnv(entry.env, where);
    const envFile = optionalString(entry.envFile, 'envFile', where);
    const cwd = optionalString(entry.cwd, 'cwd', where);
    return { name, type, command, args: [...args], env, origin, ...(envFile !== undefined && { envFile }), ...(cwd !== undefined && { cwd }) };
  }
  if (type === 'http' || type === 'sse') {
    if (entry.command !== undefined) throw new Error(`${where}: "command" belongs to stdio servers; an ${type} server has "url".`);
    const url = entry.url;
    if (typeof url !== 'string' || url.trim() === '') throw new Error(`${where}: "url" must be a non-empty string.`);
    if (!url.includes('${') && !/^https?:\/\//i.test(url)) throw new Error(`${where}: "url" must start with http:// or https://.`);
    const headers = parseStringMap(entry.headers, 'headers', where);
    return { name, type, url, headers, origin };
  }
  throw new Error(`${where}: "type" must be "stdio", "http" or "sse", not ${JSON.stringify(type)}.`);
}

function parseInputs(value: unknown, origin: string, errors: string[]): McpInputDefinition[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    errors.push(`${origin}: "inputs" must be an array.`);
    return [];
  }
  const inputs: McpInputDefinition[] = [];
  value.forEach((entry, index) => {
    const where = `${origin}: inputs[${index}]`;
    if (!isPlainObject(entry)) return errors.push(`${where} must be an object.`);
    const { id, type, description, password } = entry;
    if (typeof id !== 'string' || id === '') return errors.push(`${where}: "id" must be a non-empty string.`);
    if (type !== 'promptString') return errors.push(`${where} ("${id}"): "type" must be "promptString", not ${JSON.stringify(type)}.`);
    if (description !== undefined && typeof description !== 'string') return errors.push(`${where} ("${id}"): "description" must be a string.`);
    if (password !== undefined && typeof password !== 'boolean') return errors.push(`${where} ("${id}"): "password" must be true or false.`);
    if (inputs.some((i) => i.id === id)) return errors.push(`${where}: the id "${id}" is declared twice; the first stays.`);
    inputs.push({ id, type, description: description ?? id, password: password ?? false });
  });
  return inputs;
}

function parseEnv(value: unknown, where: string): Record<string, string | null> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw new Error(`${where}: "env" must be an object of variable names to strings.`);
  const env: Record<string, string | null> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v === 'string' || v === null) env[key] = v;
    else if (typeof v === 'number' || typeof v === 'boolean') env[key] = String(v);
    else throw new Error(`${where}: "env.${key}" must be a string, a number or null.`);
  }
  return env;
}

function parseStringMap(value: unknown, field: string, where: string): Record<string, string> {
  if (value === undefined || value === null) return {};
  if (!isPlainObject(value)) throw new Error(`${where}: "${field}" must be an object of strings.`);
  const map: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) {
    if (typeof v !== 'string') throw new Error(`${where}: "${field}.${key}" must be a string.`);
    map[key] = v;
  }
  return map;
}

function optionalString(value: unknown, field: string, where: string): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '') throw new Error(`${where}: "${field}" must be a non-empty string.`);
  return value;
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function lineColumn(text: string, offset: number): string {
  const before = text.slice(0, offset).split('\n');
  return `line ${before.length}, column ${before[before.length - 1].length + 1}`;
}
