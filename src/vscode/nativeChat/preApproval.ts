import { AsyncLocalStorage } from 'node:async_hooks';
import type { ConfirmationReason, ConfirmationRequest } from '../../tools/types';
import type { ConfirmationPlan } from './confirmationPlan';

type Confirmer = (request: ConfirmationRequest) => Promise<boolean>;

/** One call arriving from VS Code's tools API: what its confirmation card already covered. */
interface CallScope {
  tool: string;
  /** Reasons still answered by the card; each answers once. */
  covered: Set<ConfirmationReason>;
  /** Asks about anything the card did not cover. */
  fallback: Confirmer;
}

const scopes = new AsyncLocalStorage<CallScope>();

/**
 * Runs `work` (one registry call) so that the tool's own questions the card covered are answered
 * yes, as the person's, and everything else goes to `fallback`. The scope follows the call's
 * async chain only: the panel's calls running at the same time never see it.
 */
export function runPreApproved<T>(tool: string, plan: ConfirmationPlan | undefined, fallback: Confirmer, work: () => Promise<T>): Promise<T> {
  return scopes.run({ tool, covered: new Set(plan?.tool === tool ? plan.reasons : []), fallback }, work);
}

/**
 * The confirm hook for a call in a pre-approved scope, or undefined outside one (the workspace's
 * own confirmer then decides, as before).
 */
export function scopedConfirmer(): Confirmer | undefined {
  const scope = scopes.getStore();
  if (!scope) return undefined;
  return async (request) => {
    if (request.tool === scope.tool && scope.covered.delete(request.reason)) {
      request.decidedBy = 'person';
      return true;
    }
    return scope.fallback(request);
  };
}

/** Plans shown on a card, waiting for the call VS Code makes once the person allowed it. */
export class PendingPlans {
  private readonly plans = new Map<string, { plan: ConfirmationPlan; at: number }>();

  constructor(
    private readonly now: () => number = Date.now,
    private readonly ttlMs = 15 * 60_000,
    private readonly max = 200,
  ) {}

  remember(tool: string, input: unknown, plan: ConfirmationPlan): void {
    this.prune();
    if (this.plans.size >= this.max) this.plans.delete(this.plans.keys().next().value as string);
    this.plans.set(keyOf(tool, input), { plan, at: this.now() });
  }

  /** The plan shown for this exact call, once. */
  take(tool: string, input: unknown): ConfirmationPlan | undefined {
    this.prune();
    const key = keyOf(tool, input);
    const entry = this.plans.get(key);
    this.plans.delete(key);
    return entry?.plan;
  }

  private prune(): void {
    const oldest = this.now() - this.ttlMs;
    for (const [key, entry] of this.plans) if (entry.at < oldest) this.plans.delete(key);
  }
}

function keyOf(tool: string, input: unknown): string {
  return `${tool}\u0000${stableJson(input)}`;
}

function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value && typeof value === 'object') {
    const entries = Object.entries(value as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${stableJson(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
