import { UNREGISTERED_RULE } from '../tools/policyDecision';
import type { Decision } from '../policy';
import { checkPolicyExamples, POLICY_TESTS_SETTING, readPolicyExamples, type PolicyExample } from '../tools/policyTests';
import { terminalJson, terminalLine } from '../common/visibleText';
import { AGENT_LABELS as HOOK_AGENT_LABELS, decideNativeCall, type HookAgent, type NativeCall } from '../tools/nativeCalls';
import { agentStatuses } from '../tools/agentInstall';
import { agentPolicyFromSettings } from '../policy/agentPolicy';
import type { CliWorkspace } from './cliWorkspace';
import type { PersonChoices } from './personChoices';
import { readPolicy as readHookPolicy } from './hookCommand';
import { HookEventError, parseHookEvent } from './hookEvents';
import { WORKSPACE_SETTINGS } from './liveSettings';
import { locateRuleIn } from '../policy/locatedRule';
import { EXIT, UsageError } from './usage';

export interface Explanation extends Omit<Decision, 'decision' | 'reasons' | 'where'> {
  args: Record<string, unknown>;
  /** Set when the tool is switched off until the person enables it. */
  note?: string;
  /**
   * Set for another agent's own tool (VS Code's/Copilot's run_in_terminal, Claude Code's Bash…):
   * which agent's, and whether its calls go through `toolbelt hook` in this workspace. The verdict
   * is then the hook's, and it holds only where `governed` is `hook`.
   */
  native?: { agent: HookAgent; label: string; governed: 'hook' | 'not governed' };
}

export async function explainCall(workspace: CliWorkspace, tool: string, args: Record<string, unknown>): Promise<Explanation> {
  await workspace.ready();
  const decision = await workspace.decide(tool, args);
  const registered = workspace.manager.list().find((t) => t.name === tool || t.modelName === tool);
  // Not an active Toolbelt tool, but another agent's own (VS Code's run_in_terminal, Claude Code's Bash): Toolbelt does not refuse
  // that call, the agent runs it; what stands in its way is `toolbelt hook`, where it is installed. Say what the hook decides.
  if (!registered && decision.verdict === 'deny' && decision.rule.setting === UNREGISTERED_RULE.setting) {
    const native = await nativeExplanation(workspace, tool, args);
    if (native) return native;
  }
  const { decision: _verdict, reasons: _reasons, where: _where, ...rest } = decision;
  const explanation: Explanation = { ...rest, args };
  if (registered && !registered.enabledByDefault && registered.type === 'builtin') {
    explanation.note = `${registered.name} is off until the person switches it on (toolbelt mcp --enable ${registered.name}); this is what the rules decide once it is on.`;
  }
  return explanation;
}

/** The agents whose own tools `policy explain` knows, VS Code's first (its Chat is where a person meets them beside Toolbelt's). */
const NATIVE_ORDER: readonly HookAgent[] = ['copilot', 'claude-code', 'gemini-cli', 'codex', 'cursor'];

/** Each agent's hook event for one call of `tool`, as the agent sends it (hookEvents.ts reads it back). */
function nativeEvent(agent: HookAgent, root: string, tool: string, args: Record<string, unknown>): Record<string, unknown> {
  const common = { session_id: 'policy-explain', cwd: root, tool_name: tool, tool_input: args };
  if (agent === 'cursor') return { ...common, hook_event_name: 'preToolUse', workspace_roots: [root] };
  if (agent === 'gemini-cli') return { ...common, hook_event_name: 'BeforeTool' };
  return { ...common, hook_event_name: 'PreToolUse', ...(agent === 'claude-code' ? { permission_mode: 'default' } : {}) };
}

/**
 * What `toolbelt hook AGENT` decides for a call of another agent's own tool named `tool`, or
 * undefined when no agent has a tool of that name (then it is simply not an active tool here).
 */
async function nativeExplanation(workspace: CliWorkspace, tool: string, args: Record<string, unknown>): Promise<Explanation | undefined> {
  const root = workspace.root;
  for (const agent of NATIVE_ORDER) {
    let call: NativeCall | undefined;
    let malformed: string | undefined;
    try {
      call = parseHookEvent(agent, JSON.stringify(nativeEvent(agent, root, tool, args)), {}).call;
    } catch (error) {
      // The agent's own tool, with arguments it would not send: the hook fails closed on them.
      if (!(error instanceof HookEventError)) throw error;
      malformed = error.message;
    }
    if (call && call.kind === 'other' && !call.inert) continue;
    const label = HOOK_AGENT_LABELS[agent];
    const governed = (await hookInstalled(workspace, agent)) ? 'hook' : 'not governed';
    // Not the manifest (it would load into dist/hook.js, which imports this file): a Toolbelt tool of the same name is simply not active here.
    const toolbeltToo = ` (${tool} is no active Toolbelt tool here: this is ${label}'s own.)`;
    const where = governed === 'hook'
      ? `Governed by hook: ${label} runs \`toolbelt hook ${agent}\` before this tool in this workspace, and that is its answer.`
      : `Not governed: nothing of Toolbelt stands before ${label}'s ${tool} in this workspace, so the call runs as ${label} decides. This is what \`toolbelt hook ${agent}\` would answer once installed (toolbelt agents install ${agent}).`;
    const native = { agent, label, governed } as const;
    if (malformed !== undefined) {
      return { tool, verdict: 'deny', reason: `the hook cannot read this call (${malformed}), and it denies what it cannot read`, args, rule: { kind: 'builtin', text: 'built in (the hook fails closed)' }, note: `${where}${toolbeltToo}`, native };
    }
    let hookPolicy;
    try {
      hookPolicy = readHookPolicy(root, { userFile: workspace.settings.current.user?.path, acceptWorkspaceCommands: false, acceptWorkspaceSandbox: false, runWithoutAsking: new Set() });
    } catch (error) {
      return { tool, verdict: 'deny', reason: `${(error as Error).message}: the hook denies every call while it is so`, args, rule: { kind: 'builtin', text: 'built in (the hook fails closed)' }, note: `${where}${toolbeltToo}`, native };
    }
    const decision = decideNativeCall(call!, hookPolicy.policy);
    const explanation: Explanation = { tool, verdict: decision.verdict, reason: decision.reason, args, rule: locateRuleIn(hookPolicy.files, decision.rule), note: `${where}${toolbeltToo}`, native };
    if (decision.parts) explanation.parts = decision.parts.map((part) => ({ ...part, rule: locateRuleIn(hookPolicy.files, part.rule) }));
    return explanation;
  }
  return undefined;
}

/** Whether the agent's hook entry is in this workspace's files as `toolbelt agents install` writes it. */
async function hookInstalled(workspace: CliWorkspace, agent: HookAgent): Promise<boolean> {
  try {
    const { policy } = agentPolicyFromSettings(workspace.settings.current.workspace.text);
    const [status] = await agentStatuses(workspace.root, [agent], policy, {});
    return status.protected;
  } catch {
    return false;
  }
}

/** `toolbelt policy explain TOOL ARGS_JSON`: the decision, as text or one JSON object. */
export async function policyExplain(workspace: CliWorkspace, positionals: string[], json: boolean): Promise<{ output: string; code: number }> {
  const [tool, argsText, ...extra] = positionals;
  if (!tool) throw new UsageError('policy explain needs a tool name and its arguments as JSON, e.g. toolbelt policy explain run_bash \'{"command":"ls"}\'.');
  if (extra.length > 0) throw new UsageError(`policy explain takes a tool name and one JSON argument; got more: ${extra.join(' ')}`);
  const args = parseArgsJson(argsText ?? '{}');
  const explanation = await explainCall(workspace, tool, args);
  return { output: json ? `${terminalJson(explanation)}\n` : formatExplanation(explanation), code: EXIT.ok };
}

function parseArgsJson(text: string): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`ARGS_JSON is not JSON: ${(error as Error).message}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError('ARGS_JSON must be a JSON object of the call\'s arguments, e.g. {"path": "src/a.ts"}.');
  return value as Record<string, unknown>;
}

/** The decision as lines for a terminal; names, commands and settings entries in it are shown with their hidden characters escaped. */
export function formatExplanation(e: Explanation): string {
  // Another agent's own tool that no hook governs here runs whatever the hook would say: the first word must not read as Toolbelt's refusal.
  const head = e.native?.governed === 'not governed' ? `not governed (toolbelt hook ${e.native.agent} would ${e.verdict})` : e.verdict;
  const lines = [`${head}  ${terminalLine(e.tool)} ${terminalLine(JSON.stringify(e.args))}`, `  reason: ${terminalLine(e.reason)}`, `  where:  ${terminalLine(e.rule.text)}`];
  if (e.note) lines.push(`  note:   ${terminalLine(e.note)}`);
  if (e.parts?.length) {
    lines.push('  parts:');
    const texts = e.parts.map((p) => terminalLine(p.text));
    const width = Math.min(40, Math.max(...texts.map((text) => text.length)));
    e.parts.forEach((part, i) => lines.push(`    ${part.verdict.padEnd(5)}  ${texts[i].padEnd(width)}  ${terminalLine(part.reason)} — ${terminalLine(part.rule.text)}`));
  }
  return `${lines.join('\n')}\n`;
}

/** `policy test --agents`: the choices the hook lines would carry, and where to look for Codex's own checker. */
export interface AgentsOption {
  choices: PersonChoices;
  env: NodeJS.ProcessEnv;
}

/**
 * `toolbelt policy test`: checks every example of `toolbelt.policy.tests`; non-zero when one does
 * not match. With `agents`, each example also goes through each installed agent's hook path (and,
 * for Codex, through Codex's own checker on the compiled rules).
 */
export async function policyTest(workspace: CliWorkspace, agents?: AgentsOption): Promise<{ output: string; code: number }> {
  await workspace.ready();
  const file = workspace.settings.current.workspace;
  const read = readPolicyExamples(file.text);
  if (!read.found) return { output: `${WORKSPACE_SETTINGS} has no ${POLICY_TESTS_SETTING}: there is nothing to check.\n`, code: EXIT.failed };
  if (read.problem) return { output: `${WORKSPACE_SETTINGS}:${read.line}: ${terminalLine(read.problem)}\n`, code: EXIT.failed };
  const results = await checkPolicyExamples(read.examples, (tool, args) => workspace.decide(tool, args));
  const lines = results.map((r) => `${r.pass ? 'pass' : 'FAIL'}  ${WORKSPACE_SETTINGS}:${r.example.line}  ${terminalLine(r.message)}`);
  let failed = results.filter((r) => !r.pass).length;
  let total = results.length;
  if (agents) {
    const checked = await agentLines(workspace.root, file.text, read.examples, agents);
    lines.push(...checked.lines);
    failed += checked.failed;
    total += checked.total;
  }
  const what = agents ? 'check' : 'example';
  lines.push(`${total} ${what}${total === 1 ? '' : 's'}: ${total - failed} passed, ${failed} failed.`);
  return { output: `${lines.join('\n')}\n`, code: failed > 0 ? EXIT.failed : EXIT.ok };
}

async function agentLines(root: string, settingsText: string, examples: readonly PolicyExample[], option: AgentsOption): Promise<{ lines: string[]; failed: number; total: number }> {
  const { checkExamplesThroughAgents, checkWithCodexRules, findCodexEntry, protectedAgents } = await import('./policyAgents');
  const found = await protectedAgents(root, settingsText, option.env);
  if (found.length === 0) return { lines: ['FAIL  --agents: no agent is protected in this workspace (toolbelt agents install AGENT… writes their hooks).'], failed: 1, total: 1 };
  const agents = found.map((f) => f.agent);
  // An agent whose files no longer say what today's policy would have them say fails, whatever its hook answers.
  const drifted = found.filter((f) => f.drift.length > 0).map((f) => `FAIL  --agents: ${HOOK_AGENT_LABELS[f.agent]}'s files drifted from the policy (${terminalLine(f.drift.join('; '))}); run toolbelt agents install ${f.agent}.`);
  const { choices } = option;
  const results = [
    ...(await checkExamplesThroughAgents(root, examples, agents, { userSettings: choices.userSettingsFile, acceptWorkspaceCommands: choices.acceptWorkspaceCommands, acceptWorkspaceSandbox: choices.acceptWorkspaceSandbox ?? false })),
    ...((agents.includes('codex') ? checkWithCodexRules(root, examples, findCodexEntry(option.env, __dirname)) : undefined) ?? []),
  ];
  const counted = results.filter((r) => r.answered !== 'skip');
  return {
    lines: [...drifted, ...counted.map((r) => `${r.pass ? 'pass' : 'FAIL'}  ${WORKSPACE_SETTINGS}:${r.example.line}  ${terminalLine(r.message)}`)],
    failed: drifted.length + counted.filter((r) => !r.pass).length,
    total: drifted.length + counted.length,
  };
}
