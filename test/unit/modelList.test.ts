import * as assert from 'node:assert/strict';
import { ProviderError } from '../../src/providers/errors';
import { detectLocalServers, listEndpoint, listModels } from '../../src/providers/modelList';
import { ModelServer } from '../support/modelServer';

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ProviderError, String(error));
    return error;
  }
  throw new Error('expected a failure');
}

describe('model lists (/v1/models, /api/tags, Gemini) against the scripted server', () => {
  let server: ModelServer;
  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());
  afterEach(() => {
    server.modelLists.clearFault();
    server.modelLists.requests.length = 0;
  });

  it("lists an OpenAI-compatible server's models and sends the key as a bearer token", async () => {
    server.modelLists.models.openai = ['qwen2.5-7b-instruct', 'llama-3.2-3b', 'qwen2.5-7b-instruct'];
    const models = await listModels({ provider: 'openai', baseUrl: server.openaiBaseUrl, apiKey: 'sk-local' });
    assert.deepEqual(models.map((m) => m.id), ['qwen2.5-7b-instruct', 'llama-3.2-3b'], 'duplicates dropped, order kept');
    assert.equal(server.modelLists.requests[0].headers.authorization, 'Bearer sk-local');
  });

  it("lists Ollama's models from /api/tags, whether the base URL ends in /v1 or not", async () => {
    for (const baseUrl of [server.ollamaBaseUrl, `${server.ollamaBaseUrl}/v1/`]) {
      const models = await listModels({ provider: 'ollama', baseUrl });
      assert.deepEqual(models.map((m) => m.id), ['scripted-ollama:latest', 'text-only:latest']);
    }
  });

  it("lists Gemini's generateContent models without the models/ prefix, with the key in a header", async () => {
    const models = await listModels({ provider: 'gemini', baseUrl: server.geminiBaseUrl, apiKey: 'AIza-test' });
    assert.deepEqual(models.map((m) => m.id), ['scripted-gemini']);
    assert.equal(server.modelLists.requests[0].headers['x-goog-api-key'], 'AIza-test');
  });

  it('turns 401 into an auth error that names the server by its host and says what to do', async () => {
    server.modelLists.fail('openai', { kind: 'http', status: 401, message: 'Invalid API key' });
    const error = await failure(listModels({ provider: 'openai', baseUrl: server.openaiBaseUrl }));
    assert.equal(error.kind, 'auth');
    assert.equal(error.message, `The server at ${new URL(server.origin).host} rejected the API key (HTTP 401): Invalid API key. Set a valid key with "Toolbelt: Set API Key".`);
  });

  it('names Ollama by name and address when its list fails', async () => {
    server.modelLists.fail('ollama', { kind: 'http', status: 500, message: 'boom' });
    const error = await failure(listModels({ provider: 'ollama', baseUrl: server.ollamaBaseUrl }));
    assert.equal(error.kind, 'server');
    assert.match(error.message, /^Ollama at http:\/\/127\.0\.0\.1:\d+ could not list its models \(HTTP 500\): boom\.$/);
  });

  it('gives up on a list that never arrives within the timeout', async () => {
    server.modelLists.fail('openai', { kind: 'stall' });
    const started = Date.now();
    const error = await failure(listModels({ provider: 'openai', baseUrl: server.openaiBaseUrl, timeoutMs: 300 }));
    assert.equal(error.kind, 'timeout');
    assert.match(error.message, /did not send its model list within 1 s\. Is the server running\?/);
    assert.ok(Date.now() - started < 5000);
  });

  it('stops at once when the caller aborts', async () => {
    server.modelLists.fail('openai', { kind: 'stall' });
    const abort = new AbortController();
    const pending = listModels({ provider: 'openai', baseUrl: server.openaiBaseUrl, signal: abort.signal, timeoutMs: 60_000 });
    setImmediate(() => abort.abort());
    const error = await failure(pending);
    assert.equal(error.kind, 'aborted');
  });

  it('refuses a list larger than the cap without reading the rest', async () => {
    server.modelLists.fail('openai', { kind: 'oversized', bytes: 2_000_000 });
    const error = await failure(listModels({ provider: 'openai', baseUrl: server.openaiBaseUrl, maxBytes: 64 * 1024 }));
    assert.equal(error.kind, 'protocol');
    assert.match(error.message, /sent a model list over 64 KB; Toolbelt reads no more\.$/);
  });

  it('says so when the list is not JSON, or holds no list', async () => {
    server.modelLists.fail('openai', { kind: 'malformed' });
    const malformed = await failure(listModels({ provider: 'openai', baseUrl: server.openaiBaseUrl }));
    assert.equal(malformed.kind, 'protocol');
    assert.match(malformed.message, /sent a model list that is not JSON/);
    // Gemini's list where an OpenAI-compatible one was expected: JSON, but no `data`.
    const wrongShape = await failure(listModels({ provider: 'openai', baseUrl: `${server.origin}/v1beta` }));
    assert.equal(wrongShape.kind, 'protocol');
    assert.match(wrongShape.message, /sent a reply that holds no model list\.$/);
    const missing = await failure(listModels({ provider: 'openai', baseUrl: `${server.origin}/nothing-here` }));
    assert.equal(missing.kind, 'not_found');
    assert.match(missing.message, /has no model list at http:\/\/127\.0\.0\.1:\d+\/nothing-here\/models \(HTTP 404\)\. Check the base URL\.$/);
  });

  it('explains an unreachable server', async () => {
    const closed = await ModelServer.start();
    const origin = closed.origin;
    await closed.close();
    const error = await failure(listModels({ provider: 'openai', baseUrl: `${origin}/v1` }));
    assert.equal(error.kind, 'network');
    assert.match(error.message, /^The server at 127\.0\.0\.1:\d+ cannot be reached \(ECONNREFUSED\)\. Is the server running, and is the address right\?$/);
  });

  it('detects the local servers that answer and leaves out the rest', async () => {
    const closed = await ModelServer.start();
    const gone = closed.origin;
    await closed.close();
    const found = await detectLocalServers({
      timeoutMs: 1000,
      servers: [
        { provider: 'ollama', name: 'Ollama', baseUrl: server.ollamaBaseUrl },
        { provider: 'openai', name: 'LM Studio', baseUrl: `${gone}/v1` },
      ],
    });
    assert.deepEqual(found.map((s) => [s.name, s.models.length]), [['Ollama', 2]]);
  });

  it('builds each service’s list address', () => {
    assert.equal(listEndpoint('openai', 'https://api.openai.com/v1').url, 'https://api.openai.com/v1/models');
    assert.equal(listEndpoint('ollama', 'http://127.0.0.1:11434/v1').url, 'http://127.0.0.1:11434/api/tags');
    assert.equal(listEndpoint('gemini', 'https://generativelanguage.googleapis.com').url, 'https://generativelanguage.googleapis.com/v1beta/models?pageSize=1000');
  });
});
