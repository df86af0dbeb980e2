import type { PolicyPart, Verdict } from '../tools/consent';
import { decideCall, type ConsentSource, type PolicyDecision } from '../tools/policyDecision';
import { locateRuleIn, type LocatedRule, type SettingsTexts } from './locatedRule';

/** One call as a caller names it: a tool and its arguments. */
export interface PolicyCall {
  tool: string;
  args: Record<string, unknown>;
}

/**
 * What the policy decides for one call, with why and where the deciding rule is written — the
 * answer `policy explain`, `policy test` and the Problems view show, and the one the registry
 * acts on (it is read from the same consent plan).
 */
export interface Decision extends Omit<PolicyDecision, 'rule' | 'parts'> {
  decision: Verdict;
  /** Why, one line per question asked (one line otherwise). */
  reasons: string[];
  rule: LocatedRule;
  /** `.vscode/settings.json:7`, the person's file and line, `built-in` or `the person's choice`. */
  where: string;
  parts?: (Omit<PolicyPart, 'rule'> & { rule: LocatedRule })[];
}

/** Decides `call` against the registry's consent plan; `files` locate the rule (without them a setting's rule has no line). */
export async function decide(registry: ConsentSource, files: SettingsTexts | undefined, call: PolicyCall): Promise<Decision> {
  const decided = await decideCall(registry, call.tool, call.args);
  const { rule, parts, ...rest } = decided;
  const locate = (r: typeof rule) => locateRuleIn(files, r);
  const located = locate(rule);
  const reasons = decided.questions ? decided.questions.map((q) => `${q.summary} (${q.reason})`) : [decided.reason];
  return {
    ...rest,
    decision: decided.verdict,
    reasons,
    rule: located,
    where: whereOf(located, files !== undefined),
    ...(parts && { parts: parts.map((part) => ({ ...part, rule: locate(part.rule) })) }),
  };
}

/**
 * Where a located rule is written, in the fewest words: a setting no file sets is its built-in
 * default; without the files to look in, a setting is named by itself.
 */
export function whereOf(rule: LocatedRule, filesRead: boolean): string {
  if (rule.file !== undefined && rule.line !== undefined) return `${rule.file}:${rule.line}`;
  if (rule.kind === 'choice') return "the person's choice";
  if (rule.kind === 'setting' && !filesRead) return rule.setting!;
  return 'built-in';
}
