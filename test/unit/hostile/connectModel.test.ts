import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { endpointOf, secretName } from '../../../src/providers/endpoints';
import type * as ApiKeysModule from '../../../src/vscode/apiKeys';
import type * as ConnectModule from '../../../src/vscode/chat/connectModel';
import { back, passTest, pick, runFlow, type, type Answer } from '../../support/fakePerson';
import { fakeQuickInputVscode, FakeSecretStorage, type FakeVscodeOptions } from '../../support/fakeQuickInput';
import { ModelServer } from '../../support/modelServer';
import { requireWithVscode } from '../../support/withFakeVscode';

const OUT = path.resolve(__dirname, '../../../src/vscode');
/** Every compiled module Connect a Model loads that requires `vscode`. */
const CONNECT_MODULES = [
  'chat/connectModel.js',
  'chat/connectTest.js',
  'chat/quickSteps.js',
  'chat/saveModelSettings.js',
  'chat/vscodeModels.js',
  'nativeChat/vscodeModelProvider.js',
  'nativeChat/toolbeltModelProvider.js',
  'settings.js',
].map((file) => path.join(OUT, file));

const KEY_A = 'sk-stored-for-server-A-0123456789';
const DEFAULTS = { 'toolbelt.provider': 'openai', 'toolbelt.baseUrl': '', 'toolbelt.model': '' };
const SAVE_LEVEL = /for whom/i;

describe('hostile: Connect a Model keeps a key to its server and a personal model out of the shared workspace file', function () {
  let a: ModelServer;
  let b: ModelServer;

  before(async () => {
    [a, b] = await Promise.all([ModelServer.start(), ModelServer.start()]);
  });
  after(async () => {
    await Promise.all([a.close(), b.close()]);
  });
  beforeEach(() => {
    for (const [server, model] of [[a, 'model-a'], [b, 'model-b']] as const) {
      server.reset();
      server.modelLists.clearFault();
      server.modelLists.requests.length = 0;
      server.modelLists.models.openai = [model];
    }
  });

  /** Connect a Model against a fake VS Code, with ApiKeys over a fake secret storage. */
  function setUp(options: FakeVscodeOptions = {}) {
    const vscode = fakeQuickInputVscode({ ...options, settings: { default: DEFAULTS, ...options.settings } });
    const { connectModel } = requireWithVscode<typeof ConnectModule>(vscode.api, CONNECT_MODULES);
    const { ApiKeys } = requireWithVscode<typeof ApiKeysModule>(vscode.api, [path.join(OUT, 'apiKeys.js'), path.join(OUT, 'settings.js')]);
    const secrets = new FakeSecretStorage();
    const keys = new ApiKeys(secrets as never);
    const log = { info: () => undefined, warn: () => undefined };
    const deps: ConnectModule.ConnectDeps = { keys, log: log as never, holdRetries: (work) => work(), connected: () => undefined };
    const run = (answers: Answer[], start?: ConnectModule.ConnectStart) => runFlow(vscode.shown, connectModel(deps, start), answers);
    return { ...vscode, secrets, keys, run };
  }

  /** The requests `server` received (model lists and chat) whose path, headers or body carry `key`. */
  function carrying(server: ModelServer, key: string): string[] {
    const seen = [
      ...server.modelLists.requests.map((request) => ({ path: `GET ${request.list} list`, bytes: JSON.stringify(request.headers) })),
      ...server.requests.map((request) => ({ path: `POST ${request.path}`, bytes: JSON.stringify([request.path, request.headers, request.body]) })),
    ];
    return seen.filter((request) => request.bytes.includes(key)).map((request) => request.path);
  }

  /** B was asked for its models and sent the test request: the flow did talk to it. */
  function assertTalkedTo(server: ModelServer): void {
    assert.ok(server.modelLists.requests.length > 0, 'the model list was asked for');
    assert.ok(server.requests.length > 0, 'the test request was sent');
  }

  describe('a key stays with the server it was stored or typed for', () => {
    const endpointA = () => endpointOf('openai', a.openaiBaseUrl);
    const endpointB = () => endpointOf('openai', b.openaiBaseUrl);

    for (const start of [undefined, 'compatible'] as const) {
      it(`connected to A with a stored key, connecting to B (${start ? 'from the model switcher' : 'picking the provider'}) sends B no key of A's and stores none for it`, async () => {
        const flow = setUp({ settings: { global: { 'toolbelt.provider': 'openai', 'toolbelt.baseUrl': a.openaiBaseUrl, 'toolbelt.model': 'model-a' } } });
        await flow.keys.set(endpointA(), KEY_A);
        const answers = [...(start ? [] : [pick(/^OpenAI-compatible server$/)]), type(b.openaiBaseUrl), pick(/^model-b$/), passTest()];
        assert.equal(await flow.run(answers, start), true);
        assertTalkedTo(b);
        assert.deepEqual(carrying(b, KEY_A), [], "B received A's key");
        assert.equal(flow.secrets.values.get(secretName(endpointB())), undefined, "A's key was stored for B");
        assert.equal(flow.secrets.values.get(secretName(endpointA())), KEY_A, "A's own key stays A's");
        assert.deepEqual(flow.configuration.at('global'), { 'toolbelt.provider': 'openai', 'toolbelt.baseUrl': b.openaiBaseUrl, 'toolbelt.model': 'model-b' });
      });
    }

    it('a key typed for A, then Back and the address changed to B, is neither sent to B nor stored for it', async () => {
      const typed = 'sk-typed-for-server-A-9876543210';
      const flow = setUp();
      a.modelLists.fail('openai', { kind: 'http', status: 401, message: 'A wants a key' });
      const answers = [
        pick(/^OpenAI-compatible server$/),
        type(a.openaiBaseUrl),
        pick(/^Enter the API key/),
        type(typed, { before: () => a.modelLists.clearFault() }),
        back(), // from A's model list, listed with the key, to the key step
        back(), // to the model step before it
        back(), // to the address
        type(b.openaiBaseUrl),
        pick(/^model-b$/),
        passTest(),
      ];
      assert.equal(await flow.run(answers), true);
      assert.ok(carrying(a, typed).length > 0, 'A was listed with the key typed for it');
      assertTalkedTo(b);
      assert.deepEqual(carrying(b, typed), [], 'B received the key typed for A');
      const holding = [...flow.secrets.values].filter(([, value]) => value === typed).map(([name]) => name);
      assert.deepEqual(holding.filter((name) => name !== secretName(endpointA())), [], 'the key typed for A was stored for another server');
    });
  });

  describe('the model is saved for the person unless they choose the workspace', () => {
    const connectToB = (...level: Answer[]) => [pick(/^OpenAI-compatible server$/), type(b.openaiBaseUrl), pick(/^model-b$/), passTest(), ...level];
    const modelB = () => ({ 'toolbelt.provider': 'openai', 'toolbelt.baseUrl': b.openaiBaseUrl, 'toolbelt.model': 'model-b' });
    const team = { 'toolbelt.model': 'team-model' };

    it('a trusted workspace that sets toolbelt.model asks; "For me" writes the user settings and leaves .vscode/settings.json as it was', async () => {
      const flow = setUp({ settings: { workspace: team } });
      assert.equal(await flow.run(connectToB(pick(/^For me/, { placeholder: SAVE_LEVEL }))), true);
      assert.deepEqual(flow.configuration.at('global'), modelB());
      assert.deepEqual(flow.configuration.at('workspace'), team);
      assert.deepEqual(flow.configuration.updates.filter((update) => update.level !== 'global'), []);
      assert.ok(flow.messages.some((m) => /in your user settings; this workspace's own toolbelt\.model still applies in it/.test(m)), flow.messages.join('\n'));
    });

    it('"For everyone on this workspace" writes .vscode/settings.json and not the user settings', async () => {
      const flow = setUp({ settings: { workspace: team } });
      assert.equal(await flow.run(connectToB(pick(/^For everyone/, { placeholder: SAVE_LEVEL }))), true);
      assert.deepEqual(flow.configuration.at('workspace'), modelB());
      assert.deepEqual(flow.configuration.at('global'), {});
    });

    it('with no workspace value the flow does not ask and writes the user settings', async () => {
      const flow = setUp({ settings: { global: { 'toolbelt.provider': 'ollama' } } });
      assert.equal(await flow.run(connectToB()), true);
      assert.deepEqual(flow.configuration.at('global'), modelB());
      assert.deepEqual(flow.configuration.at('workspace'), {});
    });

    it('an untrusted workspace\'s toolbelt.baseUrl is not asked about and not written', async () => {
      const shared = { 'toolbelt.baseUrl': 'http://team-server.example:8000/v1' };
      const flow = setUp({ trusted: false, settings: { workspace: shared } });
      assert.equal(await flow.run(connectToB()), true);
      assert.deepEqual(flow.configuration.at('global'), modelB());
      assert.deepEqual(flow.configuration.at('workspace'), shared);
    });

    it('one of VS Code\'s models: "For me" writes the user settings while the workspace sets toolbelt.provider', async () => {
      const shared = { 'toolbelt.provider': 'openai' };
      const flow = setUp({ settings: { workspace: shared }, chatModels: [{ vendor: 'copilot', id: 'gpt-4o', name: 'GPT-4o' }] });
      assert.equal(await flow.run([pick(/^copilot\/gpt-4o$/), pick(/^For me/, { placeholder: SAVE_LEVEL })], 'vscode'), true);
      assert.deepEqual(flow.configuration.at('global'), { 'toolbelt.provider': 'vscode', 'toolbelt.model': 'copilot/gpt-4o' });
      assert.deepEqual(flow.configuration.at('workspace'), shared);
    });
  });
});
