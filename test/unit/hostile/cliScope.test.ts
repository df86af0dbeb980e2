import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { McpError, type CallToolResult, type JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { BoundedStdioServerTransport, MAX_CLIENT_MESSAGE_BYTES } from '../../../src/cli/mcpStdio';
import { MCP_JSON_ORIGIN, parseMcpServers, USER_SETTINGS_ORIGIN } from '../../../src/tools/mcp/mcpConfig';
import { readEnvFileText } from '../../../src/tools/mcp/mcpVariables';
import { fixturePath } from '../../fixtures/mcp/fixtureSources';
import { CliFixture } from '../../support/cliFixture';
import { connectToolbeltMcp, runCliProcess, type McpConnection } from '../../support/cliProcess';
import { waitFor } from '../../support/waitFor';

function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

/** The characters of `text` a terminal would act on or that reorder it: none may reach stderr raw. */
function rawEscapes(text: string): string {
  return [...text].filter((c) => c === '\u001b' || c === '\u0007' || c === '\u202e').join('');
}

/** `.vscode/mcp.json` with one fixture server, defined as a workspace would write it. */
function mcpJson(name: string, fixture: string, extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ servers: { [name]: { command: process.execPath, args: [fixturePath(fixture)], ...extra } } }, null, 2);
}

// What `toolbelt mcp | policy` serves, and to whom: names a grant was given for, the folder served,
// the size of one message, the environment file of an approved server. Each checked on its effect:
// a file a tool wrote or not, a secret that reached a server or not, a second call answered, exit codes and stderr.
describe('hostile CLI: names, scope, limits', function () {
  this.timeout(60_000);
  let fixture: CliFixture;
  let connection: McpConnection | undefined;

  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await fixture?.dispose();
  });

  describe('--run-without-asking holds for the tool it named, not for a name', () => {
    for (const granted of ['renaming_x_y', 'renaming/x_y']) {
      it(`--run-without-asking ${granted}: after x_y is renamed x.y "Deletes everything…" (the same name to the client), the call asks again and nothing runs`, async () => {
        fixture = await CliFixture.create({ settings: { 'toolbelt.tools.registry': [{ name: 'renaming/*' }] } });
        const marker = path.join(fixture.root, 'deleted.marker');
        await fixture.ws.write({ '.vscode/mcp.json': mcpJson('renaming', 'renamingServer.js', { env: { MCP_FIXTURE_MARKER: marker } }) });
        connection = await connectToolbeltMcp(fixture.args('--approve-server', 'renaming', '--run-without-asking', granted, '--run-without-asking', 'renaming/rename'));
        const names = (await connection.client.listTools()).tools.map((t) => t.name);
        assert.ok(names.includes('renaming_x_y'), JSON.stringify(names));

        const before = await connection.client.callTool({ name: 'renaming_x_y', arguments: { text: 'granted' } });
        assert.equal(textOf(before), 'granted', 'the grant lets the tool it named run unasked');
        const changes = connection.listChanges();
        assert.equal(textOf(await connection.client.callTool({ name: 'renaming_rename', arguments: {} })), 'renamed');
        await waitFor(() => connection!.listChanges() > changes, 'tools/list_changed after the rename');
        const renamed = (await connection.client.listTools()).tools.find((t) => t.name === 'renaming_x_y');
        assert.match(renamed?.description ?? '', /Deletes everything/, 'the client sees the same name for another tool');

        const after = await connection.client.callTool({ name: 'renaming_x_y', arguments: { text: 'x' } });
        assert.equal(after.isError, true, textOf(after));
        assert.match(textOf(after), /cannot ask|asks before/);
        assert.equal(await fixture.ws.exists('deleted.marker'), false, 'the renamed tool ran without asking');
      });
    }
  });

  describe('--workspace: the root of the file system is refused, the home folder served with a warning', () => {
    const explain = (workspace: string, env: NodeJS.ProcessEnv = process.env) =>
      runCliProcess(['policy', 'explain', 'read_file', '{"path":"etc/hostname"}', '--workspace', workspace, '--state-dir', fixture.stateBase, '--user-settings', fixture.userSettings], { env });

    it('--workspace / (and a link to it) exits 2 with one clear line, judging nothing', async () => {
      fixture = await CliFixture.create();
      await fs.symlink('/', path.join(fixture.ws.parent, 'slash'));
      for (const workspace of ['/', path.join(fixture.ws.parent, 'slash')]) {
        const result = await explain(workspace);
        assert.equal(result.code, 2, result.stdout + result.stderr);
        assert.equal(result.stdout, '', 'no decision for a workspace of every file');
        assert.match(result.stderr, /^toolbelt: --workspace ".*" is the root of the file system: every file on this machine would be inside the workspace\. Name a project's folder\.\n/);
      }
    });

    it('the home folder is served, with one escaped warning line on stderr; another folder gets none', async () => {
      fixture = await CliFixture.create();
      const home = path.join(fixture.ws.parent, 'home\u001b]52;c;cHduZWQ=\u0007\u202e');
      await fs.mkdir(home);
      const atHome = await explain(home, { ...process.env, HOME: home });
      assert.equal(atHome.code, 0, atHome.stderr);
      assert.match(atHome.stdout, /read_file \{"path":"etc\/hostname"\}/, 'judged: the home folder is served');
      const warnings = atHome.stderr.split('\n').filter((line) => /home folder/.test(line));
      assert.equal(warnings.length, 1, atHome.stderr);
      assert.ok(warnings[0].startsWith('toolbelt: warning: --workspace "'), warnings[0]);
      assert.ok(warnings[0].includes('home\\u001b]52;c;cHduZWQ=\\u0007\\u202e"'), warnings[0]);
      assert.equal(rawEscapes(atHome.stderr), '', 'a raw escape reached the terminal');

      const elsewhere = await explain(fixture.root, { ...process.env, HOME: home });
      assert.equal(elsewhere.code, 0, elsewhere.stderr);
      assert.doesNotMatch(elsewhere.stderr, /home folder/);
    });
  });

  describe('one message over 10 MB', () => {
    it('a tools/call of 11 MB gets a JSON-RPC error, writes nothing, and the server answers the next call', async () => {
      fixture = await CliFixture.create({ settings: { 'toolbelt.tools.registry': [{ name: 'read_file' }, { name: 'write_file' }] }, files: { 'src/a.txt': 'alpha\n' } });
      connection = await connectToolbeltMcp(fixture.args());
      const big = 'x'.repeat(11 * 1024 * 1024);
      const refused = await connection.client.callTool({ name: 'write_file', arguments: { path: 'big.txt', content: big } }).then(
        () => undefined,
        (error: unknown) => error,
      );
      assert.ok(refused instanceof McpError, String(refused));
      assert.equal(refused.code, -32600);
      assert.match(refused.message, /11,534,\d{3} bytes; toolbelt mcp reads messages up to 10,485,760 bytes/);
      assert.equal(await fixture.ws.exists('big.txt'), false);

      const next = await connection.client.callTool({ name: 'read_file', arguments: { path: 'src/a.txt' } });
      assert.equal(next.isError, undefined, textOf(next));
      assert.match(textOf(next), /alpha/);
      assert.match(connection.stderr(), /toolbelt: warning: The MCP client sent a message of 11,534,\d{3} bytes \("tools\/call"\).*refused unread and serving goes on/);
    });

    it("the transport: an oversized answer to the server's own request (an elicitation) fails that request; an oversized notification is dropped; serving goes on", async () => {
      const stdin = new PassThrough();
      const warnings: string[] = [];
      const transport = new BoundedStdioServerTransport(stdin, new PassThrough(), { warn: (m) => void warnings.push(m) });
      const received: JSONRPCMessage[] = [];
      transport.onmessage = (message) => void received.push(message);
      await transport.start();
      const pad = 'x'.repeat(MAX_CLIENT_MESSAGE_BYTES);
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 7, result: { action: 'accept', content: { pad } } })}\n`);
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId: 1, reason: pad } })}\n`);
      stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'ping' })}\n`);
      await waitFor(() => received.length >= 2, 'two messages delivered');
      const [answer, ping] = received;
      assert.ok('error' in answer && answer.id === 7, JSON.stringify(answer));
      assert.equal(answer.error.code, -32600);
      assert.match(answer.error.message, /reads messages up to 10,485,760 bytes/);
      assert.deepEqual(ping, { jsonrpc: '2.0', id: 8, method: 'ping' });
      assert.equal(received.length, 2);
      assert.equal(warnings.length, 2, warnings.join('\n'));
      await transport.close();
    });
  });

  describe("an approved workspace server's envFile", () => {
    const SECRET = 'S3CR3T-aws-credentials';
    const registry = { 'toolbelt.tools.registry': [{ name: 'probe/probe' }] };

    async function probeEnv(envFile: string): Promise<{ result: string; stderr: string }> {
      await fixture.ws.write({ '.vscode/mcp.json': mcpJson('probe', 'probeServer.js', { envFile }) });
      connection = await connectToolbeltMcp(fixture.args('--approve-server', 'probe', '--run-without-asking', 'probe/probe'));
      const result = await connection.client.callTool({ name: 'probe_probe', arguments: {} }).then(textOf, (error: Error) => error.message);
      return { result, stderr: connection.stderr() };
    }

    beforeEach(async () => {
      fixture = await CliFixture.create({ settings: registry, files: { '.env': 'FROM_WORKSPACE=ok\n' } });
      await fs.writeFile(path.join(fixture.ws.parent, 'credentials'), `AWS_SECRET_ACCESS_KEY=${SECRET}\n`);
      await fs.symlink(path.join(fixture.ws.parent, 'credentials'), path.join(fixture.root, 'linked.env'));
    });

    for (const [how, envFile] of [
      ['a path outside the workspace', '../credentials'],
      ['a link in the workspace to a file outside', 'linked.env'],
    ] as const) {
      it(`is refused when it is ${how}: the server does not start and never gets the secret`, async () => {
        const { result, stderr } = await probeEnv(envFile);
        assert.doesNotMatch(result, new RegExp(SECRET), 'the secret reached the server');
        assert.match(stderr, /MCP server "probe" failed: "envFile" .* is outside the workspace; it was not read/);
      });
    }

    it('is read when it is inside the workspace', async () => {
      const { result } = await probeEnv('.env');
      assert.equal((JSON.parse(result) as { env: Record<string, string> }).env.FROM_WORKSPACE, 'ok');
    });

    it("reads a server of the person's own settings from their settings folder, never a workspace's server; a FIFO does not hold the start up", async () => {
      const personal = path.join(fixture.ws.parent, 'personal');
      await fs.mkdir(personal);
      await fs.writeFile(path.join(personal, 'gh.env'), 'GH=personal\n');
      const context = { workspaceFolder: fixture.root, personalFolder: personal };
      const server = (origin: string, envFile: string) => parseMcpServers({ gh: { command: 'node', envFile } }, origin).servers[0];
      assert.equal(await readEnvFileText(server(USER_SETTINGS_ORIGIN, path.join(personal, 'gh.env')), context), 'GH=personal\n');
      await assert.rejects(readEnvFileText(server(MCP_JSON_ORIGIN, path.join(personal, 'gh.env')), context), /"envFile" .*gh\.env is outside the workspace; it was not read/);
      await assert.rejects(readEnvFileText(server(USER_SETTINGS_ORIGIN, '../credentials'), context), /outside the workspace or the folder of your settings/);
      if (process.platform !== 'win32') {
        execFileSync('mkfifo', [path.join(fixture.root, 'fifo.env')]);
        await assert.rejects(readEnvFileText(server(MCP_JSON_ORIGIN, 'fifo.env'), context), /"envFile" .*fifo\.env is not a file/);
      }
    });

    it('--approve-server says on stderr what it approves: command, args, env names (not values) and envFile, escaped', async () => {
      const hostileArg = 'x\u001b]52;c;cHduZWQ=\u0007';
      await fixture.ws.write({ '.vscode/mcp.json': JSON.stringify({ servers: { probe: { command: process.execPath, args: [fixturePath('probeServer.js'), hostileArg], env: { API_TOKEN: 'S3CR3T-token-value' }, envFile: '.env' } } }) });
      const result = await runCliProcess(['policy', 'explain', 'calculator', '{"expression":"1+1"}', ...fixture.args('--approve-server', 'probe')]);
      const line = result.stderr.split('\n').find((l) => l.includes('--approve-server "probe" approves'));
      assert.ok(line, result.stderr);
      assert.ok(line.includes(`command ${JSON.stringify(process.execPath)}`), line);
      assert.ok(line.includes('x\\u001b]52;c;cHduZWQ=\\u0007"]'), line);
      assert.ok(line.includes('env names ["API_TOKEN"]'), line);
      assert.ok(line.includes('envFile ".env"'), line);
      assert.doesNotMatch(result.stderr, /S3CR3T-token-value/);
      assert.equal(rawEscapes(result.stderr), '', 'a raw escape reached the terminal');
    });
  });
});
