import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ElicitRequestSchema, ToolListChangedNotificationSchema, type ElicitRequest, type ElicitResult } from '@modelcontextprotocol/sdk/types.js';

/** The repository's root, from the compiled tests (out/test/support) or the sources. */
export const REPO_ROOT = [path.resolve(__dirname, '..', '..', '..'), path.resolve(__dirname, '..', '..')].find((dir) => existsSync(path.join(dir, 'esbuild.js')))!;

/** dist/cli.js, built: the tests run the real bundle, as an agent would. */
export function builtCli(): string {
  const cli = path.join(REPO_ROOT, 'dist', 'cli.js');
  if (!existsSync(cli)) throw new Error(`${cli} is missing: run \`npm run build\` before these tests.`);
  return cli;
}

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface ProcessOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Written to its stdin, which is then closed (no stdin at all without it). */
  input?: string;
  timeoutMs?: number;
}

/** Runs a program to its end and keeps what it printed; killed, with what it printed so far in the error, past `timeoutMs` (30 s). */
export function runProcess(command: string, args: readonly string[], options: ProcessOptions = {}): Promise<CliResult> {
  const timeoutMs = options.timeoutMs ?? 30_000;
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd: options.cwd, env: options.env ?? process.env, stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] });
    if (options.input !== undefined) child.stdin!.end(options.input);
    let stdout = '';
    let stderr = '';
    child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${path.basename(command)} ${args.join(' ')} did not end within ${timeoutMs} ms.\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, timeoutMs);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** Runs `node dist/cli.js ...args` to its end. */
export function runCliProcess(args: readonly string[], options: Omit<ProcessOptions, 'input'> = {}): Promise<CliResult> {
  return runProcess(process.execPath, [builtCli(), ...args], options);
}

export interface McpConnection {
  client: Client;
  /** What the client was asked through elicitation, in order. */
  asked: ElicitRequest['params'][];
  /** How many `notifications/tools/list_changed` arrived. */
  listChanges(): number;
  /** The server's stderr so far. */
  stderr(): string;
  close(): Promise<void>;
}

export interface McpConnectOptions {
  /** The client's name (the log's caller). */
  name?: string;
  /** Declare elicitation and answer each question with this (default: no elicitation at all). */
  answer?: (params: ElicitRequest['params']) => ElicitResult;
  env?: NodeJS.ProcessEnv;
}

/** A real MCP SDK client connected to `node dist/cli.js mcp ...args` over stdio. */
export async function connectToolbeltMcp(args: readonly string[], options: McpConnectOptions = {}): Promise<McpConnection> {
  const transport = new StdioClientTransport({ command: process.execPath, args: [builtCli(), 'mcp', ...args], env: (options.env ?? process.env) as Record<string, string>, stderr: 'pipe' });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const client = new Client({ name: options.name ?? 'test-client', version: '1.0.0' }, { capabilities: options.answer ? { elicitation: { form: {} } } : {} });
  const asked: ElicitRequest['params'][] = [];
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => void changes++);
  if (options.answer) {
    const answer = options.answer;
    client.setRequestHandler(ElicitRequestSchema, (request) => {
      asked.push(request.params);
      return answer(request.params);
    });
  }
  await client.connect(transport);
  return { client, asked, listChanges: () => changes, stderr: () => stderr, close: () => client.close() };
}
