import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ChatSetupError } from '../../src/chat/chatEnvironment';
import { endpointIdentity } from '../../src/providers/endpoints';
import type * as ApiKeysModule from '../../src/vscode/apiKeys';
import { requireWithVscode } from '../support/withFakeVscode';

const SRC = path.join(__dirname, '..', '..', 'src', 'vscode');

class FakeSecrets {
  readonly values = new Map<string, string>();
  get(key: string) {
    return Promise.resolve(this.values.get(key));
  }
  store(key: string, value: string) {
    this.values.set(key, value);
    return Promise.resolve();
  }
  delete(key: string) {
    this.values.delete(key);
    return Promise.resolve();
  }
}

/** apiKeys.ts against a fake API whose settings are `settings` (workspace and user levels alike). */
function load(settings: Record<string, string> = {}, asked: { inputs: string[]; titles: string[] } = { inputs: [], titles: [] }) {
  const commands = new Map<string, (...args: unknown[]) => unknown>();
  const vscode = {
    workspace: {
      getConfiguration: () => ({
        get: (key: string, fallback: unknown) => settings[key] ?? fallback,
        inspect: (key: string) => ({ globalValue: settings[`user.${key}`] }),
      }),
    },
    commands: { registerCommand: (id: string, run: (...args: unknown[]) => unknown) => (commands.set(id, run), { dispose() {} }) },
    window: {
      showInputBox: async (options: { title: string; prompt: string }) => {
        asked.titles.push(`${options.title} | ${options.prompt}`);
        return asked.inputs.shift();
      },
      showQuickPick: async () => undefined,
      showInformationMessage: async () => undefined,
    },
  };
  const module = requireWithVscode<typeof ApiKeysModule>(vscode, [path.join(SRC, 'apiKeys.js'), path.join(SRC, 'settings.js')]);
  return { ...module, commands };
}

describe('Endpoints: which server a key belongs to', () => {
  const cases: [string, string | undefined, string, boolean][] = [
    ['openai', undefined, 'openai', true],
    ['openai', 'https://api.openai.com/v1', 'openai', true],
    ['openai', 'http://127.0.0.1:1234/v1', 'openai@127.0.0.1:1234', false],
    ['openai', 'https://OpenRouter.ai/api/v1', 'openai@openrouter.ai', false],
    ['gemini', '', 'gemini', true],
    ['gemini', 'https://proxy.example.com', 'gemini@proxy.example.com', false],
    ['ollama', '', 'ollama@127.0.0.1:11434', false],
    ['ollama', 'http://gpu-box:11434', 'ollama@gpu-box:11434', false],
  ];
  for (const [provider, baseUrl, id, own] of cases) {
    it(`${provider} ${baseUrl ?? '(no base URL)'} → ${id}`, () => {
      const identity = endpointIdentity({ provider: provider as 'openai', baseUrl });
      assert.equal(identity.id, id);
      assert.equal(identity.own, own);
    });
  }

  it('names a custom server by its host', () => {
    assert.equal(endpointIdentity({ provider: 'openai', baseUrl: 'http://127.0.0.1:1234/v1' }).label, 'the server at 127.0.0.1:1234');
    assert.equal(endpointIdentity({ provider: 'openai' }).label, 'OpenAI');
  });
});

describe('ApiKeys: one key per endpoint', () => {
  const LOCAL = { provider: 'openai' as const, baseUrl: 'http://127.0.0.1:1234/v1' };
  const OTHER = { provider: 'openai' as const, baseUrl: 'https://third-party.example/v1' };
  let savedEnv: string | undefined;
  beforeEach(() => {
    savedEnv = process.env.OPENAI_API_KEY;
    delete process.env.OPENAI_API_KEY;
  });
  afterEach(() => {
    if (savedEnv === undefined) delete process.env.OPENAI_API_KEY;
    else process.env.OPENAI_API_KEY = savedEnv;
  });

  it('sends an OpenAI key to OpenAI only, and a server\'s key to that server only', async () => {
    const { ApiKeys } = load();
    const keys = new ApiKeys(new FakeSecrets() as never, () => undefined);
    await keys.set({ provider: 'openai' }, 'sk-openai');
    await keys.set(LOCAL, 'sk-local');
    assert.equal(await keys.get({ provider: 'openai' }), 'sk-openai');
    assert.equal(await keys.get({ provider: 'openai', baseUrl: 'https://api.openai.com/v1' }), 'sk-openai');
    assert.equal(await keys.get(LOCAL), 'sk-local');
    assert.equal(await keys.get({ provider: 'openai', baseUrl: 'http://127.0.0.1:1234/v1/' }), 'sk-local', 'same host, same key');
    assert.equal(await keys.get(OTHER), undefined, 'no key goes to a server nobody gave one for');
    await keys.delete(LOCAL);
    assert.equal(await keys.get(LOCAL), undefined);
    assert.equal(await keys.get({ provider: 'openai' }), 'sk-openai', 'deleting one endpoint\'s key leaves the others');
  });

  it('uses OPENAI_API_KEY for OpenAI\'s own service, never for a custom server', async () => {
    process.env.OPENAI_API_KEY = 'sk-env';
    const { ApiKeys } = load();
    const keys = new ApiKeys(new FakeSecrets() as never, () => undefined);
    assert.equal(await keys.get({ provider: 'openai' }), 'sk-env');
    assert.equal(await keys.get(LOCAL), undefined);
    assert.equal(keys.environmentVariable(LOCAL), undefined);
  });

  it('needs a key only for the providers\' own services: keyless local servers work', async () => {
    const { ApiKeys, requireKey } = load();
    const keys = new ApiKeys(new FakeSecrets() as never, () => undefined);
    assert.equal(keys.needsKey({ provider: 'openai' }), true);
    assert.equal(keys.needsKey({ provider: 'gemini' }), true);
    assert.equal(keys.needsKey(LOCAL), false);
    assert.equal(keys.needsKey({ provider: 'ollama' }), false);
    assert.equal(keys.needsKey({ provider: 'gemini', baseUrl: 'https://proxy.example.com' }), true, "Gemini's protocol always carries a key");
    await assert.rejects(requireKey(keys, { provider: 'gemini', baseUrl: 'https://proxy.example.com' }), /No Gemini API key is set for proxy\.example\.com\./);
    assert.equal(await requireKey(keys, LOCAL), undefined);
    await assert.rejects(requireKey(keys, { provider: 'openai' }), (error: unknown) => error instanceof ChatSetupError && /No OpenAI API key is set/.test(error.message));
  });

  it('moves the old single OpenAI key to the server the person\'s own settings name, keeping it for OpenAI', async () => {
    const { ApiKeys } = load();
    const secrets = new FakeSecrets();
    secrets.values.set('toolbelt.apiKey.openai', 'sk-old');
    const keys = new ApiKeys(secrets as never, () => LOCAL);
    assert.equal(await keys.get(LOCAL), 'sk-old');
    assert.equal(await keys.get({ provider: 'openai' }), 'sk-old');
    assert.equal(await keys.get(OTHER), undefined);
    assert.equal(secrets.values.get('toolbelt.apiKey.openai@127.0.0.1:1234'), 'sk-old');
  });

  it('moves no old key to a server only a workspace names, and migrates once', async () => {
    const { ApiKeys } = load();
    const secrets = new FakeSecrets();
    secrets.values.set('toolbelt.apiKey.openai', 'sk-old');
    assert.equal(await new ApiKeys(secrets as never, () => undefined).get(OTHER), undefined);
    // Later the person's settings name a server: the old key stays OpenAI's.
    assert.equal(await new ApiKeys(secrets as never, () => OTHER).get(OTHER), undefined);
    assert.deepEqual([...secrets.values.keys()].sort(), ['toolbelt.apiKey.openai', 'toolbelt.apiKeys.perEndpoint']);
  });

  it('Set API Key names the server in its prompt and stores the key for the configured endpoint only', async () => {
    const asked = { inputs: ['sk-typed'], titles: [] as string[] };
    const { ApiKeys, registerApiKeyCommand, commands } = load({ provider: 'openai', baseUrl: LOCAL.baseUrl }, asked);
    const secrets = new FakeSecrets();
    const keys = new ApiKeys(secrets as never, () => undefined);
    registerApiKeyCommand({ subscriptions: [] } as never, keys);
    assert.equal(await commands.get('toolbelt.setApiKey')!('openai'), true);
    assert.match(asked.titles[0], /^API key for the server at 127\.0\.0\.1:1234 \| .*sent only to 127\.0\.0\.1:1234, never to OpenAI/);
    assert.equal(await keys.get(LOCAL), 'sk-typed');
    assert.equal(await keys.get({ provider: 'openai' }), undefined);
    // With a base URL given, for that endpoint; an empty key removes it.
    await commands.get('toolbelt.setApiKey')!('openai', 'sk-own', '');
    assert.equal(await keys.get({ provider: 'openai' }), 'sk-own');
    await commands.get('toolbelt.setApiKey')!('openai', '');
    assert.equal(await keys.get(LOCAL), undefined);
    assert.equal(await keys.get({ provider: 'openai' }), 'sk-own');
  });
});
