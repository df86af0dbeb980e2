import * as assert from 'node:assert/strict';
import { Agent, MAX_TOOL_CALLS_PER_REPLY, type AgentEvent } from '../../../src/agent/agent';
import { MAX_ARGUMENT_DEPTH } from '../../../src/agent/toolArguments';
import { GeminiProvider } from '../../../src/providers/gemini';
import { MAX_TOOL_ARGUMENT_CHARS } from '../../../src/providers/limits';
import { OpenAIProvider } from '../../../src/providers/openai';
import type { ChatMessage, ChatProvider } from '../../../src/providers/types';
import { ToolRegistry } from '../../../src/tools/registry';
import { FakeTool } from '../../support/fakeTools';
import { ModelServer, type ScriptedToolCall } from '../../support/modelServer';

/**
 * Hostile tool calls from a model, through the Agent and a registry of spy tools: what ran, with
 * which arguments, what the history holds, and that no prototype was touched.
 */

type ToolEnd = Extract<AgentEvent, { type: 'tool_call_end' }>;

async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

const ends = (events: AgentEvent[]) => events.filter((e): e is ToolEnd => e.type === 'tool_call_end');
const starts = (events: AgentEvent[]) => events.filter((e) => e.type === 'tool_call_start');
const toolResults = (history: readonly ChatMessage[]) => history.filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool');
const assistantCalls = (history: readonly ChatMessage[]) => history.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
const historyChars = (history: readonly ChatMessage[]) => history.reduce((sum, m) => sum + m.content.length + (m.role === 'assistant' ? JSON.stringify(m.toolCalls ?? []).length : 0), 0);

async function assertResponsive(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error('event loop blocked')), 2000);
    setTimeout(() => {
      clearTimeout(guard);
      resolve();
    }, 0);
  });
}

function assertNoPollution(): void {
  const probe = {} as Record<string, unknown>;
  assert.equal(probe.polluted, undefined, 'Object.prototype was polluted');
  assert.equal((Object.prototype as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(probe), Object.prototype);
}

describe('hostile: tool arguments through the Agent', function () {
  this.timeout(30_000);
  let server: ModelServer;
  let registry: ToolRegistry;
  let echo: FakeTool;
  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());
  beforeEach(() => {
    server.reset();
    server.setFallback(() => ({ text: 'Noted.' }));
    registry = new ToolRegistry();
    echo = new FakeTool('echo', (args) => `echo:${String(args.value).slice(0, 20)}`);
    registry.register(echo);
  });
  afterEach(assertNoPollution);

  const openai = (): ChatProvider => new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', idleTimeoutMs: 10_000, maxRetries: 0 });
  const gemini = (): ChatProvider => new GeminiProvider({ apiKey: 'k', baseURL: server.geminiBaseUrl, model: 'g', idleTimeoutMs: 10_000, maxRetries: 0 });
  const agentOn = (provider: () => ChatProvider) => new Agent(provider(), { toolRegistry: registry, systemPrompt: '' });

  /** One reply with these calls, then a closing answer; returns the turn's events and the Agent. */
  async function turn(calls: ScriptedToolCall[], provider = openai): Promise<{ events: AgentEvent[]; agent: Agent }> {
    const agent = agentOn(provider);
    server.enqueue({ toolCalls: calls });
    const events = await drain(agent.streamChat('Go'));
    return { events, agent };
  }

  it('arguments that are not JSON are refused, and the model is told why', async () => {
    const { events, agent } = await turn([{ name: 'echo', arguments: '{value: oops' }]);
    assert.equal(echo.calls.length, 0);
    assert.equal(starts(events).length, 0);
    const [end] = ends(events);
    assert.equal(end.status, 'error');
    assert.match(end.result, /not valid JSON.*the tool was not run/);
    assert.equal(toolResults(agent.history).length, 1);
    assert.equal(server.requests.length, 2, 'the error went back to the model');
  });

  for (const [label, text, kind] of [
    ['an array', '[{"value":"a"}]', 'an array'],
    ['a string', '"hello"', 'a string'],
    ['a number', '42', 'a number'],
    ['null', 'null', 'null'],
  ] as const) {
    it(`arguments that are ${label} instead of an object are refused`, async () => {
      const { events, agent } = await turn([{ name: 'echo', arguments: text }]);
      assert.equal(echo.calls.length, 0);
      const [end] = ends(events);
      assert.equal(end.result, `Error: the arguments for echo must be a JSON object, not ${kind}; the tool was not run.`);
      assert.deepEqual(agent.history.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
    });
  }

  it('__proto__ keys, at any depth, are dropped and reach no prototype', async () => {
    await turn([{ name: 'echo', arguments: '{"value":"x","__proto__":{"polluted":"yes"},"nested":{"__proto__":{"polluted":"deep"},"ok":1}}' }]);
    assert.equal(echo.calls.length, 1);
    const received = echo.calls[0];
    assert.equal(Object.getPrototypeOf(received), Object.prototype);
    assert.equal(Object.hasOwn(received, '__proto__'), false);
    assert.equal((received as Record<string, unknown>).polluted, undefined);
    assert.deepEqual(Object.keys(received.nested as object), ['ok']);
    assert.equal(Object.getPrototypeOf(received.nested), Object.prototype);
  });

  it('constructor.prototype keys stay plain data', async () => {
    await turn([{ name: 'echo', arguments: '{"value":"x","constructor":{"prototype":{"polluted":"yes"}}}' }]);
    assert.equal(echo.calls.length, 1);
    const received = echo.calls[0];
    assert.equal(Object.getPrototypeOf(received), Object.prototype);
    assert.equal(received.value, 'x');
  });

  it('over Gemini, a __proto__ key in the arguments object reaches no prototype either', async () => {
    const args = JSON.parse('{"value":"g","__proto__":{"polluted":"gemini"}}') as Record<string, unknown>;
    await turn([{ name: 'echo', arguments: args }], gemini);
    assert.equal(echo.calls.length, 1);
    assert.equal(Object.hasOwn(echo.calls[0], '__proto__'), false);
    assert.equal(echo.calls[0].value, 'g');
  });

  for (const [label, text] of [
    ['objects', `${'{"a":'.repeat(100_000)}1${'}'.repeat(100_000)}`],
    ['arrays', `{"value":${'['.repeat(100_000)}${']'.repeat(100_000)}}`],
  ] as const) {
    it(`${label} nested 100,000 levels deep are refused without a stack overflow`, async () => {
      const { events } = await turn([{ name: 'echo', arguments: text }]);
      assert.equal(echo.calls.length, 0);
      assert.match(ends(events)[0].result, new RegExp(`nested more than ${MAX_ARGUMENT_DEPTH} levels deep; the tool was not run`));
      assert.equal(server.requests.length, 2);
      await assertResponsive();
    });
  }

  it('arguments nested to the limit still run', async () => {
    const text = `{"value":"ok","n":${'['.repeat(MAX_ARGUMENT_DEPTH - 1)}${']'.repeat(MAX_ARGUMENT_DEPTH - 1)}}`;
    await turn([{ name: 'echo', arguments: text }]);
    assert.equal(echo.calls.length, 1);
  });

  for (const [label, provider] of [['OpenAI', openai], ['Gemini', gemini]] as const) {
    it(`over ${label}, arguments longer than the limit are dropped, never run, never kept`, async () => {
      const huge = 'h'.repeat(MAX_TOOL_ARGUMENT_CHARS + 500_000);
      const { events, agent } = await turn([{ name: 'echo', arguments: { value: huge } }, { name: 'echo', arguments: { value: 'small' } }], provider);
      assert.deepEqual(echo.calls, [{ value: 'small' }], 'only the small call ran');
      const [refused, ran] = ends(events);
      assert.match(refused.result, /longer than 1,000,000 characters .*; they were dropped and the tool was not run/);
      assert.equal(ran.status, 'ok');
      const [kept] = assistantCalls(agent.history);
      assert.equal(kept.arguments, '{}');
      assert.match(kept.unreadable ?? '', /longer than 1,000,000 characters/);
      assert.ok(historyChars(agent.history) < 10_000, `history holds ${historyChars(agent.history)} characters`);
      assert.ok(JSON.stringify(server.requests[1].body).length < 10_000, 'the huge arguments were not sent back');
    });
  }

  for (const [label, provider] of [['OpenAI', openai], ['Gemini', gemini]] as const) {
    it(`over ${label}, many calls whose arguments together pass the limit: the calls past it are refused`, async () => {
      const third = 'p'.repeat(Math.floor(MAX_TOOL_ARGUMENT_CHARS / 3));
      const { events, agent } = await turn(Array.from({ length: 6 }, () => ({ name: 'echo', arguments: { value: third } })), provider);
      assert.equal(echo.calls.length, 2, 'the first two fit; the rest would pass the limit');
      assert.deepEqual(ends(events).map((e) => e.status), ['ok', 'ok', 'error', 'error', 'error', 'error']);
      assert.ok(historyChars(agent.history) < MAX_TOOL_ARGUMENT_CHARS + 10_000, `history holds ${historyChars(agent.history)} characters`);
    });
  }

  it('large arguments under the limit reach the tool whole', async () => {
    const big = 'b'.repeat(400_000);
    await turn([{ name: 'echo', arguments: { value: big } }]);
    assert.equal(echo.calls.length, 1);
    assert.equal((echo.calls[0].value as string).length, 400_000);
  });

  it('unknown tool names never run and the model hears which tools exist', async () => {
    const { events } = await turn([{ name: 'rm_rf', arguments: { path: '/' } }]);
    assert.equal(echo.calls.length, 0);
    assert.equal(starts(events).length, 0);
    assert.match(ends(events)[0].result, /no tool named "rm_rf"; it was not run\. Available tools: echo/);
  });

  it('names with odd characters (prototype names, paths, NUL, markup, padding, empty, 5,000 characters) never run', async () => {
    const names = ['__proto__', 'constructor', 'toString', 'hasOwnProperty', '../echo', 'echo\u0000', 'echo ', ' echo', 'ECHO', '<img src=x onerror=alert(1)>', 'x'.repeat(5000)];
    const { events, agent } = await turn(names.map((name) => ({ name, arguments: { value: 'v' } })));
    assert.equal(echo.calls.length, 0);
    assert.equal(starts(events).length, 0);
    assert.equal(ends(events).length, names.length);
    assert.ok(ends(events).every((e) => e.status === 'error'));
    assert.equal(toolResults(agent.history).length, names.length, 'every call answered');
  });

  it('a call without a name never runs and is answered', async () => {
    const { events, agent } = await turn([{ name: '', arguments: { value: 'v' } }]);
    assert.equal(echo.calls.length, 0);
    assert.equal(ends(events)[0]?.status, 'error');
    assert.equal(toolResults(agent.history).length, 1);
  });

  it('duplicate call ids: each call runs once and every result answers exactly one call', async () => {
    const { agent } = await turn([
      { name: 'echo', arguments: { value: 'first' }, id: 'dup' },
      { name: 'echo', arguments: { value: 'second' }, id: 'dup' },
    ]);
    assert.deepEqual(echo.calls.map((c) => c.value), ['first', 'second']);
    const ids = assistantCalls(agent.history).map((c) => c.id);
    assert.equal(new Set(ids).size, 2, `ids ${ids.join(', ')}`);
    assert.deepEqual(toolResults(agent.history).map((m) => m.toolCallId), ids);
    const sent = server.requests[1].body.messages as { role: string; tool_call_id?: string }[];
    assert.deepEqual(sent.filter((m) => m.role === 'tool').map((m) => m.tool_call_id), ids);
  });

  it(`1,000 tool calls in one reply: at most ${MAX_TOOL_CALLS_PER_REPLY} run, every one is answered, the rest stay out of the conversation`, async () => {
    const calls = Array.from({ length: 1000 }, (_, i) => ({ name: 'echo', arguments: { value: `v${i}` } }));
    const { events, agent } = await turn(calls);
    assert.equal(echo.calls.length, MAX_TOOL_CALLS_PER_REPLY);
    assert.equal(echo.calls.at(-1)?.value, `v${MAX_TOOL_CALLS_PER_REPLY - 1}`);
    assert.equal(ends(events).length, 1000);
    assert.match(ends(events).at(-1)!.result, /one reply may make at most 128 tool calls/);
    // The first call past the cap answers for the 871 after it; those never enter the conversation.
    assert.equal(assistantCalls(agent.history).length, MAX_TOOL_CALLS_PER_REPLY + 1);
    assert.equal(toolResults(agent.history).length, MAX_TOOL_CALLS_PER_REPLY + 1);
    assert.match(toolResults(agent.history).at(-1)!.content, /nor were the 871 calls after it/);
    assert.equal(server.requests.length, 2, 'the turn went on to the model');
    assert.equal((events.at(-1) as { text: string }).text, 'Noted.');
    await assertResponsive();
  });
});
