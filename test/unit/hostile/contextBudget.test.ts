import * as assert from 'node:assert/strict';
import { encode } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { Agent, type AgentEvent } from '../../../src/agent/agent';
import { fitConversation } from '../../../src/agent/contextBudget';
import { ContextPlanner } from '../../../src/agent/contextPlanner';
import type { ModelLimits } from '../../../src/providers/contextWindow';
import { OllamaNativeProvider } from '../../../src/providers/ollamaNative';
import { OpenAIProvider } from '../../../src/providers/openai';
import { estimateTokens } from '../../../src/providers/tokens';
import type { ChatMessage, ChatProvider, ProviderEvent } from '../../../src/providers/types';
import { createDefaultToolRegistry } from '../../../src/tools/factory';
import { ToolRegistry } from '../../../src/tools/registry';
import { FakeTool } from '../../support/fakeTools';
import { ModelServer, type RecordedRequest } from '../../support/modelServer';
import { contextFor, TempWorkspace } from '../../support/workspace';

/**
 * Hostile conversations for the context budget: long chats (the planner's work must grow with
 * the number of messages, not its square) and current turns too big for the window (their own
 * tool results, thousands of calls, huge arguments, a huge question). Every request the Agent
 * sends is counted with a real tokenizer (o200k_base, GPT-4o's) against the model's window.
 */

const WINDOW = 32_768;

interface WireMessage {
  content?: string | null;
  tool_calls?: { function: { name: string; arguments: unknown } }[];
}

/** A request as sent (OpenAI or Ollama wire format), counted with o200k_base the way the planner counts. */
function tokenizerCount(request: RecordedRequest): number {
  const body = request.body as { messages: WireMessage[]; tools?: { function: unknown }[] };
  let tokens = 0;
  for (const message of body.messages) {
    tokens += 4 + encode(message.content ?? '').length;
    for (const call of message.tool_calls ?? []) {
      const args = typeof call.function.arguments === 'string' ? call.function.arguments : JSON.stringify(call.function.arguments);
      tokens += 8 + encode(call.function.name).length + encode(args).length;
    }
  }
  for (const tool of body.tools ?? []) tokens += 8 + encode(JSON.stringify(tool.function)).length;
  return tokens;
}

async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** Source-like text of about `chars` characters in lines of ~50. */
const sourceText = (chars: number, seed: string) => Array.from({ length: Math.ceil(chars / 50) }, (_, i) => `export const ${seed}${i} = compute(${i}, '${seed}'); // ${i % 7}`.padEnd(49, ' ')).join('\n').slice(0, chars);

describe('hostile: the context budget', function () {
  this.timeout(60_000);

  describe('planning a long chat is linear in its messages', () => {
    /** A conversation of `count` messages whose contents count every time they are read. */
    function counted(count: number): { messages: ChatMessage[]; reads: () => number } {
      let reads = 0;
      const messages: ChatMessage[] = [];
      for (let t = 0; messages.length < count - 1; t++) {
        messages.push({ role: 'user', content: `Question ${t}: what does file ${t} do?` });
        messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${t}`, name: 'read_file', arguments: `{"path":"f${t}.ts"}` }] });
        messages.push({ role: 'tool', toolCallId: `c${t}`, name: 'read_file', content: `export const v${t} = ${t};\n`.repeat(80) });
        messages.push({ role: 'assistant', content: `File ${t} exports one constant. `.repeat(4) });
      }
      messages.length = count - 1;
      messages.push({ role: 'user', content: 'And now?' });
      const watched = messages.map(
        (m) =>
          new Proxy(m, {
            get(target, key, receiver) {
              if (key === 'content' || key === 'toolCalls') reads++;
              return Reflect.get(target, key, receiver) as unknown;
            },
          }),
      );
      return { messages: watched, reads: () => reads };
    }

    const model: ChatProvider = {
      name: 'openai',
      model: 'm',
      limits: () => Promise.resolve<ModelLimits>({ contextTokens: 32_000, maxOutputTokens: 4096, source: 'service' }),
      // eslint-disable-next-line require-yield -- never asked to answer
      async *stream(): AsyncIterable<ProviderEvent> {
        throw new Error('not used');
      },
    };

    for (const size of [1000, 10_000]) {
      it(`${size.toLocaleString('en-US')} messages: each message is read a few times per request, not once per cut tried`, async () => {
        const { messages, reads } = counted(size);
        const planner = new ContextPlanner();
        const first = await planner.plan(model, { role: 'system', content: 'Be brief.' }, [], messages);
        assert.ok(first.usage.droppedMessages > size / 2, 'most of the chat had to go: many cuts were possible');
        assert.ok(first.estimatedTokens <= 32_000 - 4096);
        assert.ok(reads() <= 12 * size, `${reads()} reads of ${size} messages`);
        const before = reads();
        await planner.plan(model, { role: 'system', content: 'Be brief.' }, [], messages);
        assert.ok(reads() - before <= 12 * size, `the next round: ${reads() - before} reads`);
      });
    }
  });

  describe('every request fits the window, counted with the tokenizer', () => {
    let server: ModelServer;
    let workspace: TempWorkspace;
    before(async () => {
      server = await ModelServer.start();
    });
    after(() => server.close());
    beforeEach(async () => {
      server.reset();
      server.setFallback(() => ({ text: 'Read them.' }));
      workspace = await TempWorkspace.create({ 'a.ts': sourceText(99_000, 'a'), 'b.ts': sourceText(99_000, 'b') });
    });
    afterEach(() => workspace.dispose());

    const openai = () => new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'unknown-model', maxRetries: 0 });
    const agentWith = (provider: ChatProvider, registry = createDefaultToolRegistry(contextFor(workspace))) =>
      new Agent(provider, { toolRegistry: registry, workspaceRoot: workspace.root });

    function assertEveryRequestFits(): void {
      assert.ok(server.requests.length >= 2);
      for (const [i, request] of server.requests.entries()) {
        const tokens = tokenizerCount(request);
        assert.ok(tokens <= WINDOW, `request ${i + 1}: ${tokens} tokens in a ${WINDOW}-token window`);
      }
    }

    it("two 100 K-character read_file results in the current turn (32 K window): the newest shortened last", async () => {
      server.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'a.ts' } }, { name: 'read_file', arguments: { path: 'b.ts' } }] });
      const agent = agentWith(openai());
      await drain(agent.streamChat('Read a.ts and b.ts'));
      assertEveryRequestFits();
      const sent = (server.requests[1].body as { messages: { role: string; content: string }[] }).messages.filter((m) => m.role === 'tool');
      assert.match(sent[0].content, /characters of this tool result were cut to fit the model's context window/);
      assert.ok(sent[0].content.startsWith('export const a0'), 'the head is kept');
      assert.ok(agent.history.filter((m) => m.role === 'tool').every((m) => m.content.length > 90_000), 'the history keeps both whole');
    });

    it('10,000 tool calls in one Ollama answer: the next request fits, and the model hears why the rest did not run', async () => {
      server.setContextLength('m', WINDOW);
      const registry = new ToolRegistry();
      registry.register(new FakeTool('echo', (args) => `echo ${String(args.value)}`));
      server.enqueue({ toolCalls: Array.from({ length: 10_000 }, (_, i) => ({ name: 'echo', arguments: { value: `v${i}`.padEnd(40, '.') } })) });
      const agent = agentWith(new OllamaNativeProvider({ baseURL: server.ollamaBaseUrl, model: 'm', maxRetries: 0 }), registry);
      await drain(agent.streamChat('Echo everything'));
      assertEveryRequestFits();
      const sent = JSON.stringify(server.requests[1].body);
      assert.match(sent, /nor were the 9,871 calls after it/);
    });

    it('a 900 K-character write_file call in the current turn: its arguments are cut in what is sent, still a JSON object', async () => {
      const content = sourceText(900_000, 'w');
      server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'big.ts', content } }] });
      const agent = agentWith(openai());
      await drain(agent.streamChat('Write big.ts'));
      assert.equal(await workspace.read('big.ts'), content, 'the call ran with its whole arguments');
      assertEveryRequestFits();
      const sentCall = (server.requests[1].body as { messages: WireMessage[] }).messages.flatMap((m) => m.tool_calls ?? [])[0];
      const args = JSON.parse(sentCall.function.arguments as string) as { path: string; content: string };
      assert.equal(args.path, 'big.ts');
      assert.match(args.content, /characters cut to fit the model's context window/);
    });

    it('a 400 K-character question: cut in the middle, head and tail kept', async () => {
      const question = `Please review:\n${sourceText(400_000, 'q')}\nWhat is wrong with it?`;
      server.enqueue({ text: 'Nothing.' });
      await drain(agentWith(openai()).streamChat(question));
      assert.ok(tokenizerCount(server.requests[0]) <= WINDOW, `${tokenizerCount(server.requests[0])} tokens`);
      const sent = (server.requests[0].body as { messages: { role: string; content: string }[] }).messages.at(-1)!.content;
      assert.ok(sent.startsWith('Please review:') && sent.endsWith('What is wrong with it?'));
    });
  });

  it('fitConversation, over 200 random conversations with oversized current turns: within the limit, every result after its call', () => {
    let x = 7;
    const random = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let n = 0; n < 200; n++) {
      const messages: ChatMessage[] = [];
      for (let t = Math.floor(random() * 20); t > 0; t--) {
        messages.push({ role: 'user', content: `old question ${t} `.repeat(1 + Math.floor(random() * 50)) });
        messages.push({ role: 'assistant', content: `old answer ${t} `.repeat(1 + Math.floor(random() * 200)) });
      }
      messages.push({ role: 'user', content: `now ${n} `.repeat(1 + Math.floor(random() * (random() < 0.2 ? 40_000 : 50))) });
      for (let round = Math.floor(random() * 6); round > 0; round--) {
        const calls = Array.from({ length: 1 + Math.floor(random() * (random() < 0.2 ? 300 : 4)) }, (_, c) => ({
          id: `r${round}c${c}`,
          name: 'tool',
          arguments: JSON.stringify({ text: 'y'.repeat(Math.floor(random() * (random() < 0.1 ? 200_000 : 100))) }),
        }));
        messages.push({ role: 'assistant', content: random() < 0.3 ? 'thinking '.repeat(Math.floor(random() * 5000)) : '', toolCalls: calls });
        for (const call of calls) messages.push({ role: 'tool', toolCallId: call.id, name: 'tool', content: 'z'.repeat(Math.floor(random() * (random() < 0.3 ? 150_000 : 500))) });
      }
      const contextTokens = 2000 + Math.floor(random() * 60_000);
      const fitted = fitConversation(messages, { contextTokens, reserveOutputTokens: Math.floor(contextTokens / 4), fixedTokens: 300 }, estimateTokens);
      assert.ok(fitted.tokens <= fitted.limit, `case ${n}: ${fitted.tokens} > ${fitted.limit}`);
      const calls = new Set<string>();
      for (const m of fitted.messages) {
        if (m.role === 'assistant') for (const c of m.toolCalls ?? []) calls.add(c.id);
        if (m.role === 'tool') assert.ok(calls.has(m.toolCallId), `case ${n}: result ${m.toolCallId} follows its call`);
        if (m.role === 'assistant') for (const c of m.toolCalls ?? []) assert.ok(fitted.messages.some((r) => r.role === 'tool' && r.toolCallId === c.id), `case ${n}: call ${c.id} is answered`);
      }
      assert.ok(fitted.messages.some((m) => m.role === 'user' && m.content.includes(`now ${n}`)), `case ${n}: the question is sent`);
    }
  });
});
