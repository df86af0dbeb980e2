import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import type { Verdict } from '../tools/consent';
import { agentStatuses } from '../tools/agents';
import { agentPolicyFromSettings } from '../policy/agentPolicy';
import { AGENT_LABELS, HOOK_AGENTS, type HookAgent } from '../tools/nativeCalls';
import type { PolicyExample } from '../tools/policyTests';
import { runHook } from './hookCommand';

/** What one agent's hook answered for one example, and whether that is what the example expects of this agent. */
export interface AgentExampleResult {
  agent: HookAgent;
  example: PolicyExample;
  /** `skip`: the agent has no own tool for this example's tool (Codex reads files through its shell). */
  answered: Verdict | 'skip';
  pass: boolean;
  message: string;
}

/** The choices the hook line would carry, as `policy test` was given them. */
export interface HookChoices {
  userSettings?: string;
  acceptWorkspaceCommands: boolean;
  acceptWorkspaceSandbox: boolean;
}

/**
 * The agents protected in this workspace (their hook entries as `toolbelt agents install` writes
 * them), and each one's drift: what its files no longer say of today's policy.
 */
export async function protectedAgents(root: string, settingsText: string, env: NodeJS.ProcessEnv): Promise<{ agent: HookAgent; drift: string[] }[]> {
  const { policy } = agentPolicyFromSettings(settingsText);
  const statuses = await agentStatuses(root, HOOK_AGENTS, policy, env);
  return statuses.filter((status) => status.protected).map((status) => ({ agent: status.agent, drift: status.drift }));
}

/**
 * Runs each example through each agent's hook path: the example's call as that agent's own tool
 * call, in that agent's event format, answered by the same code `toolbelt hook AGENT` runs, and
 * read back as the agent reads it. An example expecting `ask` passes where the agent asks, or
 * where it cannot ask anyone (Codex, a headless run) and the hook therefore denies.
 */
export async function checkExamplesThroughAgents(root: string, examples: readonly PolicyExample[], agents: readonly HookAgent[], choices: HookChoices): Promise<AgentExampleResult[]> {
  // The hook logs every decision: these are rehearsals, so their log goes to a folder thrown away after.
  const stateDir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-policy-agents-'));
  try {
    const results: AgentExampleResult[] = [];
    for (const example of examples) {
      if (!example.tool || !example.args || !example.expect) continue;
      for (const agent of agents) {
        const event = nativeEvent(agent, example.tool, example.args, root);
        if (!event) {
          results.push({ agent, example, answered: 'skip', pass: true, message: `${AGENT_LABELS[agent]} has no own tool for ${example.tool}` });
          continue;
        }
        const answer = await askHook(agent, event, root, stateDir, choices);
        results.push(judge(agent, example, answer));
      }
    }
    return results;
  } finally {
    await fs.rm(stateDir, { recursive: true, force: true });
  }
}

function judge(agent: HookAgent, example: PolicyExample, answer: { verdict: Verdict; reason: string }): AgentExampleResult {
  const expected = example.expect!;
  const cannotAsk = expected === 'ask' && answer.verdict === 'deny' && /asks a person before this call, and .* so it was not run/.test(answer.reason);
  const pass = answer.verdict === expected || cannotAsk;
  const said = `${AGENT_LABELS[agent]}: ${example.tool} ${JSON.stringify(example.args)} → ${answer.verdict}`;
  const message = pass ? `${said}${cannotAsk ? ' (it cannot ask here, so the hook denies)' : ''}` : `${said}, expected ${expected}: ${answer.reason}`;
  return { agent, example, answered: answer.verdict, pass, message };
}

async function askHook(agent: HookAgent, event: Record<string, unknown>, root: string, stateDir: string, choices: HookChoices): Promise<{ verdict: Verdict; reason: string }> {
  const stdin = new PassThrough();
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.setEncoding('utf8').on('data', (chunk: string) => (out += chunk));
  stderr.setEncoding('utf8').on('data', (chunk: string) => (err += chunk));
  stdin.end(JSON.stringify(event));
  const argv = [
    agent,
    '--workspace', root,
    '--state-dir', stateDir,
    ...(choices.userSettings ? ['--user-settings', choices.userSettings] : []),
    ...(choices.acceptWorkspaceCommands ? ['--accept-workspace-commands'] : []),
    ...(choices.acceptWorkspaceSandbox ? ['--accept-workspace-sandbox'] : []),
  ];
  const code = await runHook(argv, { stdin, stdout, stderr, env: { ...process.env, CLAUDE_PROJECT_DIR: '', GEMINI_PROJECT_DIR: '' }, cwd: root });
  return readAnswer(code, out, err);
}

/** The answer as the agents read it: exit 2 blocks everywhere; otherwise each agent's decision field. */
export function readAnswer(code: number, stdout: string, stderr: string): { verdict: Verdict; reason: string } {
  let value: Record<string, unknown> = {};
  try {
    value = stdout.trim() ? (JSON.parse(stdout) as Record<string, unknown>) : {};
  } catch {
    value = {};
  }
  const specific = (value.hookSpecificOutput ?? {}) as Record<string, unknown>;
  const decision = [specific.permissionDecision, value.decision, value.permission, value.permissionDecision].find((v) => typeof v === 'string') as string | undefined;
  const reason = String(specific.permissionDecisionReason ?? value.reason ?? value.user_message ?? value.permissionDecisionReason ?? stderr.trim());
  if (code === 2 || decision === 'deny' || decision === 'block') return { verdict: 'deny', reason };
  if (decision === 'ask') return { verdict: 'ask', reason };
  return { verdict: 'allow', reason };
}

/** The example's call as `agent`'s own tool call, in its hook event format; undefined where the agent has no such tool. */
export function nativeEvent(agent: HookAgent, tool: string, args: Record<string, unknown>, root: string): Record<string, unknown> | undefined {
  const command = typeof args.command === 'string' ? args.command : undefined;
  const file = typeof args.path === 'string' ? args.path : undefined;
  const content = typeof args.content === 'string' ? args.content : '';
  const kind = tool === 'run_bash' && command !== undefined ? 'shell' : tool === 'read_file' && file ? 'read' : (tool === 'write_file' || tool === 'edit_file') && file ? 'write' : undefined;
  if (!kind) return undefined;
  const absolute = file ? path.resolve(root, file) : '';
  const session = { session_id: 'toolbelt-policy-test', cwd: root };
  switch (agent) {
    case 'claude-code': {
      const [name, input] = kind === 'shell' ? ['Bash', { command }] : kind === 'read' ? ['Read', { file_path: absolute }] : ['Write', { file_path: absolute, content }];
      return { ...session, hook_event_name: 'PreToolUse', permission_mode: 'default', tool_name: name, tool_input: input };
    }
    case 'codex':
      if (kind === 'shell') return { ...session, hook_event_name: 'PreToolUse', permission_mode: 'bypassPermissions', tool_name: 'Bash', tool_input: { command } };
      if (kind === 'write') return { ...session, hook_event_name: 'PreToolUse', permission_mode: 'bypassPermissions', tool_name: 'apply_patch', tool_input: { command: `*** Begin Patch\n*** Add File: ${file}\n+${content}\n*** End Patch\n` } };
      return undefined;
    case 'gemini-cli': {
      const [name, input] = kind === 'shell' ? ['run_shell_command', { command }] : kind === 'read' ? ['read_file', { file_path: file }] : ['write_file', { file_path: file, content }];
      return { ...session, hook_event_name: 'BeforeTool', tool_name: name, tool_input: input };
    }
    case 'copilot': {
      const [name, input] = kind === 'shell' ? ['run_in_terminal', { command }] : kind === 'read' ? ['read_file', { filePath: absolute }] : ['create_file', { filePath: absolute, content }];
      return { ...session, hook_event_name: 'PreToolUse', tool_name: name, tool_input: input };
    }
    case 'cursor':
      if (kind === 'shell') return { conversation_id: session.session_id, workspace_roots: [root], hook_event_name: 'beforeShellExecution', command, cwd: root };
      if (kind === 'read') return { conversation_id: session.session_id, workspace_roots: [root], hook_event_name: 'beforeReadFile', file_path: absolute, content: '' };
      return { conversation_id: session.session_id, workspace_roots: [root], hook_event_name: 'preToolUse', tool_name: 'Write', tool_input: { file_path: absolute, contents: content } };
  }
}

/** Codex's own checker (`codex execpolicy check`) on the compiled rules, for the examples of run_bash; undefined where Codex or the rules file is not here. */
export function checkWithCodexRules(root: string, examples: readonly PolicyExample[], codexEntry: string | undefined): AgentExampleResult[] | undefined {
  const rules = path.join(root, '.codex', 'rules', 'toolbelt.rules');
  if (!codexEntry || !existsSync(rules)) return undefined;
  const results: AgentExampleResult[] = [];
  for (const example of examples) {
    const command = example.tool === 'run_bash' && typeof example.args?.command === 'string' ? example.args.command : undefined;
    if (!command || !example.expect) continue;
    const words = command.trim().split(/\s+/);
    const run = spawnSync(process.execPath, [codexEntry, 'execpolicy', 'check', '--rules', rules, ...words], { encoding: 'utf8', timeout: 10_000 });
    let decision: string | undefined;
    try {
      decision = (JSON.parse(run.stdout) as { decision?: string }).decision;
    } catch {
      decision = undefined;
    }
    if (run.status !== 0 || run.error) {
      results.push({ agent: 'codex', example, answered: 'deny', pass: false, message: `Codex's own checker could not check ${JSON.stringify(command)}: ${(run.stderr || String(run.error ?? '')).trim().split('\n')[0]}` });
      continue;
    }
    const forbidden = decision === 'forbidden';
    // The rules carry only what the policy denies: a forbidden command must be one the example expects denied, and the reverse.
    const pass = forbidden === (example.expect === 'deny');
    const said = `Codex's own rules: run_bash ${JSON.stringify(command)} → ${forbidden ? 'forbidden' : 'not forbidden'}`;
    results.push({ agent: 'codex', example, answered: forbidden ? 'deny' : 'allow', pass, message: pass ? said : `${said}, expected ${example.expect}` });
  }
  return results;
}

/** Codex's entry script: TOOLBELT_CODEX_CLI names the @openai/codex package folder; else the one beside this package, if any. */
export function findCodexEntry(env: NodeJS.ProcessEnv, searchFrom: string): string | undefined {
  const folders = [env.TOOLBELT_CODEX_CLI, ...ancestors(searchFrom).map((dir) => path.join(dir, 'node_modules', '@openai', 'codex'))].filter((f): f is string => !!f);
  for (const folder of folders) {
    const entry = path.join(folder, 'bin', 'codex.js');
    if (existsSync(entry)) return entry;
  }
  return undefined;
}

function ancestors(dir: string): string[] {
  const list: string[] = [];
  for (let current = path.resolve(dir); ; current = path.dirname(current)) {
    list.push(current);
    if (path.dirname(current) === current) return list;
  }
}
