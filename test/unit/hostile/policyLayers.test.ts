import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CliFixture } from '../../support/cliFixture';
import { connectToolbeltMcp, runCliProcess, type McpConnection } from '../../support/cliProcess';
import { ModelServer, type RecordedRequest } from '../../support/modelServer';
import { waitFor } from '../../support/waitFor';

const ORG_KEY = 'sk-organisation-secret-0123456789';
const SECRET = 'DB_PASSWORD=hunter2-never-leaves';

/** Every byte of a request the server saw that could carry a key: path, headers, body. */
function carried(request: RecordedRequest): string {
  return JSON.stringify([request.path, request.headers, request.body]);
}

describe('hostile: one reading of the layers (keys, sensitive files) in toolbelt run', function () {
  this.timeout(60_000);
  let model: ModelServer;
  let fixture: CliFixture | undefined;

  before(async () => {
    model = await ModelServer.start();
  });
  after(async () => {
    await model.close();
  });
  beforeEach(() => model.reset());
  afterEach(async () => {
    await fixture?.dispose();
    fixture = undefined;
  });

  const run = (env: NodeJS.ProcessEnv, ...args: string[]) => runCliProcess(['run', ...fixture!.args(), ...args], { env: { ...process.env, ...env } });

  it('a workspace that names another toolbelt.baseUrl never receives OPENAI_API_KEY or GEMINI_API_KEY', async () => {
    fixture = await CliFixture.create({ settings: { 'toolbelt.provider': 'openai', 'toolbelt.baseUrl': model.openaiBaseUrl, 'toolbelt.model': 'scripted' } });
    model.enqueue({ text: 'Hello.' });
    const openai = await run({ OPENAI_API_KEY: ORG_KEY }, 'Hi');
    assert.equal(openai.code, 0, openai.stderr);
    assert.equal(model.requests.length, 1);
    assert.ok(!carried(model.requests[0]).includes(ORG_KEY), 'the organisation key reached the workspace\'s server');

    await fixture.writeSettings({ 'toolbelt.provider': 'gemini', 'toolbelt.baseUrl': model.geminiBaseUrl, 'toolbelt.model': 'scripted' });
    model.enqueue({ text: 'Hello.' });
    const gemini = await run({ GEMINI_API_KEY: ORG_KEY }, 'Hi');
    assert.equal(gemini.code, 0, gemini.stderr);
    assert.equal(model.requests.length, 2);
    assert.ok(!carried(model.requests[1]).includes(ORG_KEY), 'the Gemini key reached the workspace\'s server');
  });

  it('--api-key is the person\'s explicit choice: it is sent to the server named', async () => {
    fixture = await CliFixture.create({ settings: { 'toolbelt.provider': 'openai', 'toolbelt.baseUrl': model.openaiBaseUrl, 'toolbelt.model': 'scripted' } });
    model.enqueue({ text: 'Hello.' });
    const result = await run({ OPENAI_API_KEY: ORG_KEY }, '--api-key', 'chosen-key', 'Hi');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(model.requests[0].headers.authorization, 'Bearer chosen-key');
  });

  it('a workspace that sets toolbelt.tools.sensitiveFiles to ["nothing"] still cannot read .env or the home credentials unasked', async () => {
    fixture = await CliFixture.create({
      settings: {
        'toolbelt.provider': 'openai',
        'toolbelt.baseUrl': model.openaiBaseUrl,
        'toolbelt.model': 'scripted',
        'toolbelt.tools.sensitiveFiles': ['nothing'],
        'toolbelt.tools.registry': [{ name: 'read_file' }, { name: 'search_text' }],
      },
      files: {
        '.env': `${SECRET}\n`,
        '.aws/credentials': `[default]\naws_secret_access_key=${SECRET}\n`,
        '.config/gh/hosts.yml': `token: ${SECRET}\n`,
        '.kube/config': `token: ${SECRET}\n`,
        '.git-credentials': `https://me:${SECRET}@example.invalid\n`,
        'notes.md': 'nothing secret here\n',
      },
    });
    model.enqueue(
      {
        toolCalls: [
          { name: 'read_file', arguments: { path: '.env' } },
          { name: 'read_file', arguments: { path: '.aws/credentials' } },
          { name: 'read_file', arguments: { path: '.config/gh/hosts.yml' } },
          { name: 'read_file', arguments: { path: '.kube/config' } },
          { name: 'read_file', arguments: { path: '.git-credentials' } },
          { name: 'search_text', arguments: { pattern: 'hunter2' } },
          { name: 'read_file', arguments: { path: 'notes.md' } },
        ],
      },
      { text: 'Done.' },
    );
    const result = await run({}, 'Read them');
    assert.equal(model.requests.length, 2, result.stderr);
    const toolResults = JSON.stringify((model.requests[1].body.messages as { role: string }[]).filter((message) => message.role === 'tool'));
    assert.ok(!toolResults.includes('never-leaves'), `a secret reached the model: ${toolResults}`);
    assert.match(toolResults, /nothing secret here/, 'the ordinary read still works');
    assert.notEqual(result.code, 0, 'refused reads make the run fail');
  });
});

describe('hostile: toolbelt mcp follows the person\'s settings file through a link (a dotfiles checkout)', function () {
  this.timeout(60_000);
  let fixture: CliFixture;
  let connection: McpConnection | undefined;
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await fixture.dispose();
  });

  const textOf = (result: unknown) => ((result as { content: { text?: string }[] }).content ?? []).map((part) => part.text ?? '').join('\n');

  it('a deny rule written into the link\'s target applies to the running server\'s next call', async () => {
    fixture = await CliFixture.create({ settings: { 'toolbelt.tools.registry': [{ name: 'run_bash' }] } });
    const dotfiles = path.join(fixture.ws.parent, 'dotfiles', 'vscode');
    await fs.mkdir(dotfiles, { recursive: true });
    const target = path.join(dotfiles, 'settings.json');
    await fs.writeFile(target, JSON.stringify({ 'toolbelt.runBash.allowedCommands': ['printf'] }));
    const userFolder = path.join(fixture.ws.parent, 'home', 'User');
    await fs.mkdir(userFolder, { recursive: true });
    const link = path.join(userFolder, 'settings.json');
    await fs.symlink(target, link);

    connection = await connectToolbeltMcp(['--workspace', fixture.root, '--state-dir', fixture.stateBase, '--user-settings', link, '--enable', 'run_bash']);
    const call = () => connection!.client.callTool({ name: 'run_bash', arguments: { command: 'printf "%s-%s\\n" ran by-the-command' } });
    assert.match(textOf(await call()), /ran-by-the-command/, 'allowed by the person\'s list: it runs');

    await fs.writeFile(target, JSON.stringify({ 'toolbelt.runBash.allowedCommands': ['printf'], 'toolbelt.runBash.deniedCommands': ['printf'] }));
    const denied = await waitFor(async () => {
      const result = await call();
      return textOf(result).includes('ran-by-the-command') ? undefined : result;
    }, 'the deny rule to apply to the running server');
    assert.equal((denied as { isError?: boolean }).isError, true, textOf(denied));
  });
});
