import { validateArguments } from './arguments';
import type { ToolCaller } from './caller';
import { unasked, type ConsentPlan } from './consent';
import { runConsented } from './consentedCall';
import type { ChatTool, ExecutableTool, ToolExecuteOptions } from './interface';
import { LIMITS } from './manifest';
import type { ToolContext, ToolDefinition, ToolRisk } from './types';

/** What a builtin's run gets beside its arguments: the call's Stop, its caller, and what consent worked out. */
export interface ToolCall<Prepared = unknown> {
  signal?: AbortSignal;
  caller: ToolCaller;
  plan: ConsentPlan<Prepared>;
  /** How the call ran, for the result and the call log (ToolExecuteOptions.ran). */
  ran?: { containment?: string };
}

/**
 * Whether a call needs a person, worked out from its arguments and the workspace alone (it
 * resolves paths and reads settings, but asks nobody and changes nothing). Throws for a call
 * that cannot run (a path outside the workspace, a file that is not there).
 */
export type ToolConsent<Prepared = unknown> = (args: Record<string, unknown>, ctx: ToolContext, signal?: AbortSignal) => Promise<ConsentPlan<Prepared>>;

/** How a builtin runs once its consent is given: arguments already checked against its schema. */
export type ToolHandler<Prepared = unknown> = (args: Record<string, unknown>, ctx: ToolContext, call: ToolCall<Prepared>) => Promise<string>;

/** A builtin's implementation: its consent function (none: it never asks) and its run. */
export interface BuiltinImplementation {
  consent?: ToolConsent;
  run: ToolHandler;
}

/** Pairs a consent function with the run that uses what it prepared. */
export function builtin<Prepared>(consent: ToolConsent<Prepared>, run: ToolHandler<Prepared>): BuiltinImplementation {
  return { consent, run } as BuiltinImplementation;
}

/** A manifest entry bound to its implementation and the workspace it works in. */
export class BuiltinTool implements ExecutableTool {
  readonly name: string;
  readonly description: string;
  private readonly schema: ChatTool;

  constructor(
    readonly definition: ToolDefinition,
    private readonly implementation: BuiltinImplementation,
    private readonly context: ToolContext,
    descriptionOverride?: string,
  ) {
    this.name = definition.name;
    this.description = descriptionOverride ?? definition.description;
    this.schema = Object.freeze({
      type: 'function',
      function: Object.freeze({ name: definition.name, description: this.description, parameters: definition.parameters }),
    }) as ChatTool;
  }

  get risk(): ToolRisk {
    return this.definition.risk;
  }

  get contentArguments(): readonly string[] | undefined {
    return this.definition.contentArguments;
  }

  getSchema(): ChatTool {
    return this.schema;
  }

  /** What this call would need: refused, questions for a person, or nothing. Throws for arguments or paths that cannot work. */
  async consent(args: Record<string, unknown>, options: Pick<ToolExecuteOptions, 'signal'> = {}): Promise<ConsentPlan> {
    const checked = validateArguments(this.name, this.definition.parameters, args);
    return this.plan(checked, options.signal);
  }

  execute(args: Record<string, unknown>, options: ToolExecuteOptions = {}): Promise<string> {
    return runConsented(
      this.context,
      options,
      async (signal) => {
        const checked = validateArguments(this.name, this.definition.parameters, args);
        return { args: checked, plan: await this.plan(checked, signal) };
      },
      ({ args: checked, plan }, caller) => this.implementation.run(checked, this.context, { signal: options.signal, caller, plan, ...(options.ran && { ran: options.ran }) }),
    );
  }

  /** A tool with a `timeoutSeconds` parameter (run_bash) gets that long, plus time to stop and report. */
  budgetMs(args: Record<string, unknown>): number | undefined {
    const timeout = this.definition.parameters.properties.timeoutSeconds;
    if (!timeout) return undefined;
    const asked = Number(args.timeoutSeconds ?? LIMITS.bashDefaultTimeoutSeconds);
    const max = typeof timeout.maximum === 'number' ? timeout.maximum : LIMITS.bashMaxTimeoutSeconds;
    const seconds = Number.isFinite(asked) && asked > 0 ? Math.min(asked, max) : LIMITS.bashDefaultTimeoutSeconds;
    return seconds * 1000 + STOP_ALLOWANCE_MS;
  }

  private plan(args: Record<string, unknown>, signal?: AbortSignal): Promise<ConsentPlan> {
    const consent = this.implementation.consent;
    return consent ? consent(args, this.context, signal) : Promise.resolve(unasked(this.name, undefined));
  }
}

/** Time a tool with its own timeout gets beyond it: killing a process tree and reporting takes a few seconds. */
const STOP_ALLOWANCE_MS = 5000;
