import type { ToolCaller } from '../../tools/caller';
import type { ToolResult } from '../../tools/interface';
import { callKey } from '../../tools/canonicalJson';

interface Expectation {
  caller: ToolCaller;
  claimed: boolean;
  result?: ToolResult;
}

/**
 * The calls `@toolbelt` makes through `vscode.lm.invokeTool` (so VS Code shows each call and its
 * card in the chat), matched with the `toolbelt_*` tool that runs them: the tool learns who the
 * caller is, and the caller gets the registry's ToolResult back as data — status, duration, who
 * approved — instead of reading it out of the text. A call VS Code answered itself (the person
 * clicked Skip) never reaches the tool and has no result.
 */
export class ExpectedInvocations {
  private readonly waiting = new Map<string, Expectation[]>();

  /** Before invokeTool: returns the function that reads the call's result once invokeTool returned. */
  expect(tool: string, input: unknown, caller: ToolCaller): () => ToolResult | undefined {
    const key = callKey(tool, input);
    const expectation: Expectation = { caller, claimed: false };
    const queue = this.waiting.get(key) ?? [];
    queue.push(expectation);
    this.waiting.set(key, queue);
    return () => {
      this.drop(key, expectation);
      return expectation.result;
    };
  }

  /** In the tool: the oldest expectation for this exact call, with the way to hand back its result. */
  claim(tool: string, input: unknown): { caller: ToolCaller; settle(result: ToolResult): void } | undefined {
    const key = callKey(tool, input);
    const expectation = this.waiting.get(key)?.find((e) => !e.claimed);
    if (!expectation) return undefined;
    expectation.claimed = true;
    return { caller: expectation.caller, settle: (result) => (expectation.result = result) };
  }

  private drop(key: string, expectation: Expectation): void {
    const queue = this.waiting.get(key);
    if (!queue) return;
    const rest = queue.filter((e) => e !== expectation);
    if (rest.length > 0) this.waiting.set(key, rest);
    else this.waiting.delete(key);
  }
}
