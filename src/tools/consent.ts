import type { ToolCaller } from './caller';
import { ToolRefusedError } from './toolErrors';
import type { ApprovedBy, ConfirmationReason, ConfirmationRequest, ToolContext } from './types';
import { assertUnchanged, type ResolvedPath } from './workspacePaths';

/**
 * One thing a call needs a person's say on: why, in one line, and what the person sees.
 * A tool's consent function (see ToolConsent) returns these; it never asks anything itself.
 */
export interface ConsentQuestion {
  reason: ConfirmationReason;
  /** One line a person can judge, e.g. `Delete src/old (recursive)`. */
  summary: string;
  /** Workspace-relative paths the call touches. */
  paths?: string[];
  /** For `command`: the simple commands no rule allows, each as written. */
  parts?: string[];
  /** For writes: the file and the content proposed. */
  proposed?: ConfirmationRequest['proposed'];
  /** For a command: how it will run (ConfirmationRequest.containment). */
  containment?: string;
  /** What the call is refused with when nobody can be asked (reasons that then refuse; see RUNS_UNASKED). */
  nobody?: string;
  /** What the call is refused with when the person says no. */
  declined: string;
  /** The rule that makes this call ask, and where it is written (for `toolbelt policy explain`). */
  rule?: PolicyRule;
}

/**
 * Where the rule that decided a call (or one part of it) is written: a setting and the entry of it
 * that matched, a choice of the person's (a toggle, a command-line flag), or a rule built into
 * Toolbelt. `toolbelt policy explain` turns a setting into its line in settings.json.
 */
export type PolicyRule = { setting: string; entry?: string } | { choice: string } | { builtin: string };

/** One simple command of a shell command, as the command rules judged it. */
export interface PolicyPart {
  /** The part as written. */
  text: string;
  verdict: Verdict;
  reason: string;
  rule?: PolicyRule;
}

/**
 * What one call needs before it runs, worked out from its arguments and the workspace's facts
 * alone: refused outright, questions for a person, or nothing. The same plan decides in the
 * registry, on VS Code's confirmation card, over MCP and in `toolbelt policy explain`.
 */
export interface ConsentPlan<Prepared = unknown> {
  tool: string;
  /** Refused whatever anyone says (a denied command, …): the message for the model. */
  refusal?: string;
  questions: ConsentQuestion[];
  /** What a rule let through without asking (a command allow rule, "run without asking"). */
  allowedByRule?: string;
  /** The rule behind `refusal`, and where it is written. */
  refusedBy?: PolicyRule;
  /** The rule behind `allowedByRule`, and where it is written. */
  allowedBy?: PolicyRule;
  /** For a shell command: each simple command with its own verdict and rule. */
  parts?: PolicyPart[];
  /** Paths the call changes: checked again after a person decided, and recorded for undo first. */
  changes: ResolvedPath[];
  /** What the tool worked out and runs with (resolved paths, the command's judgement, …). */
  prepared: Prepared;
}

/** The plan of a call that needs nobody: read-only tools, writes nothing protects. */
export function unasked<Prepared>(tool: string, prepared: Prepared, changes: ResolvedPath[] = []): ConsentPlan<Prepared> {
  return { tool, questions: [], changes, prepared };
}

export type Verdict = 'allow' | 'ask' | 'deny';

export function verdictOf(plan: Pick<ConsentPlan, 'refusal' | 'questions'>): Verdict {
  return plan.refusal !== undefined ? 'deny' : plan.questions.length > 0 ? 'ask' : 'allow';
}

/**
 * What a call asks for when nobody can be asked (a library context without `confirm`, an MCP
 * client without elicitation): destructive tools, commands, reviewed writes and unsandboxed
 * commands run — enabling the tool was the consent; protected paths, sensitive files and tools
 * from outside are refused.
 */
const RUNS_UNASKED: ReadonlySet<ConfirmationReason> = new Set(['destructive', 'command', 'write', 'unsandboxed']);

/** A call asked more than once is as approved as its least automatic answer: a refusal stays, a person outranks a rule. */
const RANK: Record<ApprovedBy, number> = { auto: 0, rule: 1, person: 2, refused: 3 };

export function recordApproval(slot: { by?: ApprovedBy } | undefined, by: ApprovedBy): void {
  if (slot && (slot.by === undefined || RANK[slot.by] <= RANK[by])) slot.by = by;
}

/** One call asking for its consent (see ToolExecuteOptions for `pauseBudget` and `approval`). */
export interface ConsentRun {
  caller: ToolCaller;
  args: Record<string, unknown>;
  signal?: AbortSignal;
  pauseBudget?: () => () => void;
  approval?: { by?: ApprovedBy };
}

/**
 * Asks the caller every question of the plan (the call's budget paused meanwhile), refuses what
 * the plan refuses or the person declines, checks that the paths did not change while a person
 * decided, then lets the caller record what will change. Throws ToolRefusedError.
 */
export async function obtainConsent(plan: ConsentPlan, ctx: ToolContext, run: ConsentRun): Promise<void> {
  const { caller, signal, approval } = run;
  if (plan.refusal !== undefined) {
    recordApproval(approval, 'refused');
    throw new ToolRefusedError(plan.refusal);
  }
  if (plan.allowedByRule !== undefined) recordApproval(approval, 'rule');
  let asked = false;
  for (const question of plan.questions) {
    if (!caller.confirm) {
      if (RUNS_UNASKED.has(question.reason)) continue;
      recordApproval(approval, 'refused');
      throw new ToolRefusedError(question.nobody ?? `${question.summary}: this needs a person's say, and none can be asked here. Nothing was done.`);
    }
    const request: ConfirmationRequest = { tool: plan.tool, reason: question.reason, summary: question.summary, args: run.args, signal };
    if (question.paths) request.paths = question.paths;
    if (question.parts) request.parts = question.parts;
    if (question.proposed) request.proposed = question.proposed;
    if (question.containment) request.containment = question.containment;
    const resume = run.pauseBudget?.();
    let allowed: boolean;
    try {
      allowed = await caller.confirm(request);
    } finally {
      resume?.();
    }
    signal?.throwIfAborted();
    recordApproval(approval, allowed ? (request.decidedBy ?? 'person') : 'refused');
    if (!allowed) throw new ToolRefusedError(question.declined);
    asked = true;
  }
  if (asked) await assertUnchanged(ctx, plan.changes, signal);
  if (plan.changes.length > 0 && caller.beforeChange) {
    // Without a person's approval, undo keeps no copy of a file that may hold secrets.
    const unapproved = asked ? {} : { unapproved: ctx.sensitiveGlobs ? { sensitiveGlobs: ctx.sensitiveGlobs } : {} };
    await caller.beforeChange(plan.changes.map(({ absolute, root, relative, display }) => ({ absolute, root, relative, display, ...unapproved })));
    signal?.throwIfAborted();
  }
}
