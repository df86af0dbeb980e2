import { verdictOf, type ConsentPlan, type PolicyPart, type PolicyRule, type Verdict } from './consent';
import { ToolRefusedError } from './toolErrors';
import type { ConfirmationReason } from './types';
import { PathRefusedError } from './workspacePaths';

/**
 * What the policy decides for one call, and why: the same answer the registry acts on (its
 * consent plan), put in words for `toolbelt policy explain`, `toolbelt policy test` and the
 * extension's diagnostics. Nothing runs and nobody is asked.
 */
export interface PolicyDecision {
  tool: string;
  verdict: Verdict;
  /** Why, in one line. */
  reason: string;
  /** The rule that decided: the refusal's, the first question's, or the one that let the call through. */
  rule?: PolicyRule;
  /** For a shell command: each simple command with its own verdict and rule. */
  parts?: PolicyPart[];
  /** For `ask`: every question the call would put to a person. */
  questions?: { reason: ConfirmationReason; summary: string; rule?: PolicyRule }[];
}

/** What decideCall needs of a registry: a call's consent plan, without running it (ToolRegistry.consent). */
export interface ConsentSource {
  hasTool(name: string): boolean;
  consent(name: string, args: Record<string, unknown>): Promise<ConsentPlan>;
}

export const PATH_GUARD_RULE: PolicyRule = { builtin: 'paths stay inside the workspace (no "..", no links that lead out)' };
export const UNUSABLE_CALL_RULE: PolicyRule = { builtin: 'a call whose arguments or paths cannot work is not run' };
export const UNREGISTERED_RULE = { setting: 'toolbelt.tools.registry' } as const satisfies PolicyRule;
const NOTHING_ASKS: PolicyRule = { builtin: 'a call no rule asks about runs' };

/** The decision for one call. A call that cannot run at all (missing tool, bad arguments, a path outside) is `deny`. */
export async function decideCall(registry: ConsentSource, tool: string, args: Record<string, unknown>): Promise<PolicyDecision> {
  if (!registry.hasTool(tool)) {
    return { tool, verdict: 'deny', reason: `"${tool}" is not an active tool of this workspace (toolbelt.tools.registry does not name it).`, rule: UNREGISTERED_RULE };
  }
  let plan: ConsentPlan;
  try {
    plan = await registry.consent(tool, args);
  } catch (error) {
    return refusedBeforePlan(tool, error);
  }
  const verdict = verdictOf(plan);
  const parts = plan.parts && plan.parts.length > 0 ? { parts: plan.parts.map((part) => ({ ...part })) } : {};
  if (verdict === 'deny') {
    return { tool, verdict, reason: plan.refusal ?? 'refused', ...(plan.refusedBy ? { rule: plan.refusedBy } : {}), ...parts };
  }
  if (verdict === 'ask') {
    const questions = plan.questions.map((q) => ({ reason: q.reason, summary: q.summary, ...(q.rule ? { rule: q.rule } : {}) }));
    const reason = questions.map((q) => `${q.summary} (${q.reason})`).join('; ');
    return { tool, verdict, reason, ...(questions[0].rule ? { rule: questions[0].rule } : {}), ...parts, questions };
  }
  const reason = plan.allowedByRule !== undefined ? `allowed by ${plan.allowedByRule}` : 'nothing in the rules asks about this call';
  return { tool, verdict, reason, rule: plan.allowedBy ?? NOTHING_ASKS, ...parts };
}

function refusedBeforePlan(tool: string, error: unknown): PolicyDecision {
  const message = error instanceof Error ? error.message : String(error);
  if (error instanceof PathRefusedError) return { tool, verdict: 'deny', reason: message, rule: PATH_GUARD_RULE };
  if (error instanceof ToolRefusedError) return { tool, verdict: 'deny', reason: message, rule: { builtin: 'a tool that is switched off does not run' } };
  return { tool, verdict: 'deny', reason: `the call cannot run: ${message}`, rule: UNUSABLE_CALL_RULE };
}

/** A rule in words: `toolbelt.runBash.deniedCommands "rm"`, `built-in: …`, `your choice: …`. */
export function describeRule(rule: PolicyRule | undefined): string {
  if (!rule) return 'built-in rule';
  if ('builtin' in rule) return `built-in rule: ${rule.builtin}`;
  if ('choice' in rule) return `the person's choice: ${rule.choice}`;
  return rule.entry !== undefined ? `${rule.setting} ${JSON.stringify(rule.entry)}` : rule.setting;
}
