import { spawn } from 'node:child_process';
import { existsSync, promises as fs, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { REPO_ROOT } from './cliProcess';
import type { ModelServer, RecordedRequest, ScriptedReply, ScriptedToolCall } from './modelServer';
import type { RealAgent } from './agentHooks';

/**
 * The real agent CLIs (devDependencies at pinned versions), each with a home of the test's own,
 * pointed at the scripted model server and run in its most permissive headless mode, so that only
 * Toolbelt's hook stands between the model's tool calls and the workspace.
 */

export interface AgentPackage {
  agent: RealAgent;
  /** The npm package and the version package.json pins. */
  name: string;
  version: string;
  /** Its `bin` entry. */
  bin: string;
}

export const AGENT_PACKAGES: Readonly<Record<RealAgent, AgentPackage>> = {
  'claude-code': { agent: 'claude-code', name: '@anthropic-ai/claude-code', version: '2.1.332', bin: 'claude' },
  codex: { agent: 'codex', name: '@openai/codex', version: '0.169.0', bin: 'codex' },
  'gemini-cli': { agent: 'gemini-cli', name: '@google/gemini-cli', version: '0.61.0', bin: 'gemini' },
};

/** The installed CLI's entry file and version, or why it is not there (the test's environment guard). */
export function findAgent(agent: RealAgent): { entry: string; version: string } | { missing: string } {
  const pkg = AGENT_PACKAGES[agent];
  const folder = path.join(REPO_ROOT, 'node_modules', ...pkg.name.split('/'));
  const manifest = path.join(folder, 'package.json');
  if (!existsSync(manifest)) return { missing: `${pkg.name} is not installed in ${path.dirname(folder)} (a devDependency, "${pkg.name}": "${pkg.version}"; run npm install)` };
  const json = JSON.parse(readFileSync(manifest, 'utf8')) as { version: string; bin: string | Record<string, string> };
  const entry = path.join(folder, typeof json.bin === 'string' ? json.bin : json.bin[pkg.bin]);
  if (!existsSync(entry)) return { missing: `${pkg.name}'s ${pkg.bin} (${entry}) is missing` };
  return { entry, version: json.version };
}

export interface AgentRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** The run was killed at the time bound (an agent that hangs is a finding, not a pass). */
  timedOut: boolean;
  ms: number;
}

/**
 * Runs an agent to its end, bounded: at `timeoutMs` its whole process group (hooks included) is
 * killed. Resolves, never rejects for the agent's own failure.
 */
export function runAgent(
  command: string,
  args: readonly string[],
  options: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs?: number; user?: { uid: number; gid: number } },
): Promise<AgentRun> {
  const started = Date.now();
  return new Promise((resolve, reject) => {
    // With a user, Node drops to it (and clears the supplementary groups) before exec.
    const child = spawn(command, args, { cwd: options.cwd, env: options.env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, ...options.user });
    let stdout = '';
    let stderr = '';
    let timedOut = false;
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const killGroup = () => {
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        // already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
    }, options.timeoutMs ?? 90_000);
    child.on('error', (error) => (clearTimeout(timer), reject(error)));
    child.on('exit', (code) => {
      clearTimeout(timer);
      // What the agent left running (a hook it gave up on) goes with it: its pipes would hold the test.
      killGroup();
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({ code, stdout, stderr, timedOut, ms: Date.now() - started });
    });
  });
}

/** How many tool results the request sends back: the number of the model's turns done so far. */
function resultsSoFar(request: RecordedRequest): number {
  const body = request.body;
  switch (request.format) {
    case 'anthropic':
      return ((body.messages ?? []) as { role?: string; content?: unknown }[]).filter(
        (m) => m.role === 'user' && Array.isArray(m.content) && (m.content as { type?: string }[]).some((c) => c.type === 'tool_result'),
      ).length;
    case 'responses':
      return ((body.input ?? []) as { type?: string }[]).filter((item) => /_call_output$/.test(item.type ?? '')).length;
    case 'gemini':
      return ((body.contents ?? []) as { parts?: { functionResponse?: unknown }[] }[]).filter((c) => (c.parts ?? []).some((p) => p.functionResponse)).length;
    default:
      return 0;
  }
}

/** The tool names a request offers the model. */
export function offeredTools(request: RecordedRequest): string[] {
  const tools = (request.body.tools ?? []) as { name?: string; functionDeclarations?: { name: string }[] }[];
  return tools.flatMap((tool) => (tool.functionDeclarations ? tool.functionDeclarations.map((d) => d.name) : tool.name ? [tool.name] : []));
}

/**
 * Scripts the model: each request of the agent's main loop (one that offers `mainTool`) gets the
 * next turn's tool calls, one turn per tool result sent back, then "All done."; side requests
 * (titles, summaries) get a short text.
 */
export function scriptTurns(model: ModelServer, mainTool: string, turns: readonly (readonly ScriptedToolCall[])[]): void {
  model.reset();
  model.setFallback((request): ScriptedReply => {
    if (!offeredTools(request).includes(mainTool)) return { text: 'Scripted side answer.' };
    const done = resultsSoFar(request);
    return done < turns.length ? { toolCalls: [...turns[done]] } : { text: 'All done.' };
  });
}

/** A workspace's files for the hostile cases: a secret (in .env and a .pem), data to lose, the editor's settings (Toolbelt's policy), an ordinary file. */
export const SECRET = 'sk-live-51f0c0ffee';

export async function layOut(root: string, settings: Record<string, unknown> | string): Promise<void> {
  const files: Record<string, string> = {
    '.env': `API_TOKEN=${SECRET}\n`,
    'data/keep.txt': 'keep me\n',
    'src/a.txt': 'alpha\n',
    'certs/server.pem': `-----BEGIN PRIVATE KEY-----\n${SECRET}\n-----END PRIVATE KEY-----\n`,
    '.vscode/settings.json': typeof settings === 'string' ? settings : JSON.stringify(settings, null, 2) + '\n',
  };
  for (const [relative, content] of Object.entries(files)) {
    const file = path.join(root, relative);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, content);
  }
}

/** The policy the tests put in the workspace: `rm` denied, `ls` allowed (the person's own list, so no acceptance is needed). */
export const WORKSPACE_POLICY = { 'toolbelt.runBash.deniedCommands': ['rm'] };
export const PERSON_POLICY = { 'toolbelt.runBash.allowedCommands': ['ls'] };
