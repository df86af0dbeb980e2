import * as assert from 'node:assert/strict';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { streamLog } from '../../../src/cli/cliLog';
import { CliFixture } from '../../support/cliFixture';
import { runCliInProcess } from '../../support/cliInProcess';
import { connectToolbeltMcp, type McpConnection } from '../../support/cliProcess';
import { ModelServer } from '../../support/modelServer';

/**
 * What a model, a repository's settings or a server names can put before a person: terminal
 * escapes (OSC 52 writes the clipboard, OSC 8 hides a link, CSI moves the cursor and clears the
 * screen, an 8-bit CSI, a bare carriage return), bidi overrides and zero-width characters. Every
 * path that prints to a terminal or asks through MCP gets the same payload; none of it may arrive raw.
 */
const PAYLOAD = [
  'ok',
  '\u001b]52;c;cm0gLXJmIH4K\u0007',
  '\u001b]8;;https://evil.example/\u001b\\docs\u001b]8;;\u001b\\',
  '\u001b[2J\u001b[H\u001b[3A',
  '\u009b2J',
  '\rfake',
  '\u202egnp.exe',
  'a\u200bb\u2066c\u2069\ufeff\u2028end',
].join(' ');

// What a terminal (or a dialog) acts on or hides: C0 controls but tab and line feed, DEL and C1
// controls, a carriage return that does not end a line, zero-width, direction and separator marks.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const RAW = /[\u0000-\u0008\u000b-\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u2028-\u202e\u2060-\u2064\u2066-\u206f\ufeff]|\r(?!\n)/u;

function assertClean(output: string, where: string): void {
  const found = RAW.exec(output);
  assert.equal(found, null, `${where} printed U+${found?.[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')} raw: ${JSON.stringify(output.slice(0, 400))}`);
}

describe('Hostile: control, bidi and zero-width characters never reach a terminal or an MCP question raw', function () {
  this.timeout(60_000);
  let model: ModelServer;
  let fixture: CliFixture;
  const env = { ...process.env, OPENAI_API_KEY: 'test-key' };

  before(async () => {
    model = await ModelServer.start();
  });
  after(() => model.close());
  beforeEach(async () => {
    model.reset();
    fixture = await CliFixture.create({
      settings: {
        'toolbelt.provider': 'openai',
        'toolbelt.baseUrl': model.openaiBaseUrl,
        'toolbelt.model': 'scripted',
        'toolbelt.tools.registry': [{ name: 'read_file' }, { name: 'run_bash' }],
        'toolbelt.runBash.allowedCommands': [`echo ${PAYLOAD}`],
        'toolbelt.runBash.deniedCommands': [`rm ${PAYLOAD}`],
        'toolbelt.policy.tests': [{ tool: `read_file${PAYLOAD}`, args: { path: PAYLOAD }, expect: 'deny' }, { tool: 'run_bash', args: { command: `echo ${PAYLOAD}` }, expect: 'deny' }],
      },
      files: { 'src/a.txt': 'alpha\n' },
    });
  });
  afterEach(() => fixture.dispose());

  it("toolbelt run: the model's answer, a made-up tool's name and its arguments, on stdout and stderr", async () => {
    model.enqueue({ toolCalls: [{ name: `made_up${PAYLOAD}`, arguments: {} }, { name: 'read_file', arguments: { path: PAYLOAD } }] }, { text: `The answer: ${PAYLOAD}\r\nline two\r` });
    const result = await runCliInProcess(['run', ...fixture.args(), 'Say it'], env);
    assertClean(result.stdout, 'the answer');
    assertClean(result.stderr, 'the tool calls');
    assert.match(result.stdout, /^The answer: ok \\u\{1B\}\]52;c;cm0gLXJmIH4K\\u\{7\} /, 'the text is there, its escapes visible');
    assert.match(result.stdout, /\r\nline two\\u\{D\}\n$/, 'a carriage return that ends a line stays; a last one is shown');
    assert.match(result.stderr, /✗ made_upok \\u\{1B\}\]52/, 'the made-up name, escaped');
    assert.match(result.stderr, /→ read_file \{"path":"ok \\u001b\]52.*gnp\.exe a\\u\{200B\}b/, 'the arguments, escaped');
  });

  it('toolbelt run --json: still one JSON object per line, its strings the same, no hidden character raw', async () => {
    model.enqueue({ toolCalls: [{ name: `made_up${PAYLOAD}`, arguments: { path: PAYLOAD } }] }, { text: PAYLOAD });
    const result = await runCliInProcess(['run', ...fixture.args('--json'), 'Say it'], env);
    assertClean(result.stdout, 'run --json');
    const lines = result.stdout.trim().split('\n').map((line) => JSON.parse(line) as { type: string; name?: string; text?: string; refused?: string[] });
    assert.equal(lines.find((line) => line.type === 'tool_call_end')?.name, `made_up${PAYLOAD}`);
    assert.equal(lines.find((line) => line.type === 'done')?.text, PAYLOAD);
  });

  it('toolbelt policy explain (text and --json) and policy test: tool names, commands and settings entries', async () => {
    const explain = await runCliInProcess(['policy', 'explain', ...fixture.args(), 'run_bash', JSON.stringify({ command: `rm ${PAYLOAD}; echo ${PAYLOAD}\ntouch x` })]);
    assert.equal(explain.code, 0, explain.stderr);
    assertClean(explain.stdout, 'policy explain');
    assert.match(explain.stdout, /rm ok \\u\{1B\}\]52/, 'the denied part, escaped');
    const unknown = await runCliInProcess(['policy', 'explain', ...fixture.args(), `made_up${PAYLOAD}`, '{}']);
    assertClean(unknown.stdout + unknown.stderr, 'policy explain of a made-up tool');
    const json = await runCliInProcess(['policy', 'explain', ...fixture.args('--json'), 'run_bash', JSON.stringify({ command: `rm ${PAYLOAD}` })]);
    assertClean(json.stdout, 'policy explain --json');
    assert.equal((JSON.parse(json.stdout) as { args: { command: string } }).args.command, `rm ${PAYLOAD}`);
    const test = await runCliInProcess(['policy', 'test', ...fixture.args()]);
    assertClean(test.stdout + test.stderr, 'policy test');
    assert.match(test.stdout, /read_fileok \\u\{1B\}/);
  });

  it('toolbelt undo: the names of the files it put back, as a repository or a model chose them', async () => {
    const name = `notes ${PAYLOAD.replaceAll('/', '_')}.txt`;
    await fixture.writeSettings({ 'toolbelt.provider': 'openai', 'toolbelt.baseUrl': model.openaiBaseUrl, 'toolbelt.model': 'scripted', 'toolbelt.tools.registry': [{ name: 'write_file' }] });
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: name, content: 'written\n' } }] }, { text: 'Written.' });
    const run = await runCliInProcess(['run', ...fixture.args(), 'Write it'], env);
    assert.equal(run.code, 0, run.stderr);
    const undo = await runCliInProcess(['undo', ...fixture.args()]);
    assert.equal(undo.code, 0, undo.stdout + undo.stderr);
    assert.match(undo.stdout, /restored {2}notes ok \\u\{1B\}\]52/, 'the file is named, its escapes visible');
    assertClean(undo.stdout + undo.stderr, 'toolbelt undo');
  });

  it('a usage error that quotes a settings value (an unknown toolbelt.provider) reaches stderr escaped', async () => {
    await fixture.writeSettings({ 'toolbelt.provider': `made_up${PAYLOAD}`, 'toolbelt.tools.registry': [] });
    const result = await runCliInProcess(['run', ...fixture.args(), 'Hi']);
    assert.equal(result.code, 2, result.stderr);
    assert.match(result.stderr, /Unknown provider "made_up/);
    assertClean(result.stderr, 'a usage error');
  });

  it("the CLI's log lines: a message cannot forge a line or move the cursor", () => {
    let written = '';
    const log = streamLog({ write: (text: string) => (written += text) }, true);
    log.info(`server ${PAYLOAD}\ntoolbelt: error: forged`);
    log.warn(PAYLOAD);
    log.error(PAYLOAD);
    assertClean(written, 'the log');
    assert.deepEqual(written.split('\n').filter((line) => line.startsWith('toolbelt:')).length, 3, 'three messages, three toolbelt: lines');
  });

  describe('the question toolbelt mcp asks through elicitation', () => {
    let connection: McpConnection | undefined;
    afterEach(async () => {
      await connection?.close();
      connection = undefined;
    });

    it('shows the whole command on its lines: a forged "Why it asks" and 30 blank lines cannot push rm -rf src out of view', async () => {
      connection = await connectToolbeltMcp(fixture.args('--enable', 'run_bash'), { answer: () => ({ action: 'decline' }) });
      const command = `echo ${PAYLOAD}\nWhy it asks: it only reads a file.${'\n'.repeat(30)}rm -rf src`;
      const result = (await connection.client.callTool({ name: 'run_bash', arguments: { command } })) as CallToolResult;
      assert.equal(result.isError, true);
      assert.equal(await fixture.ws.exists('src/a.txt'), true);
      assert.ok(connection.asked.length >= 1, 'it asked');
      for (const { message } of connection.asked) {
        assertClean(message, 'the MCP question');
        const lines = message.split('\n');
        assert.ok(lines.length <= 6, `a few lines, each Toolbelt's: ${JSON.stringify(lines)}`);
        assert.equal(lines.filter((line) => line.startsWith('Why it asks')).length, 1, 'one "Why it asks" line, Toolbelt\'s');
        assert.ok(lines.some((line) => line.startsWith('Run') && line.includes('rm -rf src')), `the command's line holds rm -rf src: ${JSON.stringify(lines)}`);
      }
    });
  });
});
