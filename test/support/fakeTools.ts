import type { ChatTool, ExecutableTool, ToolExecuteOptions } from '../../src/tools/interface';

/** A hand-made tool for registry and agent tests: records its calls and answers as scripted. */
export class FakeTool implements ExecutableTool {
  readonly calls: Record<string, unknown>[] = [];

  constructor(
    readonly name: string,
    private readonly behaviour: (args: Record<string, unknown>, options?: ToolExecuteOptions) => Promise<string> | string = () => `${name} ran`,
    private readonly description = `The ${name} test tool`,
  ) {}

  getSchema(): ChatTool {
    return {
      type: 'function',
      function: {
        name: this.name,
        description: this.description,
        parameters: { type: 'object', properties: { value: { type: 'string' } }, required: [] },
      },
    };
  }

  async execute(args: Record<string, unknown>, options?: ToolExecuteOptions): Promise<string> {
    this.calls.push(args);
    return this.behaviour(args, options);
  }
}
