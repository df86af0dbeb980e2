import type { PolicyPart, PolicyRule } from '../tools/consent';
import { describeRule, type PolicyDecision } from '../tools/policyDecision';
import { checkPolicyExamples, POLICY_TESTS_SETTING, readPolicyExamples } from '../tools/policyTests';
import { locateSetting } from '../tools/settingsLocations';
import { terminalJson, terminalLine } from '../common/visibleText';
import type { CliWorkspace } from './cliWorkspace';
import { WORKSPACE_SETTINGS } from './liveSettings';
import type { SettingsSnapshot } from './settingsFiles';
import { EXIT, UsageError } from './usage';

/** A rule with where it is written: `.vscode/settings.json:12`, the person's file, or built in. */
export interface LocatedRule {
  kind: 'setting' | 'builtin' | 'choice';
  /** `setting`: the setting's name, and the entry of it that matched. */
  setting?: string;
  entry?: string;
  /** `setting`: the file (as messages name it) and line that hold it, when a file does. */
  file?: string;
  line?: number;
  /** In words, with where it is. */
  text: string;
}

export interface Explanation extends Omit<PolicyDecision, 'rule' | 'parts'> {
  args: Record<string, unknown>;
  rule: LocatedRule;
  parts?: (Omit<PolicyPart, 'rule'> & { rule: LocatedRule })[];
  /** Set when the tool is switched off until the person enables it. */
  note?: string;
}

/** Where a rule is written: the workspace's settings first, then the person's file. */
export function locateRule(workspace: CliWorkspace, rule: PolicyRule | undefined): LocatedRule {
  return locateRuleIn(workspace.settings.current, rule);
}

/** locateRule over the settings files as read (`toolbelt hook` reads them without a CliWorkspace). */
export function locateRuleIn(files: Pick<SettingsSnapshot, 'workspace' | 'user'>, rule: PolicyRule | undefined): LocatedRule {
  const named = describeRule(rule);
  if (!rule || 'builtin' in rule) return { kind: 'builtin', text: named };
  if ('choice' in rule) return { kind: 'choice', text: named };
  const { workspace: settings, user } = files;
  for (const file of [settings, ...(user ? [user] : [])]) {
    const found = file.exists ? locateSetting(file.text, rule.setting, rule.entry) : undefined;
    if (found) return { kind: 'setting', setting: rule.setting, ...(rule.entry !== undefined ? { entry: rule.entry } : {}), file: file.label, line: found.line, text: `${file.label}:${found.line} (${named})` };
  }
  return { kind: 'setting', setting: rule.setting, ...(rule.entry !== undefined ? { entry: rule.entry } : {}), text: `${named} (the built-in default; no settings file sets it)` };
}

export async function explainCall(workspace: CliWorkspace, tool: string, args: Record<string, unknown>): Promise<Explanation> {
  await workspace.ready();
  const decision = await workspace.decide(tool, args);
  const registered = workspace.manager.list().find((t) => t.name === tool || t.modelName === tool);
  const { rule, parts, ...rest } = decision;
  const explanation: Explanation = { ...rest, args, rule: locateRule(workspace, rule) };
  if (parts) explanation.parts = parts.map((part) => ({ ...part, rule: locateRule(workspace, part.rule) }));
  if (registered && !registered.enabledByDefault && registered.type === 'builtin') {
    explanation.note = `${registered.name} is off until the person switches it on (toolbelt mcp --enable ${registered.name}); this is what the rules decide once it is on.`;
  }
  return explanation;
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
  const lines = [`${e.verdict}  ${terminalLine(e.tool)} ${terminalLine(JSON.stringify(e.args))}`, `  reason: ${terminalLine(e.reason)}`, `  where:  ${terminalLine(e.rule.text)}`];
  if (e.note) lines.push(`  note:   ${terminalLine(e.note)}`);
  if (e.parts?.length) {
    lines.push('  parts:');
    const texts = e.parts.map((p) => terminalLine(p.text));
    const width = Math.min(40, Math.max(...texts.map((text) => text.length)));
    e.parts.forEach((part, i) => lines.push(`    ${part.verdict.padEnd(5)}  ${texts[i].padEnd(width)}  ${terminalLine(part.reason)} — ${terminalLine(part.rule.text)}`));
  }
  return `${lines.join('\n')}\n`;
}

/** `toolbelt policy test`: checks every example of `toolbelt.policy.tests`; non-zero when one does not match. */
export async function policyTest(workspace: CliWorkspace): Promise<{ output: string; code: number }> {
  await workspace.ready();
  const file = workspace.settings.current.workspace;
  const read = readPolicyExamples(file.text);
  if (!read.found) return { output: `${WORKSPACE_SETTINGS} has no ${POLICY_TESTS_SETTING}: there is nothing to check.\n`, code: EXIT.failed };
  if (read.problem) return { output: `${WORKSPACE_SETTINGS}:${read.line}: ${terminalLine(read.problem)}\n`, code: EXIT.failed };
  const results = await checkPolicyExamples(read.examples, (tool, args) => workspace.decide(tool, args));
  const lines = results.map((r) => `${r.pass ? 'pass' : 'FAIL'}  ${WORKSPACE_SETTINGS}:${r.example.line}  ${terminalLine(r.message)}`);
  const failed = results.filter((r) => !r.pass).length;
  lines.push(`${results.length} example${results.length === 1 ? '' : 's'}: ${results.length - failed} passed, ${failed} failed.`);
  return { output: `${lines.join('\n')}\n`, code: failed > 0 ? EXIT.failed : EXIT.ok };
}
