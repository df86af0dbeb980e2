import * as assert from 'node:assert/strict';
import { Agent, type AgentEvent } from '../../src/agent/agent';
import { ProviderError } from '../../src/providers/errors';
import { GeminiProvider } from '../../src/providers/gemini';
import { OpenAIProvider } from '../../src/providers/openai';
import type { ChatProvider } from '../../src/providers/types';
import { ToolRegistry } from '../../src/tools/registry';
import { FakeTool } from '../support/fakeTools';
import { ModelServer, type RecordedRequest } from '../support/modelServer';
import { TempWorkspace } from '../support/workspace';

async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

/** The roles and tool results of a recorded request, whatever the wire format. */
function conversationOf(request: RecordedRequest): string[] {
  if (request.format === 'openai') {
    return (request.body.messages as { role: string; content: string | null }[]).map((m) => `${m.role}:${m.content ?? ''}`);
  }
  const contents = request.body.contents as { role: string; parts: { text?: string; functionCall?: { name: string }; functionResponse?: { response: { result: string } } }[] }[];
  return contents.flatMap((c) =>
    c.parts.map((p) => `${c.role}:${p.text ?? (p.functionCall ? `call ${p.functionCall.name}` : p.functionResponse ? `result ${p.functionResponse.response.result}` : '')}`),
  );
}

function toolNamesOf(request: RecordedRequest): string[] {
  if (request.format === 'openai') return ((request.body.tools ?? []) as { function: { name: string } }[]).map((t) => t.function.name);
  const tools = (request.body.tools ?? []) as { functionDeclarations: { name: string }[] }[];
  return tools.flatMap((t) => t.functionDeclarations.map((d) => d.name));
}

describe('Agent against the scripted model server', () => {
  let server: ModelServer;
  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());
  beforeEach(() => server.reset());

  const providers: Record<string, () => ChatProvider> = {
    openai: () => new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', idleTimeoutMs: 2000, maxRetryWaitMs: 100, maxRetries: 0 }),
    gemini: () => new GeminiProvider({ apiKey: 'k', baseURL: server.geminiBaseUrl, model: 'g', idleTimeoutMs: 2000, maxRetryWaitMs: 100, maxRetries: 0 }),
  };

  for (const [kind, makeProvider] of Object.entries(providers)) {
    describe(`over ${kind}`, () => {
      let registry: ToolRegistry;
      let echo: FakeTool;
      let agent: Agent;
      beforeEach(() => {
        registry = new ToolRegistry();
        echo = new FakeTool('echo', (args) => `echo:${String(args.value)}`);
        registry.register(echo);
        registry.register(new FakeTool('noargs', () => 'no args needed'));
        agent = new Agent(makeProvider(), { toolRegistry: registry, systemPrompt: 'Be brief.' });
      });

      it('chat() resolves with the reply and keeps the conversation', async () => {
        server.enqueue({ text: 'Hi there.' });
        assert.equal(await agent.chat('Hello'), 'Hi there.');
        assert.deepEqual(agent.history.map((m) => m.role), ['user', 'assistant']);
        assert.equal(server.requests[0].stream, false);
        assert.deepEqual(toolNamesOf(server.requests[0]), ['echo', 'noargs']);
      });

      it('streamChat runs several tool calls in order and sends their results back', async () => {
        const order: string[] = [];
        registry.unregister('echo');
        registry.register(new FakeTool('echo', async (args) => {
          order.push(`start ${args.value}`);
          await new Promise((r) => setTimeout(r, args.value === 'a' ? 30 : 1));
          order.push(`end ${args.value}`);
          return `echo:${String(args.value)}`;
        }));
        server.enqueue(
          { text: 'Let me check. ', toolCalls: [{ name: 'echo', arguments: { value: 'a' } }, { name: 'echo', arguments: { value: 'b' } }] },
          { text: 'Both done.' },
        );
        const events = await drain(agent.streamChat('Run both'));
        assert.deepEqual(order, ['start a', 'end a', 'start b', 'end b']);
        const kinds = events.map((e) => (e.type === 'tool_call_end' ? `end:${e.status}:${e.result}` : e.type));
        assert.deepEqual(kinds.filter((k) => k !== 'text' && k !== 'context'), ['tool_call_pending', 'tool_call_pending', 'tool_call_start', 'end:ok:echo:a', 'tool_call_start', 'end:ok:echo:b', 'done']);
        const done = events.at(-1) as Extract<AgentEvent, { type: 'done' }>;
        assert.equal(done.text, 'Let me check.\n\nBoth done.');
        assert.equal(server.requests.length, 2);
        const second = conversationOf(server.requests[1]);
        assert.ok(second.some((line) => line.endsWith('echo:a')), second.join('\n'));
        assert.ok(second.some((line) => line.endsWith('echo:b')));
      });

      // Gemini sends arguments as JSON objects, so only the OpenAI wire format can carry broken JSON.
      if (kind === 'openai') {
        it('answers malformed JSON arguments with an error and never runs the tool', async () => {
          server.enqueue({ toolCalls: [{ name: 'echo', arguments: '{"value": "unterminated' }] }, { text: 'Sorry.' });
          const events = await drain(agent.streamChat('Go'));
          const end = events.find((e) => e.type === 'tool_call_end') as Extract<AgentEvent, { type: 'tool_call_end' }>;
          assert.equal(end.status, 'error');
          assert.match(end.result, /^Error: the arguments for echo are not valid JSON .* the tool was not run/);
          assert.equal(echo.calls.length, 0);
          assert.ok(conversationOf(server.requests[1]).some((l) => l.includes('not valid JSON')));
        });
      }

      it('answers an unknown tool with an error naming the available ones', async () => {
        server.enqueue({ toolCalls: [{ name: 'teleport', arguments: { to: 'mars' } }] }, { text: 'I cannot.' });
        const events = await drain(agent.streamChat('Go'));
        const end = events.find((e) => e.type === 'tool_call_end') as Extract<AgentEvent, { type: 'tool_call_end' }>;
        assert.match(end.result, /no tool named "teleport"; it was not run\. Available tools: echo, noargs/);
        assert.equal(events.filter((e) => e.type === 'tool_call_start').length, 0);
      });

      it('runs a tool without parameters when the arguments are empty', async () => {
        server.enqueue({ toolCalls: [{ name: 'noargs', arguments: kind === 'openai' ? '' : {} }] }, { text: 'ok' });
        const events = await drain(agent.streamChat('Go'));
        assert.ok(events.some((e) => e.type === 'tool_call_end' && e.status === 'ok' && e.result === 'no args needed'));
      });

      it('stops at the round cap with a clear notice and a valid conversation', async () => {
        const capped = new Agent(makeProvider(), { toolRegistry: registry, maxToolRounds: 3 });
        server.setFallback(() => ({ toolCalls: [{ name: 'echo', arguments: { value: 'again' } }] }));
        const events = await drain(capped.streamChat('Loop forever'));
        const done = events.at(-1) as Extract<AgentEvent, { type: 'done' }>;
        assert.equal(done.reason, 'max_rounds');
        assert.match(done.text, /limit of 3 rounds/);
        assert.equal(echo.calls.length, 3);
        assert.equal(server.requests.length, 4);
        const calls = capped.history.flatMap((m) => (m.role === 'assistant' ? (m.toolCalls ?? []) : []));
        const answered = new Set(capped.history.flatMap((m) => (m.role === 'tool' ? [m.toolCallId] : [])));
        assert.ok(calls.every((c) => answered.has(c.id)), 'every tool call has a result');
      });

      it('leaves the user message in place after a provider failure, and resume() does not send it twice', async () => {
        server.enqueue({ fault: 'http', status: 401, errorMessage: 'bad key' });
        await assert.rejects(agent.chat('First question'), (error: Error) => error instanceof ProviderError && /rejected the API key/.test(error.message));
        assert.deepEqual(agent.history.map((m) => m.role), ['user']);
        assert.equal(agent.canResume, true);
        server.enqueue({ text: 'Answer to the first.' });
        const events = await drain(agent.resume());
        assert.equal((events.at(-1) as { text: string }).text, 'Answer to the first.');
        const sent = conversationOf(server.requests[1]).filter((l) => l.includes('First question'));
        assert.equal(sent.length, 1, 'the question was sent once');
        assert.deepEqual(agent.history.map((m) => m.role), ['user', 'assistant']);
      });

      it('goes on from a failure after a tool ran, without running it again', async () => {
        server.enqueue({ toolCalls: [{ name: 'echo', arguments: { value: 'once' } }] }, { fault: 'http', status: 500 });
        const events: AgentEvent[] = [];
        await assert.rejects(async () => {
          for await (const event of agent.streamChat('Do it')) events.push(event);
        }, /server error/);
        assert.ok(events.some((e) => e.type === 'error'));
        assert.equal(echo.calls.length, 1);
        server.enqueue({ text: 'Finished.' });
        await drain(agent.resume());
        assert.equal(echo.calls.length, 1);
        assert.deepEqual(agent.history.map((m) => m.role), ['user', 'assistant', 'tool', 'assistant']);
      });

      it('a stream cut inside tool arguments runs nothing and can be retried', async () => {
        server.enqueue({ toolCalls: [{ name: 'echo', arguments: { value: 'a long value to split' } }], fault: 'cut-in-tool-args' });
        await assert.rejects(drain(agent.streamChat('Go')), /broke off/);
        assert.equal(echo.calls.length, 0);
        server.enqueue({ text: 'Second try worked.' });
        assert.equal(((await drain(agent.resume())).at(-1) as { text: string }).text, 'Second try worked.');
      });

      it('aborting a long answer stops the stream and keeps what was shown', async () => {
        server.enqueue({ chunks: Array.from({ length: 100 }, (_, i) => `word${i} `), chunkDelayMs: 20 });
        const controller = new AbortController();
        const events: AgentEvent[] = [];
        for await (const event of agent.streamChat('Tell me a long story', { signal: controller.signal })) {
          events.push(event);
          if (events.filter((e) => e.type === 'text').length === 5) controller.abort();
        }
        const done = events.at(-1) as Extract<AgentEvent, { type: 'done' }>;
        assert.equal(done.reason, 'aborted');
        assert.ok(events.filter((e) => e.type === 'text').length < 20);
        assert.equal(agent.history.at(-1)?.role, 'assistant');
        server.enqueue({ text: 'Next answer.' });
        assert.equal(await agent.chat('Next'), 'Next answer.');
      });

      it('aborting during a tool stops it and answers the remaining calls', async () => {
        let started!: () => void;
        const running = new Promise<void>((resolve) => (started = resolve));
        registry.register(new FakeTool('slow', (_args, options) => new Promise((resolve) => {
          started();
          options?.signal?.addEventListener('abort', () => resolve('Stopped by the user.'));
        })));
        server.enqueue({ toolCalls: [{ name: 'slow', arguments: {} }, { name: 'echo', arguments: { value: 'never' } }] });
        const controller = new AbortController();
        const turn = drain(agent.streamChat('Go', { signal: controller.signal }));
        await running;
        controller.abort();
        const events = await turn;
        const ends = events.filter((e) => e.type === 'tool_call_end') as Extract<AgentEvent, { type: 'tool_call_end' }>[];
        assert.deepEqual(ends.map((e) => [e.name, e.status]), [['slow', 'cancelled'], ['echo', 'cancelled']]);
        assert.equal(echo.calls.length, 0);
        assert.equal((events.at(-1) as { reason: string }).reason, 'aborted');
        assert.equal(server.requests.length, 1, 'no further model call after the stop');
      });
    });
  }

  describe('tool management and context (specs 003/004)', () => {
    let ws: TempWorkspace;
    before(async () => {
      ws = await TempWorkspace.create({ 'notes.txt': 'remember the milk' });
    });
    after(() => ws.dispose());
    const provider = () => new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', maxRetries: 0 });

    it('builds the default registry: 13 builtins, remove and run_bash disabled', () => {
      const agent = new Agent(provider(), { workspaceRoot: ws.root });
      assert.equal(agent.toolRegistry.getToolNames().length, 13);
      assert.equal(agent.toolRegistry.isToolEnabled('remove'), false);
      assert.equal(agent.toolRegistry.isToolEnabled('run_bash'), false);
      assert.deepEqual(agent.getTools(), agent.toolRegistry.getEnabledSchemas());
      assert.equal(agent.getTools().length, 11);
    });

    it('delegates addTool, removeTool, enableTool and disableTool to the registry', async () => {
      const agent = new Agent(provider(), { workspaceRoot: ws.root });
      agent.addTool(new FakeTool('custom'));
      assert.ok(agent.getTools().some((t) => t.function.name === 'custom'));
      agent.disableTool('custom');
      assert.ok(!agent.getTools().some((t) => t.function.name === 'custom'));
      assert.equal(agent.toolRegistry.hasTool('custom'), true);
      agent.enableTool('run_bash');
      assert.ok(agent.getTools().some((t) => t.function.name === 'run_bash'));
      agent.removeTool('custom');
      assert.equal(agent.toolRegistry.hasTool('custom'), false);
      server.enqueue({ text: 'ok' });
      await agent.chat('hi');
      assert.ok(!toolNamesOf(server.requests[0]).includes('custom'));
      assert.ok(toolNamesOf(server.requests[0]).includes('run_bash'));
    });

    it('runs the real read_file builtin through a chat turn', async () => {
      const agent = new Agent(provider(), { workspaceRoot: ws.root });
      server.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }] }, { text: 'It says to remember the milk.' });
      assert.equal(await agent.chat('What is in notes.txt?'), 'It says to remember the milk.');
      assert.ok(conversationOf(server.requests[1]).includes('tool:remember the milk'));
    });

    it('saveContext goes through the registry and writes the live summary', async () => {
      const agent = new Agent(provider(), { workspaceRoot: ws.root, sessionContextFilePath: 'ctx/saved.md' });
      server.enqueue({ text: 'Paris.' });
      await agent.chat('What is the capital of France?');
      const result = await agent.saveContext('checkpoint');
      assert.match(result, /saved to "ctx\/saved\.md"/);
      const saved = await ws.read('ctx/saved.md');
      assert.match(saved, /Reason: checkpoint/);
      assert.match(saved, /\*\*User:\*\* What is the capital of France\?/);
      assert.match(saved, /\*\*Assistant:\*\* Paris\./);
    });

    it('exposes live state through its ToolContext: setSystemPrompt and clearContext show at once', async () => {
      const agent = new Agent(provider(), { workspaceRoot: ws.root });
      agent.setSystemPrompt('You are a pirate.');
      assert.equal(agent.context.systemPrompt, 'You are a pirate.');
      server.enqueue({ text: 'Arr.' });
      await agent.chat('hello');
      assert.match(agent.context.sessionContext, /hello/);
      assert.deepEqual((server.requests[0].body.messages as { role: string; content: string }[])[0], { role: 'system', content: 'You are a pirate.' });
      agent.clearContext();
      assert.equal(agent.context.sessionContext, '');
      assert.deepEqual(agent.history, []);
    });

    it('continues a restored conversation', async () => {
      const agent = new Agent(provider(), { workspaceRoot: ws.root, history: [{ role: 'user', content: 'earlier' }, { role: 'assistant', content: 'earlier answer' }] });
      server.enqueue({ text: 'later answer' });
      await agent.chat('later');
      assert.deepEqual(conversationOf(server.requests[0]).slice(1), ['user:earlier', 'assistant:earlier answer', 'user:later']);
    });
  });
});
