import * as assert from 'node:assert/strict';
import { Agent, ANSWER_CUT_NOTICE, MAX_ANSWER_CHARS, type AgentEvent } from '../../../src/agent/agent';
import { MAX_ERROR_MESSAGE_CHARS } from '../../../src/providers/errorText';
import { ProviderError } from '../../../src/providers/errors';
import { GeminiProvider } from '../../../src/providers/gemini';
import { OpenAIProvider } from '../../../src/providers/openai';
import type { ChatProvider, ProviderTimeouts } from '../../../src/providers/types';
import { ToolRegistry } from '../../../src/tools/registry';
import { FakeTool } from '../../support/fakeTools';
import { ModelServer, type RecordedRequest } from '../../support/modelServer';

/**
 * Hostile servers: error pages, junk bodies, stalls, resets, floods and nonsense headers.
 * Each case asserts on what the server saw (requests, whether the client stopped reading),
 * on the Agent's history, and on the tool spy, not only on the message text.
 */

const IDLE_MS = 250;
/** A generous guard against hangs, far above any expected duration; never a speed assertion. */
const HANG_GUARD_MS = 10_000;

async function drain(events: AsyncIterable<AgentEvent>): Promise<AgentEvent[]> {
  const out: AgentEvent[] = [];
  for await (const event of events) out.push(event);
  return out;
}

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  let timer: NodeJS.Timeout | undefined;
  const guard = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error('hung')), HANG_GUARD_MS)));
  try {
    await Promise.race([promise, guard]);
  } catch (error) {
    assert.ok(error instanceof ProviderError, `expected a ProviderError, got ${String(error)}`);
    return error;
  } finally {
    clearTimeout(timer);
  }
  assert.fail('expected the call to fail');
}

async function eventually(condition: () => boolean, what: string): Promise<void> {
  for (let waited = 0; !condition(); waited += 10) {
    if (waited > HANG_GUARD_MS) assert.fail(`never happened: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** The event loop still turns: a timer set now fires. */
async function assertResponsive(): Promise<void> {
  await new Promise<void>((resolve, reject) => {
    const guard = setTimeout(() => reject(new Error('event loop blocked')), 2000);
    setTimeout(() => {
      clearTimeout(guard);
      resolve();
    }, 0);
  });
}

function assertReadable(error: ProviderError, status: number, origin: string): void {
  assert.ok(error.message.length <= MAX_ERROR_MESSAGE_CHARS, `${error.message.length} characters`);
  assert.ok(error.message.includes(`HTTP ${status}`), error.message);
  // A custom OpenAI-compatible server is named by its host; OpenAI, Ollama and Gemini by name and address.
  assert.ok(error.message.includes(origin) || error.message.includes(`server at ${new URL(origin).host}`), `names the endpoint: ${error.message}`);
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  assert.doesNotMatch(error.message, /[\u0000-\u0008\u000b-\u001f\u007f]/, 'no control characters');
  assert.doesNotMatch(error.message, /\S{100,}/, 'no endless word');
}

const historyChars = (agent: Agent) => agent.history.reduce((sum, m) => sum + m.content.length + (m.role === 'assistant' ? JSON.stringify(m.toolCalls ?? []).length : 0), 0);

describe('hostile: provider faults', function () {
  this.timeout(30_000);
  let server: ModelServer;
  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());
  beforeEach(() => server.reset());

  const formats: Record<string, (options?: ProviderTimeouts) => ChatProvider> = {
    openai: (options) => new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', idleTimeoutMs: IDLE_MS, maxRetries: 0, maxRetryWaitMs: 2000, ...options }),
    gemini: (options) => new GeminiProvider({ apiKey: 'k', baseURL: server.geminiBaseUrl, model: 'g', idleTimeoutMs: IDLE_MS, maxRetries: 0, maxRetryWaitMs: 2000, ...options }),
  };

  for (const [format, makeProvider] of Object.entries(formats)) {
    describe(format, () => {
      let spy: FakeTool;
      let agent: Agent;
      const request = (index = 0): RecordedRequest => server.requests[index];
      beforeEach(() => {
        const registry = new ToolRegistry();
        spy = new FakeTool('echo', (args) => `echo:${String(args.value)}`);
        registry.register(spy);
        agent = new Agent(makeProvider(), { toolRegistry: registry, systemPrompt: '' });
      });
      // The server shares this process: floods get a patient idle timeout, so a busy event loop is not read as a stall.
      const patient = () => new Agent(makeProvider({ idleTimeoutMs: 10_000 }), { toolRegistry: new ToolRegistry(), systemPrompt: '' });

      it('a 500 with a 140 KB HTML page becomes one short line: the page title, the status, the endpoint', async () => {
        const page = `<!DOCTYPE html><html><head><title>502 Bad Gateway &amp; friends</title><style>${'p{}'.repeat(1000)}</style></head><body>${'<p>filler text</p>'.repeat(8000)}</body></html>`;
        assert.ok(page.length > 140_000);
        server.enqueue({ raw: { status: 500, contentType: 'text/html', body: page } });
        const error = await failure(agent.chat('Hi'));
        assertReadable(error, 500, server.origin);
        assert.match(error.message, /502 Bad Gateway & friends/);
        assert.doesNotMatch(error.message, /<|filler/);
        assert.equal(error.kind, 'server');
        assert.deepEqual(agent.history.map((m) => m.role), ['user'], 'the question stays, nothing else');
      });

      it('an HTML error page without a title is reduced to its first text', async () => {
        server.enqueue({ raw: { status: 503, contentType: 'text/html', body: `<html><body><script>var x = "${'s'.repeat(5000)}";</script><h1>Service   Unavailable</h1>${'<div>more</div>'.repeat(2000)}</body></html>` } });
        const error = await failure(agent.chat('Hi'));
        assertReadable(error, 503, server.origin);
        assert.match(error.message, /: Service Unavailable more more/);
        assert.doesNotMatch(error.message, /sss|<script/);
      });

      it('a JSON error with a 1 MB message is cut to the first part of that message', async () => {
        const message = `Quota exceeded for this project. ${'x'.repeat(1024 * 1024)}`;
        const body = format === 'openai' ? { error: { message, type: 'server_error' } } : { error: { code: 400, message, status: 'FAILED_PRECONDITION' } };
        server.enqueue({ raw: { status: 400, contentType: 'application/json', body: JSON.stringify(body) } });
        const error = await failure(agent.chat('Hi'));
        assertReadable(error, 400, server.origin);
        assert.match(error.message, /refused the request \(HTTP 400\)( at .*)?: Quota exceeded for this project\. x+…/);
        assert.equal(error.kind, 'bad_request');
      });

      it('a binary error body is named as binary, never quoted', async () => {
        const junk = Buffer.from(Array.from({ length: 50_000 }, (_, i) => (i * 7919) % 256));
        server.enqueue({ raw: { status: 502, contentType: 'application/octet-stream', body: junk } });
        const error = await failure(agent.chat('Hi'));
        assertReadable(error, 502, server.origin);
        assert.match(error.message, /binary data/);
      });

      it('terminal escapes and control characters in an error body are removed', async () => {
        const body = '\u001b[31mERROR\u001b[0m: \u001b]0;pwned title\u0007upstream \u0007\u0008failed\r\n\u001b[2J\u001b[HClear screen';
        server.enqueue({ raw: { status: 500, contentType: 'text/plain', body } });
        const error = await failure(agent.chat('Hi'));
        assertReadable(error, 500, server.origin);
        // eslint-disable-next-line no-control-regex -- matching control characters is the point
        assert.doesNotMatch(error.message, /\u001b|pwned title|\[31m/);
        assert.match(error.message, /ERROR: upstream failed Clear screen/);
      });

      it('a very long single word in an error is shortened', async () => {
        server.enqueue({ raw: { status: 429, contentType: 'text/plain', body: `token:${'A'.repeat(200_000)} end`, headers: { 'retry-after': '30' } } });
        const error = await failure(agent.chat('Hi'));
        assertReadable(error, 429, server.origin);
        assert.equal(error.kind, 'rate_limit');
        assert.match(error.message, /Try again in 30 s/);
      });

      it('chat(): a server that sends headers and then stalls the JSON body ends with the idle timeout', async () => {
        server.enqueue({ fault: 'stall-after-headers' });
        const error = await failure(agent.chat('Hi'));
        assert.equal(error.kind, 'timeout');
        assert.match(error.message, /sent nothing for 1 s; the request was stopped/);
        assert.equal(request().stream, false);
        await eventually(() => request().clientClosed, 'the client closed the stalled connection');
        assert.deepEqual(agent.history.map((m) => m.role), ['user']);
        server.enqueue({ text: 'Recovered.' });
        assert.equal(await drain(agent.resume({ stream: false })).then((e) => (e.at(-1) as { text: string }).text), 'Recovered.');
      });

      it('streamChat(): a server that sends headers and then no event ends with the idle timeout', async () => {
        server.enqueue({ fault: 'stall-after-headers' });
        const events: AgentEvent[] = [];
        const error = await failure((async () => {
          for await (const event of agent.streamChat('Hi')) events.push(event);
        })());
        assert.equal(error.kind, 'timeout');
        assert.ok(events.some((e) => e.type === 'error'));
        await eventually(() => request().clientClosed, 'the client closed the stalled stream');
      });

      it('an error whose body stalls after the first bytes still ends, with what arrived', async () => {
        server.enqueue({ fault: 'stall-after-headers', status: 500, errorMessage: 'Backend exploded' });
        const error = await failure(drain(agent.streamChat('Hi')));
        assertReadable(error, 500, server.origin);
        assert.equal(error.kind, 'server');
        assert.match(error.message, /Backend exploded/);
        await eventually(() => request().clientClosed, 'the client closed the stalled error body');
      });

      it('a stream that stalls mid-answer ends with the idle timeout and keeps the question', async () => {
        server.enqueue({ chunks: ['one ', 'two ', 'three ', 'four'], fault: 'stall' });
        const error = await failure(drain(agent.streamChat('Count')));
        assert.equal(error.kind, 'timeout');
        assert.deepEqual(agent.history.map((m) => m.role), ['user']);
        await eventually(() => request().clientClosed, 'the client closed the stalled stream');
      });

      it('a connection reset in the middle of a tool call runs nothing', async () => {
        server.enqueue({ toolCalls: [{ name: 'echo', arguments: { value: 'must never run' } }], fault: 'reset-mid-stream' });
        const error = await failure(drain(agent.streamChat('Go')));
        assert.ok(['protocol', 'network'].includes(error.kind), error.kind);
        assert.equal(spy.calls.length, 0, 'the tool did not run');
        assert.deepEqual(agent.history.map((m) => m.role), ['user']);
      });

      it('a 50 MB streamed answer is cut at the limit with a notice, and the server is not read further', async () => {
        const agent = patient();
        const chunk = 'a'.repeat(64 * 1024);
        server.enqueue({ repeat: { chunk, times: 800 } });
        const events = await drain(agent.streamChat('Write forever'));
        const streamed = events.flatMap((e) => (e.type === 'text' ? [e.text] : []));
        assert.equal(streamed.at(-1), ANSWER_CUT_NOTICE);
        assert.equal(streamed.join('').length, MAX_ANSWER_CHARS + ANSWER_CUT_NOTICE.length);
        const done = events.at(-1) as Extract<AgentEvent, { type: 'done' }>;
        assert.equal(done.truncated, true);
        assert.equal(done.reason, 'stop');
        const kept = agent.history.at(-1)!;
        assert.equal(kept.role, 'assistant');
        assert.equal(kept.content.length, MAX_ANSWER_CHARS + ANSWER_CUT_NOTICE.length, 'only the cut text is kept');
        await eventually(() => request().clientClosed, 'the client stopped reading');
        assert.ok(request().bytesWritten < 25 * 1024 * 1024, `the server wrote ${request().bytesWritten} bytes of 52 MB`);
        server.enqueue({ text: 'Short now.' });
        await drain(agent.streamChat('Shorter please'));
        const resent = JSON.stringify(request(1).body).length;
        assert.ok(resent < MAX_ANSWER_CHARS + 10_000, `the next request carries the cut answer only (${resent} characters)`);
      });

      it('chat(): a 3 MB JSON answer is cut at the limit with the notice', async () => {
        const agent = patient();
        server.enqueue({ repeat: { chunk: 'b'.repeat(1000), times: 3000 } });
        const text = await agent.chat('Write a lot');
        assert.ok(text.endsWith(ANSWER_CUT_NOTICE.trim()));
        assert.ok(historyChars(agent) < MAX_ANSWER_CHARS + 1000, `${historyChars(agent)} characters kept`);
      });

      it('an answer of 20,000 one-character chunks arrives whole', async () => {
        const agent = patient();
        const chunks = Array.from({ length: 20_000 }, (_, i) => String.fromCharCode(97 + (i % 26)));
        server.enqueue({ chunks });
        const events = await drain(agent.streamChat('Spell'));
        assert.equal((events.at(-1) as { text: string }).text, chunks.join(''));
        assert.equal(agent.history.at(-1)?.content, chunks.join(''));
        await assertResponsive();
      });

      it('one 10 MB event is cut at the limit', async () => {
        const agent = patient();
        server.enqueue({ chunks: ['start ', 'z'.repeat(10 * 1024 * 1024)] });
        const events = await drain(agent.streamChat('Big line'));
        assert.equal((events.at(-1) as { truncated?: boolean }).truncated, true);
        assert.equal(agent.history.at(-1)?.content.length, MAX_ANSWER_CHARS + ANSWER_CUT_NOTICE.length);
      });

      it('a malformed event is a protocol error and nothing is kept', async () => {
        server.enqueue({ chunks: ['a', 'b', 'c'], fault: 'malformed' });
        const error = await failure(drain(agent.streamChat('Hi')));
        assert.equal(error.kind, 'protocol');
        assert.ok(error.message.length <= MAX_ERROR_MESSAGE_CHARS);
        assert.deepEqual(agent.history.map((m) => m.role), ['user']);
      });

      it('an event stream of binary junk and escapes is a short protocol error', async () => {
        const junk = `data: \u001b[31m${'\u0000\u0001'.repeat(1000)}\n\n: comment\n\nevent: x\ndata: ${'{'.repeat(5000)}\n\n`;
        server.enqueue({ raw: { status: 200, contentType: 'text/event-stream', body: junk } });
        const error = await failure(drain(agent.streamChat('Hi')));
        assert.equal(error.kind, 'protocol');
        assert.ok(error.message.length <= MAX_ERROR_MESSAGE_CHARS, `${error.message.length}`);
        // eslint-disable-next-line no-control-regex -- matching control characters is the point
        assert.doesNotMatch(error.message, /[\u0000-\u001f]/);
        await assertResponsive();
      });

      it('a JSON answer that is not JSON is a short protocol error', async () => {
        server.enqueue({ raw: { status: 200, contentType: 'application/json', body: `<html>${'x'.repeat(100_000)}</html>` } });
        const error = await failure(agent.chat('Hi'));
        assert.equal(error.kind, 'protocol');
        assert.ok(error.message.length <= MAX_ERROR_MESSAGE_CHARS);
      });

      for (const [label, value, requests] of [
        ['absurdly large', '99999999999999999999', 1],
        ['negative', '-5', 2],
        ['garbage', 'soon, maybe', 2],
      ] as const) {
        it(`a Retry-After that is ${label} neither hangs nor breaks the message`, async () => {
          const retrying = new Agent(makeProvider({ maxRetries: 1 }), { toolRegistry: new ToolRegistry(), systemPrompt: '' });
          server.enqueue({ fault: 'http', status: 429, retryAfter: value }, { text: 'after the wait' });
          if (requests === 1) {
            const error = await failure(retrying.chat('Hi'));
            assert.equal(error.kind, 'rate_limit');
            assert.match(error.message, /Try again in 1440 min\./);
            assert.equal(error.retryAfterMs, 24 * 60 * 60 * 1000);
          } else {
            assert.equal(await retrying.chat('Hi'), 'after the wait');
          }
          assert.equal(server.requests.length, requests);
        });
      }

      it('a redirect loop ends with a network error after a bounded number of requests', async () => {
        server.setFallback((req) => ({ raw: { status: 307, headers: { location: req.path + (req.format === 'gemini' ? '?alt=sse' : '') }, body: '' } }));
        const error = await failure(drain(agent.streamChat('Hi')));
        // fetch gives up after 20 hops (network); on a busy machine the idle timeout may come first.
        assert.ok(['network', 'timeout'].includes(error.kind), error.message);
        assert.ok(server.requests.length <= 25, `${server.requests.length} requests`);
        assert.ok(error.message.length <= MAX_ERROR_MESSAGE_CHARS);
      });
    });
  }
});
