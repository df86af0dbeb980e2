import type { ToolCaller } from '../../tools/caller';
import { callKey } from '../../tools/canonicalJson';
import type { ConsentPlan } from '../../tools/consent';
import type { ConfirmationReason } from '../../tools/types';

/**
 * The caller as it runs a call whose confirmation card the person allowed: each question of the
 * card's plan is answered yes once, as the person's; anything the card did not show (the call's
 * plan changed since) goes to the caller's own confirm.
 */
export function afterCard(caller: ToolCaller, card: ConsentPlan | undefined): ToolCaller {
  if (!card || card.questions.length === 0) return caller;
  const covered = new Set<ConfirmationReason>(card.questions.map((q) => q.reason));
  return {
    kind: caller.kind,
    chatId: caller.chatId,
    label: caller.label,
    get sessionContext() {
      return caller.sessionContext;
    },
    beforeChange: caller.beforeChange ? (targets) => caller.beforeChange!(targets) : undefined,
    confirm: async (request) => {
      if (request.tool === card.tool && covered.delete(request.reason)) {
        request.decidedBy = 'person';
        return true;
      }
      return caller.confirm ? caller.confirm(request) : false;
    },
  };
}

/** Plans shown on a card, waiting for the call VS Code makes once the person allowed it. */
export class PendingPlans {
  private readonly plans = new Map<string, { plan: ConsentPlan; at: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = 15 * 60_000,
    private readonly max = 200,
  ) {}

  remember(tool: string, input: unknown, plan: ConsentPlan): void {
    this.prune();
    if (this.plans.size >= this.max) this.plans.delete(this.plans.keys().next().value as string);
    this.plans.set(callKey(tool, input), { plan, at: this.now() });
  }

  /** The plan shown for this exact call, once. */
  take(tool: string, input: unknown): ConsentPlan | undefined {
    this.prune();
    const key = callKey(tool, input);
    const entry = this.plans.get(key);
    this.plans.delete(key);
    return entry?.plan;
  }

  private prune(): void {
    const oldest = this.now() - this.ttlMs;
    for (const [key, entry] of this.plans) if (entry.at < oldest) this.plans.delete(key);
  }
}
