import type { PolicyPart, PolicyRule, Verdict } from '../tools/consent';
import { AGENT_LABELS, type HookAgent, type NativeDecision, type NativePolicy } from '../tools/nativeCalls';
import { decideCall, UNREGISTERED_RULE, type ConsentSource, type PolicyDecision } from '../tools/policyDecision';
import { locateRuleIn, type LocatedRule, type SettingsTexts } from './locatedRule';
import { decideNativeTool, HOOK_FAILS_CLOSED, nativeToolCall, PolicyUnreadable } from './nativeTools';

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
  /** Set when the tool is another agent's own (Claude Code's Bash, VS Code's run_in_terminal): the answer is its hook's. */
  native?: { agent: HookAgent; label: string };
}

/**
 * Other agents' own tools, judged as `toolbelt hook` judges them: the workspace folder, and the
 * policy as the hook applies it (it throws PolicyUnreadable where the hook would deny every call).
 */
export interface NativeTools {
  root: string;
  policy(): NativePolicy;
}

/** Decides `call` against the registry's consent plan; `files` locate the rule (without them a setting's rule has no line). */
export async function decide(registry: ConsentSource, files: SettingsTexts | undefined, call: PolicyCall, native?: NativeTools): Promise<Decision> {
  const decided = await decideCall(registry, call.tool, call.args);
  const locate = (r: PolicyRule | undefined) => locateRuleIn(files, r);
  // Not an active Toolbelt tool, but another agent's own: the agent runs it, and what stands in its way is its hook.
  const found = native && decided.rule === UNREGISTERED_RULE ? nativeToolCall(native.root, call.tool, call.args) : undefined;
  if (native && found) {
    let answer: NativeDecision;
    try {
      answer = decideNativeTool(found, native.policy());
    } catch (error) {
      if (!(error instanceof PolicyUnreadable)) throw error;
      answer = { verdict: 'deny', reason: `${error.message}: the hook denies every call while it is so`, rule: HOOK_FAILS_CLOSED };
    }
    const located = locate(answer.rule);
    return {
      tool: call.tool,
      verdict: answer.verdict,
      reason: answer.reason,
      decision: answer.verdict,
      reasons: [answer.reason],
      rule: located,
      where: whereOf(located, files !== undefined),
      ...(answer.parts && { parts: answer.parts.map((part) => ({ ...part, rule: locate(part.rule) })) }),
      native: { agent: found.agent, label: AGENT_LABELS[found.agent] },
    };
  }
  const { rule, parts, ...rest } = decided;
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
