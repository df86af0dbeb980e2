import { validateArguments } from './arguments';
import type { ApprovedBy, ChatTool, ExecutableTool, ToolExecuteOptions } from './interface';
import { LIMITS } from './manifest';
import type { ConfirmationRequest, ToolContext, ToolDefinition, ToolRisk } from './types';

/** How a builtin runs: arguments already checked against its schema. */
export type ToolHandler = (args: Record<string, unknown>, ctx: ToolContext, options: ToolExecuteOptions) => Promise<string>;

/** A manifest entry bound to its implementation and the workspace it works in. */
export class BuiltinTool implements ExecutableTool {
  readonly name: string;
  readonly description: string;
  private readonly schema: ChatTool;

  constructor(
    readonly definition: ToolDefinition,
    private readonly handler: ToolHandler,
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

  getSchema(): ChatTool {
    return this.schema;
  }

  async execute(args: Record<string, unknown>, options: ToolExecuteOptions = {}): Promise<string> {
    options.signal?.throwIfAborted();
    const checked = validateArguments(this.name, this.definition.parameters, args);
    return this.handler(checked, pausingWhileAsked(this.context, options), options);
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
}

/** Time a tool with its own timeout gets beyond it: killing a process tree and reporting takes a few seconds. */
const STOP_ALLOWANCE_MS = 5000;

/**
 * The context with `confirm` bound to this call: the call's budget pauses while a person
 * decides, and the call's approval slot records who decided.
 */
function pausingWhileAsked(context: ToolContext, options: ToolExecuteOptions): ToolContext {
  const { pauseBudget, approval } = options;
  if (!context.confirm || (!pauseBudget && !approval)) return context;
  const confirm = async (request: ConfirmationRequest): Promise<boolean> => {
    const resume = pauseBudget?.();
    try {
      const allowed = await context.confirm!(request);
      if (approval) approval.by = strongerOf(approval.by, allowed ? (request.decidedBy ?? 'person') : 'refused');
      return allowed;
    } finally {
      resume?.();
    }
  };
  return new Proxy(context, { get: (target, key) => (key === 'confirm' ? confirm : Reflect.get(target, key, target)) });
}

/** A call asked more than once is as approved as its least automatic answer: a refusal stays, a person outranks a rule. */
const RANK: Record<ApprovedBy, number> = { auto: 0, rule: 1, person: 2, refused: 3 };

function strongerOf(current: ApprovedBy | undefined, next: ApprovedBy): ApprovedBy {
  return current !== undefined && RANK[current] > RANK[next] ? current : next;
}
