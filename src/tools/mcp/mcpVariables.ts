import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseDotenv } from './dotenv';
import type { McpInputDefinition, McpServerConfig } from './mcpConfig';

/** What `${…}` variables in a server definition resolve against. */
export interface McpVariableContext {
  /** `${workspaceFolder}`; also where a relative `envFile` and `cwd` are found. */
  workspaceFolder?: string;
  /** `${env:NAME}` and the environment a stdio server inherits; `process.env` when absent. */
  env?: Readonly<Record<string, string | undefined>>;
  /**
   * Gives the value of `${input:id}`: the VS Code side asks the person once and keeps it in
   * SecretStorage. `undefined` (the person cancelled) fails the start with a clear reason.
   */
  resolveInput?(input: McpInputDefinition): Promise<string | undefined>;
}

/** A definition with every variable replaced, ready to start. */
export type ResolvedMcpServer =
  | { type: 'stdio'; command: string; args: string[]; env: Record<string, string>; cwd?: string }
  | { type: 'http' | 'sse'; url: URL; headers: Record<string, string> };

const VARIABLE = /\$\{([^}]*)\}/g;

/** Replaces every variable except `${input:…}`, which stays as written. */
export function substituteStatic(value: string, context: McpVariableContext, where: string): string {
  return value.replace(VARIABLE, (whole, name: string) => {
    if (name.startsWith('input:')) return whole;
    return staticVariable(name, context, where) ?? whole;
  });
}

/** The text of a stdio server's `envFile` (undefined when it has none); a missing file is an error naming it. */
export async function readEnvFileText(server: McpServerConfig, context: McpVariableContext): Promise<string | undefined> {
  if (server.type !== 'stdio' || !server.envFile) return undefined;
  const where = `MCP server "${server.name}"`;
  const file = inWorkspace(substituteStatic(server.envFile, context, where), context);
  try {
    return await fs.readFile(file, 'utf8');
  } catch (error) {
    throw new Error(`${where}: cannot read "envFile" ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}.`);
  }
}

/**
 * Resolves a definition for starting: variables substituted (inputs asked through the context, each
 * once), `envFile` merged under `env`, the inherited environment added for stdio servers.
 */
export async function resolveMcpServer(
  server: McpServerConfig,
  inputs: readonly McpInputDefinition[],
  context: McpVariableContext,
  envFileText?: string,
): Promise<ResolvedMcpServer> {
  const where = `MCP server "${server.name}"`;
  const values = new Map<string, string>();
  const resolve = async (value: string): Promise<string> => {
    let result = substituteStatic(value, context, where);
    for (const match of [...result.matchAll(/\$\{input:([^}]*)\}/g)]) {
      const id = match[1];
      if (!values.has(id)) values.set(id, await inputValue(id, inputs, context, where));
    }
    result = result.replace(/\$\{input:([^}]*)\}/g, (_, id: string) => values.get(id) ?? '');
    return result;
  };
  if (server.type === 'stdio') {
    const inherited = context.env ?? process.env;
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(inherited)) if (value !== undefined) env[key] = value;
    if (envFileText !== undefined) Object.assign(env, parseDotenv(envFileText));
    for (const [key, value] of Object.entries(server.env)) {
      if (value === null) delete env[key];
      else env[key] = await resolve(value);
    }
    const args: string[] = [];
    for (const arg of server.args) args.push(await resolve(arg));
    const cwd = server.cwd ? inWorkspace(await resolve(server.cwd), context) : context.workspaceFolder;
    return { type: 'stdio', command: await resolve(server.command), args, env, ...(cwd !== undefined && { cwd }) };
  }
  const text = await resolve(server.url);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new Error(`${where}: "url" is not a valid URL after substitution.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`${where}: "url" must be http:// or https://.`);
  const headers: Record<string, string> = {};
  for (const [key, value] of Object.entries(server.headers)) headers[key] = await resolve(value);
  return { type: server.type, url, headers };
}

function staticVariable(name: string, context: McpVariableContext, where: string): string | undefined {
  if (name === 'workspaceFolder' || name === 'workspaceFolderBasename') {
    if (!context.workspaceFolder) throw new Error(`${where}: uses \${${name}}, but no workspace folder is open.`);
    return name === 'workspaceFolder' ? context.workspaceFolder : path.basename(context.workspaceFolder);
  }
  if (name === 'userHome') return os.homedir();
  if (name === 'pathSeparator' || name === '/') return path.sep;
  if (name.startsWith('env:')) return (context.env ?? process.env)[name.slice(4)] ?? '';
  return undefined;
}

async function inputValue(id: string, inputs: readonly McpInputDefinition[], context: McpVariableContext, where: string): Promise<string> {
  const input = inputs.find((i) => i.id === id);
  if (!input) throw new Error(`${where}: refers to \${input:${id}}, which "inputs" does not declare.`);
  if (!context.resolveInput) throw new Error(`${where}: needs the input "${id}", and nobody can be asked for it here.`);
  const value = await context.resolveInput(input);
  if (value === undefined) throw new Error(`${where}: no value was given for the input "${id}" (${input.description}).`);
  return value;
}

function inWorkspace(file: string, context: McpVariableContext): string {
  if (path.isAbsolute(file) || !context.workspaceFolder) return path.resolve(file);
  return path.resolve(context.workspaceFolder, file);
}
