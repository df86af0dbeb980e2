import * as assert from 'node:assert/strict';
import { AgentLoop } from '../../src/agent/agentLoop';
import { fitConversation } from '../../src/agent/contextBudget';
import { ContextPlanner } from '../../src/agent/contextPlanner';
import type { ModelLimits } from '../../src/providers/contextWindow';
import { estimateTokens } from '../../src/providers/tokens';
import type { ChatMessage, ChatProvider, ChatRequest, ProviderEvent } from '../../src/providers/types';
import type { ChatTool, ToolExecutor, ToolResult } from '../../src/tools/interface';

const echoSchema: ChatTool = { type: 'function', function: { name: 'echo', description: 'Echoes.', parameters: { type: 'object', properties: {} } } };

/** A ToolExecutor that is not a ToolRegistry: what the chat bundle's AgentLoop is given. */
class RecordingExecutor implements ToolExecutor {
  readonly calls: string[] = [];
  getEnabledSchemas(): ChatTool[] {
    return [echoSchema];
  }
  hasTool(name: string): boolean {
    return name === 'echo';
  }
  run(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    this.calls.push(`${name} ${JSON.stringify(args)}`);
    return Promise.resolve({ text: 'echoed', status: 'ok', durationMs: 0 });
  }
}

class ScriptedModel implements ChatProvider {
  readonly name = 'openai';
  readonly model = 'scripted';
  readonly requests: ChatRequest[] = [];
  constructor(private readonly replies: ProviderEvent[][]) {}
  limits(): Promise<ModelLimits> {
    return Promise.resolve({ contextTokens: 1000, maxOutputTokens: 100, source: 'service' });
  }
  async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
    this.requests.push({ ...request, messages: [...request.messages] });
    yield* this.replies.shift() ?? [{ type: 'text', text: 'done' }];
    yield { type: 'done', finishReason: 'stop' };
  }
}

describe('AgentLoop (the chat bundle’s Agent)', () => {
  it('needs a tool executor: without one it says so instead of building a registry', () => {
    const model = new ScriptedModel([]);
    assert.throws(() => new AgentLoop(model, {} as never), /needs options\.toolRegistry/);
  });

  it('offers and runs the tools of any ToolExecutor', async () => {
    const executor = new RecordingExecutor();
    const model = new ScriptedModel([[{ type: 'tool_call', call: { id: 'c1', name: 'echo', arguments: '{"x":1}' } }]]);
    const agent = new AgentLoop(model, { toolRegistry: executor, systemPrompt: 'Be brief.' });
    let done = '';
    for await (const event of agent.streamChat('go')) if (event.type === 'done') done = event.text;
    assert.equal(done, 'done');
    assert.deepEqual(executor.calls, ['echo {"x":1}']);
    assert.deepEqual(model.requests[0].tools, [echoSchema]);
    assert.equal(agent.history.filter((m) => m.role === 'tool').length, 1);
  });
});

describe('ContextPlanner counts a growing conversation once', () => {
  const provider = new ScriptedModel([]);
  const fullCount = (messages: ChatMessage[]) =>
    fitConversation(messages, { contextTokens: 1_000_000, reserveOutputTokens: 0, fixedTokens: 0 }, estimateTokens).tokens;

  it('gives the same count as counting the whole conversation, as it grows and when it is replaced', async () => {
    const planner = new ContextPlanner();
    const conversation: ChatMessage[] = [{ role: 'user', content: 'hello there' }];
    for (let i = 0; i < 30; i++) {
      const planned = await planner.plan(provider, undefined, [], conversation);
      assert.equal(planned.estimatedTokens, fullCount(conversation));
      assert.equal(planned.messages.length, conversation.length);
      assert.notEqual(planned.messages, conversation, 'the request gets a copy, not the conversation itself');
      conversation.push(i % 2 ? { role: 'user', content: 'more '.repeat(i) } : { role: 'assistant', content: 'reply '.repeat(i) });
    }
    const replaced: ChatMessage[] = [{ role: 'user', content: 'a new chat' }];
    assert.equal((await planner.plan(provider, undefined, [], replaced)).estimatedTokens, fullCount(replaced));
    conversation.splice(5, 3, { role: 'user', content: 'x'.repeat(400) });
    assert.equal((await planner.plan(provider, undefined, [], conversation)).estimatedTokens, fullCount(conversation));
  });
});
