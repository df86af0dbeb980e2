import * as assert from 'node:assert/strict';
import { Agent } from '../../src/agent/agent';
import { ProviderError } from '../../src/providers/errors';
import { contextSize, NUM_CTX_STEP, OllamaNativeProvider, parseShow } from '../../src/providers/ollamaNative';
import { OpenAIProvider } from '../../src/providers/openai';
import { AutoToolCallingProvider, withToolCalling } from '../../src/providers/toolCalling';
import type { ChatMessage, ChatProvider, ProviderEvent } from '../../src/providers/types';
import type { ChatTool } from '../../src/tools/interface';
import { BUILTIN_MANIFEST } from '../../src/tools/manifest';
import { ToolRegistry } from '../../src/tools/registry';
import { FakeTool } from '../support/fakeTools';
import { ModelServer } from '../support/modelServer';

const TOOLS: ChatTool[] = BUILTIN_MANIFEST.slice(0, 2).map((d) => ({ type: 'function', function: { name: d.name, description: d.description, parameters: d.parameters } }));
const HELLO: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hello?' },
];

async function collect(provider: ChatProvider, messages = HELLO, stream?: boolean): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream({ messages, tools: TOOLS, stream })) events.push(event);
  return events;
}

const text = (events: ProviderEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
const calls = (events: ProviderEvent[]) => events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));

describe('Ollama through its own API', () => {
  let server: ModelServer;
  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());
  beforeEach(() => server.reset());

  const ollama = (model = 'scripted-ollama', extra: Record<string, unknown> = {}) =>
    new OllamaNativeProvider({ baseURL: `${server.ollamaBaseUrl}/v1`, model, idleTimeoutMs: 1500, maxRetryWaitMs: 2000, ...extra });

  it('streams text and whole tool calls over /api/chat, sending tools and a context size', async () => {
    server.enqueue({ text: 'Let me compute that.', toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] });
    const events = await collect(ollama());
    assert.equal(text(events), 'Let me compute that.');
    assert.deepEqual(calls(events).map((c) => [c.name, c.arguments]), [['calculator', '{"expression":"6*7"}']]);
    assert.deepEqual(events.at(-1), { type: 'done', finishReason: 'tool_calls', usage: { inputTokens: 10, outputTokens: 5 } });
    const chat = server.requests.find((r) => r.path === '/api/chat')!;
    assert.equal(chat.format, 'ollama');
    assert.equal(chat.stream, true);
    assert.deepEqual((chat.body.tools as ChatTool[]).map((t) => t.function.name), ['calculator', 'get_current_datetime']);
    assert.equal((chat.body.options as { num_ctx: number }).num_ctx, NUM_CTX_STEP);
  });

  it('sends earlier calls with object arguments and results with the tool name', async () => {
    server.enqueue({ text: 'It is 42.' });
    const messages: ChatMessage[] = [
      ...HELLO,
      { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"6*7"}' }] },
      { role: 'tool', toolCallId: 'c1', name: 'calculator', content: '42' },
    ];
    await collect(ollama(), messages);
    const sent = server.requests.at(-1)!.body.messages as Record<string, unknown>[];
    assert.deepEqual(sent[2], { role: 'assistant', content: '', tool_calls: [{ function: { name: 'calculator', arguments: { expression: '6*7' } } }] });
    assert.deepEqual(sent[3], { role: 'tool', content: '42', tool_name: 'calculator' });
  });

  it('sizes num_ctx to the conversation, in steps, never past the model window or the setting', async () => {
    server.setContextLength('scripted-ollama', 20_000);
    const long: ChatMessage[] = [...HELLO, { role: 'user', content: 'x'.repeat(4 * 12_000) }];
    server.enqueue({ text: 'ok' }, { text: 'ok' });
    await collect(ollama(), long);
    assert.equal((server.requests.at(-1)!.body.options as { num_ctx: number }).num_ctx, 20_000, 'capped at the model window');
    await collect(ollama('scripted-ollama', { contextTokens: 65_536 }), long);
    const asked = (server.requests.at(-1)!.body.options as { num_ctx: number }).num_ctx;
    assert.ok(asked > 20_000 && asked <= 65_536 && asked % NUM_CTX_STEP === 0, `the setting replaces the reported window: ${asked}`);
    assert.equal(contextSize({ messages: HELLO, tools: [] }, { contextTokens: 4096, source: 'table' }), 4096);
  });

  it('reads capabilities and the context length from /api/show, once', async () => {
    server.setTextOnly('text-only').setContextLength('text-only', 8192);
    const provider = ollama('text-only');
    assert.equal(await provider.supportsTools(), false);
    assert.deepEqual(await provider.limits(), { contextTokens: 8192, source: 'service' });
    assert.equal(await ollama().supportsTools(), true);
    assert.equal(server.requests.filter((r) => r.path === '/api/show').length, 0, 'show is not a chat request');
    assert.deepEqual(parseShow('{"capabilities":["completion"],"model_info":{"llama.context_length":131072}}'), { capabilities: ['completion'], contextTokens: 131_072 });
  });

  it('answers without streaming for chat()', async () => {
    server.enqueue({ text: 'Whole answer.', toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] });
    const events = await collect(ollama(), HELLO, false);
    assert.equal(server.requests.at(-1)!.body.stream, false);
    assert.equal(text(events), 'Whole answer.');
    assert.equal(calls(events)[0].name, 'calculator');
  });

  it('turns an HTTP error, a broken stream and a stall into readable errors', async () => {
    server.enqueue({ fault: 'http', status: 404, errorMessage: 'model "nope" not found, try pulling it first' });
    let error = await collect(ollama('nope')).then(() => undefined, (e: unknown) => e);
    assert.ok(error instanceof ProviderError);
    assert.match(error.message, /^Ollama does not know the model "nope" at http:\/\/127\.0\.0\.1:\d+ \(HTTP 404\): model "nope" not found/);

    server.enqueue({ text: 'Half an answer that never', fault: 'cut-in-text' });
    error = await collect(ollama()).then(() => undefined, (e: unknown) => e);
    assert.match((error as Error).message, /broke off before it was finished/);

    server.enqueue({ text: 'one two three four', fault: 'malformed' });
    error = await collect(ollama()).then(() => undefined, (e: unknown) => e);
    assert.match((error as Error).message, /not JSON/);

    server.enqueue({ text: 'and then silence', fault: 'stall' });
    error = await collect(ollama('scripted-ollama', { idleTimeoutMs: 300 })).then(() => undefined, (e: unknown) => e);
    assert.equal((error as ProviderError).kind, 'timeout');
  });

  describe('tool calling for models without tools', () => {
    it('auto: uses prompt-based calling when /api/show lacks "tools", and the Agent runs the call', async () => {
      server.setTextOnly('text-only');
      server.enqueue(
        { chunks: ['I will add.\n```tool', '_call\n{"name": "adder", "argu', 'ments": {"value": "2+2"}}\n```\n'] },
        { text: 'The sum is 4.' },
      );
      const registry = new ToolRegistry();
      const adder = new FakeTool('adder', () => '4');
      registry.register(adder);
      const agent = new Agent(withToolCalling(ollama('text-only'), 'auto'), { toolRegistry: registry, systemPrompt: 'Be brief.' });
      const events = [];
      for await (const event of agent.streamChat('add 2 and 2')) events.push(event);
      assert.deepEqual(adder.calls, [{ value: '2+2' }]);
      const shown = events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
      assert.equal(shown, 'I will add.\nThe sum is 4.');
      assert.ok(!shown.includes('tool_call'), 'the raw call is never shown');
      const chats = server.requests.filter((r) => r.path === '/api/chat');
      assert.equal(chats.length, 2);
      assert.equal(chats[0].body.tools, undefined, 'no native tools are sent');
      const system = (chats[0].body.messages as { role: string; content: string }[])[0];
      assert.match(system.content, /# Tools[\s\S]*### adder/);
      const second = chats[1].body.messages as { role: string; content: string }[];
      assert.equal(second.at(-1)!.role, 'user');
      assert.match(second.at(-1)!.content, /^Result of adder \(call_prompt_[^)]+\):\n4$/);
    });

    it('auto: falls back when an OpenAI-compatible server refuses tools, and remembers it', async () => {
      server.setTextOnly('text-only');
      server.enqueue({ text: 'No tools needed.' }, { text: 'Still fine.' });
      const provider = new AutoToolCallingProvider(new OpenAIProvider({ apiKey: 'x', baseURL: server.openaiBaseUrl, model: 'text-only', idleTimeoutMs: 1500 }));
      assert.equal(text(await collect(provider)), 'No tools needed.');
      assert.equal(provider.toolCalling, 'prompt');
      assert.equal(text(await collect(provider)), 'Still fine.');
      const posts = server.requests.filter((r) => r.path === '/v1/chat/completions');
      assert.deepEqual(posts.map((r) => Array.isArray(r.body.tools)), [true, false, false], 'one refused request, then prompt mode');
    });

    it('native: sends tools and lets the refusal through', async () => {
      server.setTextOnly('text-only');
      const error = await collect(withToolCalling(ollama('text-only'), 'native')).then(() => undefined, (e: unknown) => e);
      assert.ok(error instanceof ProviderError);
      assert.match(error.message, /does not support tools/);
    });

    it('prompt: describes tools in the prompt even for a model that has them', async () => {
      server.enqueue({ text: 'ok' });
      await collect(withToolCalling(ollama(), 'prompt'));
      assert.equal(server.requests.at(-1)!.body.tools, undefined);
    });
  });
});
