import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { endpointLabel, endpointOf, keyRequired, keyVariable, secretName } from '../../src/providers/endpoints';
import type * as ApiKeysModule from '../../src/vscode/apiKeys';
import { requireWithVscode } from '../support/withFakeVscode';
import { FakeSecretStorage } from '../support/fakeQuickInput';

const OUT = path.resolve(__dirname, '../../src/vscode');

function loadApiKeys(): typeof ApiKeysModule {
  return requireWithVscode<typeof ApiKeysModule>({ workspace: {} }, [path.join(OUT, 'apiKeys.js'), path.join(OUT, 'settings.js')]);
}

describe('One API key per endpoint', () => {
  const savedEnv = { OPENAI_API_KEY: process.env.OPENAI_API_KEY, GEMINI_API_KEY: process.env.GEMINI_API_KEY };
  afterEach(() => {
    for (const [name, value] of Object.entries(savedEnv)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
  });

  describe('endpoints', () => {
    it('names a provider at a host; the default host is the provider\'s own service', () => {
      assert.deepEqual(endpointOf('openai'), { provider: 'openai', host: 'api.openai.com', official: true });
      assert.deepEqual(endpointOf('openai', 'https://API.openai.com/v1/'), { provider: 'openai', host: 'api.openai.com', official: true });
      assert.deepEqual(endpointOf('openai', 'http://127.0.0.1:1234/v1'), { provider: 'openai', host: '127.0.0.1:1234', official: false });
      assert.deepEqual(endpointOf('ollama', 'http://127.0.0.1:11434'), { provider: 'ollama', host: '127.0.0.1:11434', official: true });
      assert.equal(endpointOf('gemini', 'https://proxy.example.com').official, false);
    });

    it('asks a key only of OpenAI\'s and Gemini\'s own services, and reads their variables only for them', () => {
      assert.equal(keyRequired(endpointOf('openai')), true);
      assert.equal(keyRequired(endpointOf('gemini')), true);
      assert.equal(keyRequired(endpointOf('openai', 'http://127.0.0.1:1234/v1')), false);
      assert.equal(keyRequired(endpointOf('ollama')), false);
      assert.equal(keyVariable(endpointOf('openai')), 'OPENAI_API_KEY');
      assert.equal(keyVariable(endpointOf('openai', 'http://10.1.2.3:8000/v1')), undefined);
      assert.equal(endpointLabel(endpointOf('openai', 'http://127.0.0.1:1234/v1')), 'the server at 127.0.0.1:1234');
      assert.notEqual(secretName(endpointOf('openai')), secretName(endpointOf('openai', 'http://127.0.0.1:1234/v1')));
    });
  });

  describe('ApiKeys', () => {
    it('sends a key only to the endpoint it was given for', async () => {
      const { ApiKeys } = loadApiKeys();
      const secrets = new FakeSecretStorage();
      const keys = new ApiKeys(secrets as never, () => false);
      const openai = endpointOf('openai');
      const local = endpointOf('openai', 'http://127.0.0.1:1234/v1');
      const proxy = endpointOf('openai', 'https://llm.example.com/v1');
      await keys.set(openai, 'sk-real-openai');
      await keys.set(local, 'lm-studio-key');
      assert.equal(await keys.get(openai), 'sk-real-openai');
      assert.equal(await keys.get(local), 'lm-studio-key');
      assert.equal(await keys.get(proxy), undefined, 'a third server gets neither key');
    });

    it('never hands the environment\'s OpenAI key to a custom server', async () => {
      process.env.OPENAI_API_KEY = 'sk-from-env';
      const { ApiKeys } = loadApiKeys();
      const keys = new ApiKeys(new FakeSecretStorage() as never, () => false);
      assert.equal(await keys.get(endpointOf('openai')), 'sk-from-env');
      assert.equal(await keys.get(endpointOf('openai', 'http://127.0.0.1:1234/v1')), undefined);
    });

    it('moves a key stored the old way to the provider\'s own service when no custom base URL was ever set', async () => {
      const { ApiKeys } = loadApiKeys();
      const secrets = new FakeSecretStorage();
      secrets.values.set('toolbelt.apiKey.openai', 'sk-old');
      const keys = new ApiKeys(secrets as never, () => false);
      assert.equal(await keys.get(endpointOf('openai', 'http://127.0.0.1:1234/v1')), undefined, 'not to a custom server');
      assert.equal(await keys.get(endpointOf('openai')), 'sk-old');
      assert.equal(secrets.values.get(secretName(endpointOf('openai'))), 'sk-old');
      assert.equal(secrets.values.has('toolbelt.apiKey.openai'), false, 'the old slot is gone');
    });

    it('leaves an old key unused when a custom base URL is set: it may have been that server\'s', async () => {
      const { ApiKeys } = loadApiKeys();
      const secrets = new FakeSecretStorage();
      secrets.values.set('toolbelt.apiKey.openai', 'maybe-lm-studio');
      const keys = new ApiKeys(secrets as never, () => true);
      assert.equal(await keys.get(endpointOf('openai')), undefined);
      assert.equal(await keys.get(endpointOf('openai', 'http://127.0.0.1:1234/v1')), undefined);
      assert.equal(secrets.values.get('toolbelt.apiKey.openai'), 'maybe-lm-studio', 'kept, and sent nowhere');
    });
  });
});
