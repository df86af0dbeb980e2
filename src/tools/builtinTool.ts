import { validateArguments } from './arguments';
import type { ChatTool, ExecutableTool, ToolExecuteOptions } from './interface';
import type { ToolContext, ToolDefinition, ToolRisk } from './types';

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
    return this.handler(checked, this.context, options);
  }
}
