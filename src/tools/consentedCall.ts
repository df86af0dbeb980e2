import { contextCaller, type ToolCaller } from './caller';
import { obtainConsent, type ConsentPlan } from './consent';
import type { ToolExecuteOptions } from './interface';
import type { ToolContext } from './types';

/** A call checked and planned: its arguments as the schema reads them, and what consent it needs. */
export interface PlannedCall {
  args: Record<string, unknown>;
  plan: ConsentPlan;
}

/**
 * The one consent sequence of every tool, builtin or from outside: plan the call, ask its caller
 * (or the context's confirm for a library user without one), check Stop, then run it with the
 * caller that decided. A tool supplies only how it plans and how it runs.
 */
export async function runConsented<T>(
  ctx: ToolContext,
  options: ToolExecuteOptions,
  plan: (signal?: AbortSignal) => Promise<PlannedCall>,
  run: (call: PlannedCall, caller: ToolCaller) => Promise<T>,
): Promise<T> {
  const { signal } = options;
  signal?.throwIfAborted();
  const planned = await plan(signal);
  const caller = options.caller ?? contextCaller(ctx);
  await obtainConsent(planned.plan, ctx, { caller, args: planned.args, signal, pauseBudget: options.pauseBudget, approval: options.approval });
  signal?.throwIfAborted();
  return run(planned, caller);
}
