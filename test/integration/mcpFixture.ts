import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';

/** The repository root, from out/test/integration/. */
const ROOT = path.resolve(__dirname, '..', '..', '..');
export const GOOD_SERVER = path.join(ROOT, 'test', 'fixtures', 'mcp', 'goodServer.js');

export interface ApprovalAsk {
  server: string;
  changed: boolean;
  detail: string;
}

/** Writes `.vscode/mcp.json` of the first workspace folder: one stdio server running the fixture under this Node, tagged on its command line. */
export async function writeMcpJson(server: string, tag: string, extraArgs: string[] = []): Promise<string> {
  const file = mcpJsonPath();
  await fs.mkdir(path.dirname(file), { recursive: true });
  const config = { servers: { [server]: { type: 'stdio', command: process.execPath, args: [GOOD_SERVER, `--tag=${tag}`, ...extraArgs] } } };
  await fs.writeFile(file, `// written by mcp.test.ts\n${JSON.stringify(config, null, 2)}\n`);
  return file;
}

export async function removeMcpJson(): Promise<void> {
  await fs.rm(mcpJsonPath(), { force: true });
}

function mcpJsonPath(): string {
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder) throw new Error('the suite needs a workspace folder');
  return path.join(folder.uri.fsPath, '.vscode', 'mcp.json');
}

/**
 * Pids of live processes whose command line holds `--tag=<tag>` (Linux /proc). The `nsenter` that
 * runs a server inside its own PID namespace (serverProcess.ts) is its wrapper, not a second server.
 */
export async function processesTagged(tag: string): Promise<number[]> {
  const pids: number[] = [];
  for (const entry of await fs.readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const argv = (await fs.readFile(`/proc/${entry}/cmdline`, 'utf8').catch(() => '')).split('\0');
    // The nsenter around a server in its PID namespace, and the sandbox's bwrap (outside, and its first
    // process inside), carry the server's command line too: count the server itself.
    if (argv.includes(`--tag=${tag}`) && path.basename(argv[0]) !== 'nsenter' && !argv[0].endsWith('bwrap')) pids.push(Number(entry));
  }
  return pids;
}

/** Scripts the answer to "Start server?" (test mode only) and returns what was asked so far. */
export async function answerApprovals(answer?: boolean): Promise<ApprovalAsk[]> {
  return (await vscode.commands.executeCommand<ApprovalAsk[]>('toolbelt.mcp.testing.approvals', answer === undefined ? {} : { answer })) ?? [];
}

export async function restoreApprovals(): Promise<void> {
  await vscode.commands.executeCommand('toolbelt.mcp.testing.approvals', { restore: true });
}
