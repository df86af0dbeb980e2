import { ToolArgumentError, validateArguments } from './arguments';
import { unasked, type ConsentPlan } from './consent';
import { runConsented } from './consentedCall';
import type { ChatTool, ExecutableTool, ToolExecuteOptions, ToolParameters } from './interface';
import { LIMITS } from './manifest';
import type { ExternalCatalogTool } from './toolCatalog';
import type { ToolSource } from './toolSource';
import type { ToolContext, ToolRisk } from './types';

/** The most text one call of an outside tool hands the model (the same cap as run_bash's output). */
export const EXTERNAL_OUTPUT_MAX_CHARS = LIMITS.bashOutputMaxChars;

export interface ExternalToolOptions {
  entry: ExternalCatalogTool;
  source: ToolSource;
  context: ToolContext;
  descriptionOverride?: string;
  /** Whether the person ticked "run without asking" for this tool; read at each call. */
  runsWithoutAsking: () => boolean;
}

/**
 * A tool of an MCP server or another extension, offered to the model under its sanitized name.
 * Each call is checked against the tool's schema, asks the person first (unless they ticked
 * "run without asking"), and goes to the source with the call's signal; what the source marks
 * as an error reaches the model as an error.
 */
export class ExternalTool implements ExecutableTool {
  readonly name: string;
  readonly description: string;
  readonly entry: ExternalCatalogTool;
  private readonly schema: ChatTool;

  constructor(private readonly options: ExternalToolOptions) {
    this.entry = options.entry;
    this.name = options.entry.modelName;
    this.description = options.descriptionOverride ?? options.entry.description;
    this.schema = Object.freeze({
      type: 'function',
      function: Object.freeze({ name: this.name, description: this.description, parameters: options.entry.parameters }),
    }) as ChatTool;
  }

  get risk(): ToolRisk {
    return this.entry.risk;
  }

  getSchema(): ChatTool {
    return this.schema;
  }

  /** Every call asks (`external`) unless the person ticked "run without asking"; nobody to ask: refused. */
  async consent(args: Record<string, unknown>): Promise<ConsentPlan> {
    checkExternalArguments(this.name, this.entry.parameters, args);
    const plan = unasked(this.name, undefined);
    if (this.options.runsWithoutAsking()) {
      plan.allowedByRule = 'run without asking';
      plan.allowedBy = { choice: `"run without asking" for ${this.entry.name}` };
      return plan;
    }
    const where = `${this.entry.source.kind === 'mcp' ? 'MCP server' : 'extension source'} "${this.entry.source.label}"`;
    plan.questions.push({
      reason: 'external',
      summary: `Run ${this.entry.toolName} from ${where}`,
      nobody:
        `${this.entry.name} comes from ${where} and asks before each call, but nobody can be asked here. ` +
        'Tick "run without asking" for it in the Toolbelt tools view to let it run.',
      declined: `The person declined to run ${this.entry.name}.`,
      rule: { builtin: 'tools from outside Toolbelt ask before each call' },
    });
    return plan;
  }

  execute(args: Record<string, unknown>, options: ToolExecuteOptions = {}): Promise<string> {
    return runConsented(
      this.options.context,
      options,
      async () => {
        const checked = checkExternalArguments(this.name, this.entry.parameters, args);
        return { args: checked, plan: await this.consent(checked) };
      },
      ({ args: checked }) => this.callSource(checked, options),
    );
  }

  private async callSource(checked: Record<string, unknown>, options: ToolExecuteOptions): Promise<string> {
    const { signal } = options;
    const result = await this.options.source.call(this.entry.toolName, checked, { signal });
    if (options.ran && this.options.source.containment) options.ran.containment = this.options.source.containment;
    const text = capOutput(typeof result?.text === 'string' ? result.text : '');
    if (result?.isError) throw new Error(text || `${this.entry.source.label} reported an error without a message.`);
    return text;
  }
}

/**
 * Checks arguments against an outside tool's schema as far as the builtins' checker understands
 * it (types, required, enums of top-level properties); properties it does not know pass through
 * unless the schema forbids them. A schema beyond the checker leaves the arguments to the source.
 */
export function checkExternalArguments(toolName: string, schema: ToolParameters, args: unknown): Record<string, unknown> {
  const input = args === undefined || args === null ? {} : args;
  if (typeof input !== 'object' || Array.isArray(input)) {
    throw new ToolArgumentError(`Invalid arguments for ${toolName}: expected a JSON object, got ${Array.isArray(input) ? 'an array' : typeof input}.`);
  }
  let checked: Record<string, unknown>;
  try {
    checked = validateArguments(toolName, schema, input);
  } catch (error) {
    if (error instanceof ToolArgumentError) throw error;
    return { ...(input as Record<string, unknown>) };
  }
  return schema.additionalProperties === false ? checked : { ...(input as Record<string, unknown>), ...checked };
}

function capOutput(text: string): string {
  if (text.length <= EXTERNAL_OUTPUT_MAX_CHARS) return text;
  return `${text.slice(0, EXTERNAL_OUTPUT_MAX_CHARS)}\n\n[Output truncated: the first ${EXTERNAL_OUTPUT_MAX_CHARS} of ${text.length} characters are shown.]`;
}
