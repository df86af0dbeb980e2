import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { CliFixture } from '../../support/cliFixture';
import { builtCli, connectToolbeltMcp, runCliProcess, type McpConnection } from '../../support/cliProcess';
import { ModelServer } from '../../support/modelServer';
import { waitFor } from '../../support/waitFor';

const SETTINGS = { 'toolbelt.tools.registry': [{ name: 'write_file' }, { name: 'read_file' }] };

function textOf(result: unknown): string {
  return ((result as CallToolResult).content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
}

const absent = (file: string) => fs.lstat(file).then(() => false, () => true);

/**
 * `toolbelt undo`, `toolbelt mcp` and `toolbelt run` as processes (node dist/cli.js) against the
 * undo records: forged records, a state folder a workspace could write, parallel calls of one
 * client, and a long run beside another agent's calls. Every check is on the disk.
 */
describe('hostile: the CLI\'s undo records', function () {
  this.timeout(60_000);
  let fixture: CliFixture;
  let connection: McpConnection | undefined;

  beforeEach(async () => {
    fixture = await CliFixture.create({ settings: SETTINGS, files: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, `original ${i}\n`])) });
  });
  afterEach(async () => {
    await connection?.close();
    connection = undefined;
    await fixture.dispose();
  });

  it('toolbelt undo does not carry out a planted record naming root "/" and a file outside the workspace', async () => {
    const victim = path.join(fixture.ws.parent, 'victim', 'authorized_keys');
    const content = 'ssh-ed25519 AAAA attacker\n';
    const hash = createHash('sha256').update(content).digest('hex');
    const store = path.join(fixture.stateDir, 'checkpoints');
    await fs.mkdir(path.join(store, 'blobs'), { recursive: true });
    await fs.writeFile(path.join(store, 'blobs', hash), content);
    const entry = { path: victim, root: '/', display: 'README.md', before: { kind: 'file', mode: 0o644, size: content.length, hash, stored: true }, beforeSig: `file:644:${hash}`, afterSig: 'absent' };
    const turn = { turnId: 'mcp:x:1', chatId: 'mcp:x', startedAt: Date.now(), endedAt: Date.now(), storedBytes: content.length, notes: [], entries: [entry] };
    await fs.writeFile(path.join(store, 'index.json'), JSON.stringify({ version: 1, turns: [turn] }));

    const undo = await runCliProcess(['undo', ...fixture.args()]);
    assert.equal(await absent(victim), true, `nothing was written outside the workspace: ${undo.stdout}${undo.stderr}`);
    assert.match(undo.stdout, /skipped .*not inside the workspace folders/);
  });

  it('refuses a state folder inside the workspace, the default one too when the workspace is the home folder', async () => {
    const inside = await runCliProcess(['undo', '--workspace', fixture.root, '--state-dir', fixture.ws.path('.state'), '--user-settings', fixture.userSettings]);
    assert.equal(inside.code, 2, inside.stderr);
    assert.match(inside.stderr, /inside the workspace.*--state-dir DIR or TOOLBELT_STATE_DIR/);
    assert.equal(await absent(fixture.ws.path('.state')), true, 'no state folder was made inside the workspace');

    const env = { ...process.env, HOME: fixture.root, XDG_STATE_HOME: '' };
    const home = await runCliProcess(['mcp', '--workspace', fixture.root, '--user-settings', fixture.userSettings], { env });
    assert.equal(home.code, 2, home.stderr);
    assert.match(home.stderr, /default state folder .* is inside the workspace/);
    assert.equal(await absent(fixture.ws.path('.local')), true, 'no state folder was made in the home folder');
  });

  it('12 parallel write_file calls of one client are 12 undo groups: toolbelt undo takes each back', async () => {
    connection = await connectToolbeltMcp(fixture.args(), { name: 'parallel-client' });
    const results = await Promise.all(Array.from({ length: 12 }, (_, i) => connection!.client.callTool({ name: 'write_file', arguments: { path: `f${i}.txt`, content: `agent ${i}\n` } })));
    for (const result of results) assert.doesNotMatch(textOf(result), /cannot be undone/);
    for (let i = 0; i < 12; i++) assert.equal(await fixture.ws.read(`f${i}.txt`), `agent ${i}\n`);
    await connection.close();
    connection = undefined;

    for (let n = 0; n < 12; n++) {
      const undo = await runCliProcess(['undo', ...fixture.args()]);
      assert.equal(undo.code, 0, `undo ${n + 1}: ${undo.stdout}${undo.stderr}`);
    }
    for (let i = 0; i < 12; i++) assert.equal(await fixture.ws.read(`f${i}.txt`), `original ${i}\n`, `f${i}.txt was put back`);
    assert.match((await runCliProcess(['undo', ...fixture.args()])).stdout, /Nothing to undo/);
  });

  it('a toolbelt run in progress does not hold the undo records: another agent\'s write is recorded at once', async () => {
    const model = await ModelServer.start();
    await fixture.writeSettings({ ...SETTINGS, 'toolbelt.provider': 'openai', 'toolbelt.baseUrl': model.openaiBaseUrl, 'toolbelt.model': 'scripted' });
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'f0.txt', content: 'by the run\n' } }] }, { fault: 'stall-after-headers' });
    const run = spawn(process.execPath, [builtCli(), 'run', ...fixture.args(), 'Change f0'], { env: { ...process.env, OPENAI_API_KEY: 'test-key' }, stdio: 'ignore' });
    const ended = new Promise((resolve) => run.on('close', resolve));
    try {
      // The run has written f0.txt and waits for the model: its call group is open.
      await waitFor(async () => model.requests.length >= 2 && (await fixture.ws.read('f0.txt')) === 'by the run\n', 'the run to write f0.txt and wait');

      connection = await connectToolbeltMcp(fixture.args(), { name: 'other-agent' });
      const write = await connection.client.callTool({ name: 'write_file', arguments: { path: 'f1.txt', content: 'by the other agent\n' } }, undefined, { timeout: 10_000 });
      assert.doesNotMatch(textOf(write), /cannot be undone/);
      assert.equal(await absent(path.join(fixture.stateDir, 'lock')), true, 'no lock is held between operations');
      await connection.close();
      connection = undefined;
    } finally {
      run.kill('SIGKILL');
      await ended;
      await model.close();
    }

    const first = await runCliProcess(['undo', ...fixture.args()]);
    assert.match(first.stdout, /MCP client other-agent/, first.stdout + first.stderr);
    assert.equal(await fixture.ws.read('f1.txt'), 'original 1\n');
    // The run was killed mid-turn: its group is closed as interrupted and can be undone.
    const second = await runCliProcess(['undo', ...fixture.args()]);
    assert.match(second.stdout, /toolbelt run/, second.stdout + second.stderr);
    assert.equal(await fixture.ws.read('f0.txt'), 'original 0\n');
  });
});
