import * as assert from 'node:assert/strict';
import { errorActions, errorItem } from '../../src/chat/errorItem';
import { ChatSetupError } from '../../src/chat/chatController';
import { describeReport } from '../../src/providers/connectionTest';
import { endpointName, httpError, idleTimeoutError, networkError, providerDisplayName, ProviderError, withRetryNote } from '../../src/providers/errors';
import { withRetries } from '../../src/providers/streaming';

describe('error wording: the endpoint, retries, and the action that fixes it', () => {
  it('names a custom OpenAI-compatible server by its host, the known services by name', () => {
    assert.equal(endpointName('openai', 'http://127.0.0.1:1234/v1'), 'the server at 127.0.0.1:1234');
    assert.equal(endpointName('openai', 'https://api.openai.com/v1'), 'OpenAI');
    assert.equal(endpointName('openai'), 'OpenAI');
    assert.equal(endpointName('ollama', 'http://127.0.0.1:11434'), 'Ollama');
    assert.equal(endpointName('gemini', 'https://generativelanguage.googleapis.com'), 'Gemini');
    assert.equal(providerDisplayName('openai', 'http://localhost:8000/v1'), 'localhost:8000');
    assert.equal(providerDisplayName('vscode'), 'VS Code');
    assert.equal(providerDisplayName('gemini'), 'Gemini');
  });

  it("says a local server's 500 came from that server, not from OpenAI", () => {
    const error = httpError('openai', 500, '{"error":{"message":"CUDA out of memory"}}', { model: 'qwen', url: 'http://127.0.0.1:1234/v1' });
    assert.equal(error.message, 'The server at 127.0.0.1:1234 had a server error (HTTP 500): CUDA out of memory. Try again.');
    const openai = httpError('openai', 500, '', { model: 'gpt-4o-mini', url: 'https://api.openai.com/v1' });
    assert.equal(openai.message, 'OpenAI had a server error (HTTP 500) at https://api.openai.com/v1. Try again.');
  });

  it('names the host when a local server cannot be reached or goes silent', () => {
    const cause = Object.assign(new Error('connect'), { code: 'ECONNREFUSED' });
    assert.equal(
      networkError('openai', 'http://127.0.0.1:1234/v1', cause).message,
      'Cannot reach the server at 127.0.0.1:1234 (ECONNREFUSED). Is the server running? Check `toolbelt.baseUrl` and your connection.',
    );
    assert.match(networkError('ollama', 'http://127.0.0.1:11434', cause).message, /^Cannot reach Ollama at http:\/\/127\.0\.0\.1:11434 \(ECONNREFUSED\)\. Is Ollama running \(`ollama serve`\)\?$/);
    assert.match(idleTimeoutError('openai', 60_000, 'http://10.0.0.5:8000/v1').message, /^The server at 10\.0\.0\.5:8000 sent nothing for 60 s/);
  });

  it('says how many times the request was sent when automatic retries failed, and keeps the kind', async () => {
    let calls = 0;
    const failing = () => {
      calls++;
      // retryAfterMs 0: the retries happen at once, no waiting on the wall clock.
      return Promise.reject(new ProviderError('The server at 127.0.0.1:1234 had a server error (HTTP 503): overloaded. Try again.', { kind: 'server', provider: 'openai', status: 503, retryAfterMs: 0 }));
    };
    const error = await withRetries(failing, { maxRetries: 2, maxRetryWaitMs: 10_000 }).then(
      () => assert.fail('expected a failure'),
      (e: unknown) => e as ProviderError,
    );
    assert.equal(calls, 3);
    assert.equal(error.kind, 'server');
    assert.equal(error.retries, 2);
    assert.equal(error.message, 'The server at 127.0.0.1:1234 had a server error (HTTP 503): overloaded. Try again. Toolbelt tried 3 times.');
  });

  it('says nothing of retries when there were none, and keeps the note within the length limit', () => {
    const error = new ProviderError('x'.repeat(40) + ' ' + 'word '.repeat(200), { kind: 'server', provider: 'openai' });
    assert.equal(withRetryNote(error, 0), error);
    const noted = withRetryNote(error, 2);
    assert.ok(noted.message.length <= 500, String(noted.message.length));
    assert.match(noted.message, /… Toolbelt tried 3 times\.$/);
  });

  it('offers the actions that fix each kind of failure, the likeliest first', () => {
    assert.deepEqual(errorActions({ kind: 'network' }), ['connectModel', 'switchModel', 'openSettings']);
    assert.deepEqual(errorActions({ kind: 'auth' }), ['setApiKey', 'connectModel']);
    assert.deepEqual(errorActions({ kind: 'not_found' }), ['switchModel', 'connectModel']);
    assert.deepEqual(errorActions({ kind: 'timeout' }), ['openSettings', 'switchModel']);
    assert.deepEqual(errorActions({ kind: 'server' }), ['switchModel']);
    assert.deepEqual(errorActions({ kind: 'aborted' }), []);
    assert.deepEqual(errorActions({ action: 'setApiKey' }), ['connectModel', 'setApiKey'], 'nothing set up yet: connect first');
    assert.deepEqual(errorActions({ action: 'switchModel' }), ['switchModel', 'connectModel']);
  });

  it('makes a setup problem and a provider failure into retryable cards with their actions', () => {
    const setup = errorItem(new ChatSetupError('No OpenAI API key is set.', 'setApiKey'), 'e1');
    assert.deepEqual(setup, { kind: 'error', id: 'e1', message: 'No OpenAI API key is set.', action: 'connectModel', actions: ['connectModel', 'setApiKey'], retryable: true });
    const failure = errorItem(new ProviderError('Cannot reach Ollama.', { kind: 'network', provider: 'ollama' }), 'e2');
    assert.deepEqual(failure.kind === 'error' && failure.actions, ['connectModel', 'switchModel', 'openSettings']);
    const plain = errorItem('boom', 'e3');
    assert.deepEqual(plain, { kind: 'error', id: 'e3', message: 'boom', action: undefined, actions: [], retryable: true });
  });

  it('says what the connection test showed', () => {
    assert.equal(describeReport({ streamed: true, toolCalled: true, reply: '' }), 'Streaming works. Tool calls work.');
    assert.equal(describeReport({ streamed: true, toolCalled: false, reply: 'OK' }), 'Streaming works. Tools were accepted, but the model answered without calling the test tool.');
    assert.equal(describeReport({ streamed: true, toolCalled: false, toolsRefused: 'HTTP 400', reply: 'OK' }), 'Streaming works. The model does not take tools; Toolbelt will describe them in the prompt instead.');
  });
});
