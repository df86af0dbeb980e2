import * as assert from 'node:assert/strict';
import { boundedText, describeBody } from '../../src/providers/errorText';
import { ProviderError, retryAfterMs } from '../../src/providers/errors';
import { GeminiProvider, toGeminiRequest } from '../../src/providers/gemini';
import { OLLAMA_DEFAULT_BASE_URL, OllamaProvider } from '../../src/providers/ollama';
import { OpenAIProvider } from '../../src/providers/openai';
import type { ChatMessage, ChatProvider, ProviderEvent } from '../../src/providers/types';
import type { ChatTool } from '../../src/tools/interface';
import { BUILTIN_MANIFEST } from '../../src/tools/manifest';
import { ModelServer } from '../support/modelServer';

const TOOLS: ChatTool[] = BUILTIN_MANIFEST.slice(0, 4).map((d) => ({
  type: 'function',
  function: { name: d.name, description: d.description, parameters: d.parameters },
}));

const HELLO: ChatMessage[] = [
  { role: 'system', content: 'Be brief.' },
  { role: 'user', content: 'Hello?' },
];

async function collect(provider: ChatProvider, options: { messages?: ChatMessage[]; stream?: boolean; signal?: AbortSignal } = {}): Promise<ProviderEvent[]> {
  const events: ProviderEvent[] = [];
  for await (const event of provider.stream({ messages: options.messages ?? HELLO, tools: TOOLS, stream: options.stream, signal: options.signal })) events.push(event);
  return events;
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
    return error;
  }
  assert.fail('expected the call to fail');
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const { createServer } = await import('node:net');
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const text = (events: ProviderEvent[]) => events.flatMap((e) => (e.type === 'text' ? [e.text] : [])).join('');
const calls = (events: ProviderEvent[]) => events.flatMap((e) => (e.type === 'tool_call' ? [e.call] : []));

describe('providers against the scripted model server', () => {
  let server: ModelServer;
  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());
  beforeEach(() => server.reset());

  const kinds = {
    openai: () => new OpenAIProvider({ apiKey: 'sk-test', baseURL: server.openaiBaseUrl, model: 'scripted-model', idleTimeoutMs: 1500, maxRetryWaitMs: 2000 }),
    gemini: () => new GeminiProvider({ apiKey: 'gm-test', baseURL: server.geminiBaseUrl, model: 'scripted-gemini', idleTimeoutMs: 1500, maxRetryWaitMs: 2000 }),
  };

  for (const [kind, make] of Object.entries(kinds)) {
    describe(kind, () => {
      it('streams text in several chunks and finishes', async () => {
        server.enqueue({ chunks: ['Hel', 'lo ', 'there', '!'] });
        const events = await collect(make());
        assert.deepEqual(events.filter((e) => e.type === 'text').map((e) => (e as { text: string }).text), ['Hel', 'lo ', 'there', '!']);
        assert.equal(events.at(-1)?.type, 'done');
        assert.equal(server.requests[0].stream, true);
      });

      it('answers in one JSON body when not streaming', async () => {
        server.enqueue({ text: 'Whole answer.', toolCalls: [{ name: 'calculator', arguments: { expression: '1+1' } }] });
        const events = await collect(make(), { stream: false });
        assert.equal(text(events), 'Whole answer.');
        assert.deepEqual(calls(events).map((c) => [c.name, JSON.parse(c.arguments)]), [['calculator', { expression: '1+1' }]]);
        assert.equal(server.requests[0].stream, false);
      });

      it('assembles several tool calls whose arguments arrive in pieces', async () => {
        server.enqueue({
          toolCalls: [
            { name: 'read_file', arguments: { path: 'src/a very long file name.ts', offset: 10, limit: 20 } },
            { name: 'calculator', arguments: { expression: '(3 + 4) * 2' } },
          ],
        });
        const events = await collect(make());
        assert.deepEqual(
          calls(events).map((c) => [c.name, JSON.parse(c.arguments)]),
          [['read_file', { path: 'src/a very long file name.ts', offset: 10, limit: 20 }], ['calculator', { expression: '(3 + 4) * 2' }]],
        );
        const begins = events.filter((e) => e.type === 'tool_call_begin').map((e) => (e as { name: string }).name);
        assert.deepEqual(begins, ['read_file', 'calculator']);
        assert.ok(calls(events).every((c) => c.id), 'every call has an id');
      });

      it('sends the conversation, the tools and the key in the provider format', async () => {
        server.enqueue({ text: 'ok' });
        const messages: ChatMessage[] = [
          ...HELLO,
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'calculator', arguments: '{"expression":"2+2"}' }] },
          { role: 'tool', toolCallId: 'c1', name: 'calculator', content: '4' },
        ];
        await collect(make(), { messages });
        const request = server.requests[0];
        if (kind === 'openai') {
          assert.equal(request.headers.authorization, 'Bearer sk-test');
          const body = request.body as { model: string; messages: Record<string, unknown>[]; tools: ChatTool[] };
          assert.equal(body.model, 'scripted-model');
          assert.deepEqual(body.tools.map((t) => t.function.name), ['calculator', 'get_current_datetime', 'generate_uuid', 'read_file']);
          assert.deepEqual(body.messages.map((m) => m.role), ['system', 'user', 'assistant', 'tool']);
          assert.deepEqual(body.messages[3], { role: 'tool', tool_call_id: 'c1', content: '4' });
        } else {
          assert.equal(request.headers['x-goog-api-key'], 'gm-test');
          const body = request.body as { contents: { role: string; parts: Record<string, unknown>[] }[]; systemInstruction: unknown; tools: { functionDeclarations: { name: string; parameters?: unknown }[] }[] };
          assert.deepEqual(body.systemInstruction, { parts: [{ text: 'Be brief.' }] });
          assert.deepEqual(body.contents.map((c) => c.role), ['user', 'model', 'user']);
          assert.deepEqual(body.contents[1].parts, [{ functionCall: { name: 'calculator', args: { expression: '2+2' } } }]);
          assert.deepEqual(body.contents[2].parts, [{ functionResponse: { name: 'calculator', response: { result: '4' } } }]);
          assert.deepEqual(body.tools[0].functionDeclarations.map((d) => d.name), ['calculator', 'get_current_datetime', 'generate_uuid', 'read_file']);
          assert.equal(body.tools[0].functionDeclarations[2].parameters, undefined, 'no empty OBJECT schema');
        }
      });

      it('turns 401 into a readable auth error, without retrying', async () => {
        server.enqueue({ fault: 'http', status: 401, errorMessage: 'Incorrect API key provided' });
        const error = await failure(collect(make()));
        assert.equal(error.kind, 'auth');
        assert.match(error.message, /^(The server at 127\.0\.0\.1:\d+|Gemini|Ollama) rejected the API key \(HTTP 401\)( at http:\/\/127\.0\.0\.1:\d+(\/v1)?)?: Incorrect API key provided\. Set a valid key with "Toolbelt: Set API Key"/);
        assert.equal(server.requests.length, 1);
      });

      it('names the model and the address when the model is not found', async () => {
        server.enqueue({ fault: 'http', status: 404, errorMessage: 'model not found' });
        const error = await failure(collect(make()));
        assert.equal(error.kind, 'not_found');
        assert.match(error.message, /^(The server at 127\.0\.0\.1:\d+|Gemini|Ollama) does not know the model "scripted-(model|gemini)"( at http:\/\/127\.0\.0\.1:\d+)?.*Check toolbelt\.model and toolbelt\.baseUrl/);
      });

      it('waits out a short Retry-After on 429 and succeeds', async () => {
        server.enqueue({ fault: 'http', status: 429, retryAfter: '1' }, { text: 'after the wait' });
        const started = Date.now();
        assert.equal(text(await collect(make())), 'after the wait');
        assert.ok(Date.now() - started >= 900, 'it waited the second');
        assert.equal(server.requests.length, 2);
      });

      it('does not wait out a long Retry-After: the error says how long to wait', async () => {
        server.enqueue({ fault: 'http', status: 429, retryAfter: '30' });
        const started = Date.now();
        const error = await failure(collect(make()));
        assert.ok(Date.now() - started < 1500);
        assert.equal(error.kind, 'rate_limit');
        assert.equal(error.retryAfterMs, 30_000);
        assert.match(error.message, /rate limiting.*Try again in 30 s/);
      });

      it('retries a 500 and gives up with a server error after two retries', async () => {
        server.enqueue({ fault: 'http', status: 500 }, { fault: 'http', status: 502 }, { fault: 'http', status: 503 });
        const error = await failure(collect(make()));
        assert.equal(error.kind, 'server');
        assert.match(error.message, /server error \(HTTP 503\)/);
        assert.equal(server.requests.length, 3);
      });

      it('recovers from a reset connection by retrying', async () => {
        server.enqueue({ fault: 'reset' }, { text: 'second try' });
        assert.equal(text(await collect(make())), 'second try');
      });

      it('reports a connection that stays down as a network error', async () => {
        server.enqueue({ fault: 'reset' }, { fault: 'reset' }, { fault: 'reset' });
        const error = await failure(collect(make()));
        assert.equal(error.kind, 'network');
        assert.match(error.message, /Cannot reach/);
      });

      it('stops a stream that stalls, with an idle-timeout error', async () => {
        server.enqueue({ chunks: ['one ', 'two ', 'three ', 'four'], fault: 'stall' });
        const started = Date.now();
        const error = await failure(collect(make()));
        assert.equal(error.kind, 'timeout');
        assert.match(error.message, /sent nothing for 2 s/);
        assert.ok(Date.now() - started < 5000);
      });

      it('reports a malformed event as a protocol error', async () => {
        server.enqueue({ chunks: ['a', 'b', 'c'], fault: 'malformed' });
        const error = await failure(collect(make()));
        assert.equal(error.kind, 'protocol');
      });

      it('reports a stream cut inside tool arguments, and yields no half call', async () => {
        server.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'some/long/path/to/file.txt' } }], fault: 'cut-in-tool-args' });
        const events: ProviderEvent[] = [];
        const error = await failure(
          (async () => {
            for await (const event of make().stream({ messages: HELLO, tools: TOOLS })) events.push(event);
          })(),
        );
        assert.equal(error.kind, 'protocol');
        assert.match(error.message, /broke off/);
        assert.deepEqual(calls(events), []);
      });

      it('reports a stream cut inside the text', async () => {
        server.enqueue({ chunks: ['a', 'b', 'c', 'd'], fault: 'cut-in-text' });
        const error = await failure(collect(make()));
        assert.equal(error.kind, 'protocol');
        assert.match(error.message, /broke off before it was finished/);
      });

      it('stops at once when aborted mid-stream', async () => {
        server.enqueue({ chunks: Array.from({ length: 50 }, (_, i) => `w${i} `), chunkDelayMs: 50 });
        const controller = new AbortController();
        const seen: string[] = [];
        const error = await failure(
          (async () => {
            for await (const event of make().stream({ messages: HELLO, tools: TOOLS, signal: controller.signal })) {
              if (event.type === 'text') seen.push(event.text);
              if (seen.length === 3) controller.abort();
            }
          })(),
        );
        assert.equal(error.kind, 'aborted');
        assert.ok(seen.length < 10);
      });
    });
  }

  describe('ollama', () => {
    it('defaults to the local Ollama address and needs no key', () => {
      const provider = new OllamaProvider({ model: '' });
      assert.equal(provider.baseURL, OLLAMA_DEFAULT_BASE_URL);
      assert.equal(provider.name, 'ollama');
      assert.equal(provider.model, 'qwen2.5:7b');
    });

    it('talks the OpenAI format to a custom address', async () => {
      server.enqueue({ text: 'from ollama' });
      const provider = new OllamaProvider({ baseURL: server.openaiBaseUrl, model: 'llama3.1' });
      assert.equal(text(await collect(provider)), 'from ollama');
      assert.equal((server.requests[0].body as { model: string }).model, 'llama3.1');
    });

    it('says to start Ollama when nothing listens', async () => {
      const port = await closedPort();
      const provider = new OllamaProvider({ baseURL: `http://127.0.0.1:${port}/v1`, model: 'x', maxRetries: 0 });
      const error = await failure(collect(provider));
      assert.equal(error.kind, 'network');
      assert.match(error.message, new RegExp(`Cannot reach Ollama at http://127\\.0\\.0\\.1:${port}/v1 \\(ECONNREFUSED\\)\\. Is Ollama running`));
    });
  });

  describe('gemini specifics', () => {
    it('maps a 400 "API key not valid" to an auth error', async () => {
      server.enqueue({ fault: 'http', status: 400, errorMessage: 'API key not valid. Please pass a valid API key.' });
      const error = await failure(collect(kinds.gemini()));
      assert.equal(error.kind, 'auth');
    });

    it('keeps function call ids and thought signatures and sends them back', async () => {
      server.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '1' } }], withCallIds: true, thoughtSignature: 'sig-abc' });
      const [call] = calls(await collect(kinds.gemini()));
      assert.deepEqual(call.providerData, { geminiId: 'gem-0', thoughtSignature: 'sig-abc' });
      const request = toGeminiRequest({
        messages: [...HELLO, { role: 'assistant', content: '', toolCalls: [call] }, { role: 'tool', toolCallId: call.id, name: 'calculator', content: '1' }],
        tools: [],
      }) as { contents: { parts: Record<string, unknown>[] }[] };
      assert.deepEqual(request.contents[1].parts[0], { functionCall: { id: 'gem-0', name: 'calculator', args: { expression: '1' } }, thoughtSignature: 'sig-abc' });
      assert.deepEqual(request.contents[2].parts[0], { functionResponse: { id: 'gem-0', name: 'calculator', response: { result: '1' } } });
    });

    it('merges consecutive turns of one role (a retried user message, several tool results)', () => {
      const request = toGeminiRequest({
        messages: [
          { role: 'user', content: 'first' },
          { role: 'user', content: 'second' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'a', name: 'x', arguments: '{}' }, { id: 'b', name: 'y', arguments: 'not json' }] },
          { role: 'tool', toolCallId: 'a', name: 'x', content: '1' },
          { role: 'tool', toolCallId: 'b', name: 'y', content: '2' },
        ],
        tools: [],
      }) as { contents: { role: string; parts: Record<string, unknown>[] }[] };
      assert.deepEqual(request.contents.map((c) => [c.role, c.parts.length]), [['user', 2], ['model', 2], ['user', 2]]);
      assert.deepEqual(request.contents[1].parts[1], { functionCall: { name: 'y', args: {} } });
    });

    it('strips the models/ prefix and uses the v1beta path', async () => {
      server.enqueue({ text: 'ok' });
      await collect(new GeminiProvider({ apiKey: 'k', baseURL: server.geminiBaseUrl, model: 'models/gemini-x' }));
      assert.equal(server.requests[0].path, '/v1beta/models/gemini-x:streamGenerateContent');
    });
  });
});

describe('provider error text', () => {
  const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] ?? null });

  it('reduces JSON, HTML, text and junk bodies to one short line', () => {
    assert.equal(describeBody('{"error":{"message":"Model overloaded","type":"server_error"}}'), 'Model overloaded');
    assert.equal(describeBody('{"detail":"Not authenticated"}'), 'Not authenticated');
    assert.equal(describeBody(`{"error":{"message":"cut off here ${'y'.repeat(10)}`), `cut off here ${'y'.repeat(10)}`, 'a cut JSON body still yields its message');
    assert.equal(describeBody('<html><head><title>Gateway Timeout</title></head><body>…</body></html>'), 'Gateway Timeout');
    assert.equal(describeBody('\u0000\u0001\u0002binary'), '(9 bytes of binary data)');
    assert.equal(describeBody('\u001b[1mbold\u001b[0m\r\nnext line'), 'bold next line');
  });

  it('never lets a message pass its bound, a long word included', () => {
    assert.equal(boundedText('x'.repeat(10_000)).length, 81);
    assert.ok(boundedText('word '.repeat(10_000)).length <= 500);
    assert.ok(new ProviderError('z '.repeat(100_000), { kind: 'server', provider: 'openai' }).message.length <= 500);
  });

  it('reads Retry-After as seconds, an HTTP date, or not at all', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    assert.equal(retryAfterMs(headers({ 'retry-after': '7' }), now), 7000);
    assert.equal(retryAfterMs(headers({ 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }), now), 30_000);
    assert.equal(retryAfterMs(headers({ 'retry-after': '-5' }), now), undefined);
    assert.equal(retryAfterMs(headers({ 'retry-after': 'soon' }), now), undefined);
    assert.equal(retryAfterMs(headers({ 'retry-after': '9'.repeat(400) }), now), 24 * 60 * 60 * 1000, 'capped at a day');
    assert.equal(retryAfterMs(headers({ 'retry-after-ms': '1500' }), now), 1500);
  });
});
