import * as assert from 'node:assert/strict';
import { CliFixture } from '../support/cliFixture';
import { runCliProcess } from '../support/cliProcess';
import { ModelServer } from '../support/modelServer';

describe('toolbelt run: the Agent headless, against the scripted model server', function () {
  this.timeout(30_000);
  let model: ModelServer;
  let fixture: CliFixture;
  const env = { ...process.env, OPENAI_API_KEY: 'test-key' };

  before(async () => {
    model = await ModelServer.start();
  });
  after(async () => {
    await model.close();
  });
  beforeEach(async () => {
    model.reset();
    fixture = await CliFixture.create({
      settings: {
        'toolbelt.provider': 'openai',
        'toolbelt.baseUrl': model.openaiBaseUrl,
        'toolbelt.model': 'scripted',
        'toolbelt.tools.registry': [{ name: 'read_file' }, { name: 'write_file' }],
      },
      files: { 'src/a.txt': 'alpha\n' },
    });
  });
  afterEach(() => fixture.dispose());

  const run = (...args: string[]) => runCliProcess(['run', ...fixture.args(), ...args], { env });

  it('writes the answer on stdout and the tool calls with their statuses on stderr; exit 0', async () => {
    model.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.txt' } }] }, { text: 'The file says alpha.' });
    const result = await run('What does src/a.txt say?');
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, 'The file says alpha.\n');
    assert.match(result.stderr, /→ read_file \{"path":"src\/a.txt"\}/);
    assert.match(result.stderr, /✓ read_file ok/);
    const toolMessage = (model.requests[1].body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool');
    assert.match(toolMessage!.content, /alpha/);
    assert.notEqual(model.requests[0].headers.authorization, 'Bearer test-key', 'the environment key is for OpenAI\'s own service only');
  });

  it('--json writes one JSON object per line: the events, then the exit code', async () => {
    model.enqueue({ toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.txt' } }] }, { text: 'Done.' });
    const result = await run('--json', 'Read it');
    assert.equal(result.code, 0, result.stderr);
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; name?: string; status?: string; code?: number; text?: string });
    assert.deepEqual([...new Set(lines.map((l) => l.type))], ['tool_call_start', 'tool_call_end', 'text', 'done', 'exit']);
    assert.equal(lines.find((l) => l.type === 'tool_call_end')!.status, 'ok');
    assert.equal(lines.find((l) => l.type === 'done')!.text, 'Done.');
    assert.deepEqual(lines.at(-1), { type: 'exit', code: 0, refused: [] });
  });

  it('refuses a call that would ask unless --approve names its reason: exit 3 and the file untouched, then written with --approve', async () => {
    const script = () => model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: '.vscode/launch.json', content: '{"x":1}' } }] }, { text: 'Tried.' });
    script();
    const refused = await run('Add a launch config');
    assert.equal(refused.code, 3, refused.stderr);
    assert.equal(await fixture.ws.exists('.vscode/launch.json'), false);
    assert.match(refused.stderr, /✗ write_file refused/);
    const toolMessage = (model.requests[1].body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool');
    assert.match(toolMessage!.content, /--approve protected/);
    script();
    const approved = await run('--approve', 'protected', 'Add a launch config');
    assert.equal(approved.code, 0, approved.stderr);
    assert.equal(await fixture.ws.read('.vscode/launch.json'), '{"x":1}');
    const logged = (await fixture.callLog()).filter((record) => record.tool === 'write_file').map((record) => record.approvedBy);
    assert.deepEqual(logged, ['refused', 'rule'], 'an --approve flag is a rule the person set in advance, not a person approving this call');
  });

  it('a run is one call group: toolbelt undo takes back everything it changed', async () => {
    model.enqueue(
      { toolCalls: [{ name: 'write_file', arguments: { path: 'src/a.txt', content: 'changed\n' } }, { name: 'write_file', arguments: { path: 'src/new.txt', content: 'new\n' } }] },
      { text: 'Changed.' },
    );
    assert.equal((await run('Change things')).code, 0);
    assert.equal(await fixture.ws.read('src/a.txt'), 'changed\n');
    const undo = await runCliProcess(['undo', ...fixture.args()]);
    assert.equal(undo.code, 0, undo.stderr);
    assert.match(undo.stdout, /toolbelt run/);
    assert.equal(await fixture.ws.read('src/a.txt'), 'alpha\n');
    assert.equal(await fixture.ws.exists('src/new.txt'), false);
  });

  it('exits 4 when the provider fails, 5 when the turn runs out of tool rounds', async () => {
    model.enqueue({ fault: 'http', status: 401, errorMessage: 'Incorrect API key provided' });
    const failed = await run('Hello');
    assert.equal(failed.code, 4, failed.stderr);
    assert.match(failed.stderr, /error:/);
    await fixture.writeSettings({
      'toolbelt.provider': 'openai',
      'toolbelt.baseUrl': model.openaiBaseUrl,
      'toolbelt.model': 'scripted',
      'toolbelt.chat.maxToolRounds': 1,
      'toolbelt.tools.registry': [{ name: 'read_file' }],
    });
    model.reset();
    model.setFallback(() => ({ toolCalls: [{ name: 'read_file', arguments: { path: 'src/a.txt' } }] }));
    const cut = await run('Loop');
    assert.equal(cut.code, 5, cut.stderr);
  });

  it('usage errors exit 2 before anything runs: an unknown --approve reason, no prompt, no key', async () => {
    const reason = await run('--approve', 'everything', 'Hi');
    assert.equal(reason.code, 2);
    assert.match(reason.stderr, /--approve everything/);
    assert.equal((await run()).code, 2);
    await fixture.writeSettings({ 'toolbelt.provider': 'gemini', 'toolbelt.tools.registry': [] });
    const noKey = await runCliProcess(['run', ...fixture.args(), 'Hi'], { env: { ...process.env, GEMINI_API_KEY: '' } });
    assert.equal(noKey.code, 2);
    assert.match(noKey.stderr, /GEMINI_API_KEY/);
    assert.equal(model.requests.length, 0);
  });
});
