import * as assert from 'node:assert/strict';
import { Agent, type AgentEvent } from '../../src/agent/agent';
import type { ModelLimits } from '../../src/providers/contextWindow';
import type { ChatProvider, ChatRequest, ProviderEvent } from '../../src/providers/types';
import { ToolRegistry } from '../../src/tools/registry';
import { FakeTool } from '../support/fakeTools';

/** A model with a small window that answers from a script and records what it was sent. */
class SmallModel implements ChatProvider {
  readonly name = 'openai';
  readonly model = 'small';
  readonly requests: ChatRequest[] = [];
  reportedInputTokens: number | undefined;

  constructor(private readonly contextTokens: number, private readonly replies: ProviderEvent[][]) {}

  limits(): Promise<ModelLimits> {
    return Promise.resolve({ contextTokens: this.contextTokens, maxOutputTokens: 500, source: 'service' });
  }

  async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
    this.requests.push({ ...request, messages: [...request.messages] });
    const reply = this.replies.shift() ?? [{ type: 'text', text: 'ok' }];
    yield* reply;
    yield { type: 'done', finishReason: 'stop', usage: this.reportedInputTokens ? { inputTokens: this.reportedInputTokens } : undefined };
  }
}

async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const requestChars = (request: ChatRequest) => request.messages.reduce((n, m) => n + m.content.length, 0);

describe('Agent: every request fits the context window', () => {
  it('reports the context use of each request and keeps the whole history', async () => {
    const model = new SmallModel(100_000, []);
    const agent = new Agent(model, { toolRegistry: new ToolRegistry(), systemPrompt: 'Be brief.' });
    const events = await drain(agent.streamChat('hello'));
    const context = events.filter((e) => e.type === 'context');
    assert.equal(context.length, 1);
    const usage = (context[0] as Extract<AgentEvent, { type: 'context' }>).usage;
    assert.equal(usage.contextTokens, 100_000);
    assert.equal(usage.measured, 'estimate');
    assert.ok(usage.tokens > 0 && usage.tokens < 50);
    assert.equal(usage.droppedMessages, 0);
  });

  it('shortens old tool results and drops old turns in what it sends, never in the history', async () => {
    const registry = new ToolRegistry();
    registry.register(new FakeTool('dump', () => 'line of output\n'.repeat(3000)));
    const call = (id: string): ProviderEvent[] => [{ type: 'tool_call', call: { id, name: 'dump', arguments: '{}' } }];
    const model = new SmallModel(20_000, [call('a'), [{ type: 'text', text: 'Dumped.' }], call('b'), [{ type: 'text', text: 'Again.' }], call('c'), [{ type: 'text', text: 'Third.' }]]);
    const agent = new Agent(model, { toolRegistry: registry, systemPrompt: 'Be brief.' });
    await drain(agent.streamChat('dump it'));
    await drain(agent.streamChat('dump it again'));
    const last = await drain(agent.streamChat('and once more'));
    const history = agent.history;
    assert.equal(history.filter((m) => m.role === 'tool').every((m) => m.content.length === 45_000), true, 'the history keeps every result whole');
    const final = model.requests.at(-1)!;
    assert.ok(requestChars(final) / 4 < 20_000, `the last request fits: ${requestChars(final) / 4} tokens`);
    assert.ok(final.messages.some((m) => /cut to fit the model's context window/.test(m.content)) || final.messages.some((m) => /left out to fit/.test(m.content)), 'a marker says what was cut');
    assert.equal(final.messages.at(-1)!.role, 'tool', 'the current round is sent whole');
    assert.equal(final.messages.at(-1)!.content.length, 45_000);
    const usage = last.filter((e) => e.type === 'context').map((e) => (e as Extract<AgentEvent, { type: 'context' }>).usage);
    assert.ok(usage.some((u) => u.shortenedResults > 0 || u.droppedMessages > 0));
    assert.ok(usage.every((u) => u.tokens <= 20_000));
  });

  it('reports the service count after the request and calibrates later estimates by it', async () => {
    const model = new SmallModel(100_000, []);
    model.reportedInputTokens = 900;
    const agent = new Agent(model, { toolRegistry: new ToolRegistry(), systemPrompt: 'x'.repeat(2000) });
    const first = (await drain(agent.streamChat('hello'))).filter((e) => e.type === 'context').map((e) => (e as Extract<AgentEvent, { type: 'context' }>).usage);
    assert.deepEqual(first.map((u) => u.measured), ['estimate', 'reported']);
    assert.equal(first[1].tokens, 900);
    const second = (await drain(agent.streamChat('again'))).filter((e) => e.type === 'context').map((e) => (e as Extract<AgentEvent, { type: 'context' }>).usage);
    // About 510 estimated tokens were counted as 900 by the service: the next estimate is scaled up.
    assert.ok(second[0].tokens > 800, `calibrated estimate ${second[0].tokens}`);
  });
});
