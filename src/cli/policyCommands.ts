import type { Decision } from '../policy';
import { checkPolicyExamples, POLICY_TESTS_SETTING, readPolicyExamples, type PolicyExample } from '../tools/policyTests';
import { terminalJson, terminalLine } from '../common/visibleText';
import { AGENT_LABELS as HOOK_AGENT_LABELS, type HookAgent } from '../tools/nativeCalls';
import { agentStatuses } from '../tools/agents';
import { agentPolicyFromSettings } from '../policy/agentPolicy';
import type { CliWorkspace } from './cliWorkspace';
import type { PersonChoices } from './personChoices';
import { WORKSPACE_SETTINGS } from './liveSettings';
import { EXIT, UsageError } from './usage';

export interface Explanation extends Omit<Decision, 'decision' | 'reasons' | 'where' | 'native'> {
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
  // that call, the agent runs it; what stands in its way is `toolbelt hook`, where it is installed. The decision is the hook's.
  if (decision.native) return nativeExplanation(workspace, decision, decision.native, args);
  const { decision: _verdict, reasons: _reasons, where: _where, native: _native, ...rest } = decision;
  const explanation: Explanation = { ...rest, args };
  if (registered && !registered.enabledByDefault && registered.type === 'builtin') {
    explanation.note = `${registered.name} is off until the person switches it on (toolbelt mcp --enable ${registered.name}); this is what the rules decide once it is on.`;
  }
  return explanation;
}

/** What `toolbelt hook AGENT` decides for another agent's own tool, with whether that hook stands before it here. */
async function nativeExplanation(workspace: CliWorkspace, decision: Decision, { agent, label }: NonNullable<Decision['native']>, args: Record<string, unknown>): Promise<Explanation> {
  const { tool } = decision;
  const governed = (await hookInstalled(workspace, agent)) ? 'hook' : 'not governed';
  // Not the manifest (it would load into dist/hook.js, which imports this file): a Toolbelt tool of the same name is simply not active here.
  const toolbeltToo = ` (${tool} is no active Toolbelt tool here: this is ${label}'s own.)`;
  const where = governed === 'hook'
    ? `Governed by hook: ${label} runs \`toolbelt hook ${agent}\` before this tool in this workspace, and that is its answer.`
    : `Not governed: nothing of Toolbelt stands before ${label}'s ${tool} in this workspace, so the call runs as ${label} decides. This is what \`toolbelt hook ${agent}\` would answer once installed (toolbelt agents install ${agent}).`;
  const { decision: _verdict, reasons: _reasons, where: _where, native: _native, ...rest } = decision;
  return { ...rest, args, note: `${where}${toolbeltToo}`, native: { agent, label, governed } };
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
