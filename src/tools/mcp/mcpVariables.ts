import { constants, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isInside } from '../pathChecks';
import { parseDotenv } from './dotenv';
import { USER_SETTINGS_ORIGIN, type McpInputDefinition, type McpServerConfig } from './mcpConfig';

/** What `${…}` variables in a server definition resolve against. */
export interface McpVariableContext {
  /** `${workspaceFolder}`; also where a relative `envFile` and `cwd` are found, and where an `envFile` must be. */
  workspaceFolder?: string;
  /** The folder of the person's own settings: a server defined there (USER_SETTINGS_ORIGIN) may keep its `envFile` in it too. */
  personalFolder?: string;
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

/** An environment file larger than this is refused, not read. */
const MAX_ENV_FILE_BYTES = 1024 * 1024;

const VARIABLE = /\$\{([^}]*)\}/g;

/** Replaces every variable except `${input:…}`, which stays as written. */
export function substituteStatic(value: string, context: McpVariableContext, where: string): string {
  return value.replace(VARIABLE, (whole, name: string) => {
    if (name.startsWith('input:')) return whole;
    return staticVariable(name, context, where) ?? whole;
  });
}

/**
 * The text of a stdio server's `envFile` (undefined when it has none). The file must be inside the
 * workspace, or, for a server the person defined in their own settings, inside their settings
 * folder (links resolved): a workspace's definition must not carry `~/.aws/credentials` into a
 * server's environment. A file elsewhere, or one that cannot be read, is an error naming it.
 */
export async function readEnvFileText(server: McpServerConfig, context: McpVariableContext): Promise<string | undefined> {
  if (server.type !== 'stdio' || !server.envFile) return undefined;
  const where = `MCP server "${server.name}"`;
  const file = inWorkspace(substituteStatic(server.envFile, context, where), context);
  const folders = [context.workspaceFolder, ...(server.origin === USER_SETTINGS_ORIGIN ? [context.personalFolder] : [])].filter((f): f is string => f !== undefined);
  const allowed = server.origin === USER_SETTINGS_ORIGIN ? 'the workspace or the folder of your settings' : 'the workspace';
  try {
    const real = await fs.realpath(file);
    const realFolders = await Promise.all(folders.map((folder) => fs.realpath(folder).catch(() => undefined)));
    if (!realFolders.some((folder) => folder !== undefined && isInside(folder, real))) {
      throw new Error(`${where}: "envFile" ${file} is outside ${allowed}; it was not read. Keep the server's environment file in ${allowed}.`);
    }
    // Non-blocking: a FIFO named as the file must not hold the start up.
    const handle = await fs.open(real, constants.O_RDONLY | (constants.O_NONBLOCK ?? 0));
    try {
      // What was opened must be what was checked: a link swapped in meanwhile is refused.
      const again = await fs.realpath(file);
      const [opened, named] = await Promise.all([handle.stat(), fs.stat(again)]);
      if (again !== real || opened.dev !== named.dev || opened.ino !== named.ino) throw new Error(`${where}: "envFile" ${file} changed while it was read; it was not used.`);
      if (!opened.isFile()) throw new Error(`${where}: "envFile" ${file} is not a file.`);
      if (opened.size > MAX_ENV_FILE_BYTES) throw new Error(`${where}: "envFile" ${file} is ${opened.size} bytes; an environment file of up to ${MAX_ENV_FILE_BYTES} bytes is read.`);
      return await handle.readFile('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (!(error as NodeJS.ErrnoException).code) throw error;
    throw new Error(`${where}: cannot read "envFile" ${file}: ${(error as NodeJS.ErrnoException).code}.`);
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
