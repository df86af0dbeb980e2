import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { definitionHash } from '../../src/tools/mcp/definitionHash';
import { loadSdkClient } from '../../src/tools/mcp/loadSdkClient';
import { McpServerSource } from '../../src/tools/mcp/mcpServerSource';
import { ToolCancelledError } from '../../src/tools/toolErrors';
import type { SourceState } from '../../src/tools/toolSource';
import { fixtureServer, fixtureSource, processGone, recordingLogger } from '../fixtures/mcp/fixtureSources';
import { waitFor } from '../support/waitFor';

describe('McpServerSource with the good stdio fixture', function () {
  this.timeout(20_000);
  let source: McpServerSource;
  let marker: string;
  const logger = recordingLogger();
  const states: SourceState['state'][] = [];

  before(async () => {
    marker = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-mcp-')), 'cancelled');
    source = fixtureSource('goodServer.js', { env: { MCP_FIXTURE_MARKER: marker, MCP_FIXTURE_PAGE_SIZE: '3' }, logger });
    source.onDidChange(() => states.push(source.state().state));
    await Promise.all([source.start(), source.start()]);
  });
  after(async () => {
    await source.stop();
    await fs.rm(path.dirname(marker), { recursive: true, force: true });
  });

  it('runs once for concurrent starts and lists every page of tools with their readOnlyHint', async () => {
    assert.deepEqual(source.state(), { state: 'running' });
    assert.deepEqual(states.slice(0, 2), ['starting', 'running']);
    assert.deepEqual(
      source.tools().map((t) => t.name),
      ['echo', 'add', 'stats', 'slow', 'fail', 'image', 'grow'],
    );
    const echo = source.tools()[0];
    assert.equal(echo.readOnlyHint, true);
    assert.deepEqual(echo.parameters, { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] });
    assert.equal(source.tools()[1].readOnlyHint, false);
    assert.equal('readOnlyHint' in source.tools()[2], false);
    assert.equal(source.id, 'goodServer');
    assert.equal(source.kind, 'mcp');
    assert.ok(source.pid && !(await processGone(source.pid)));
    assert.match(logger.text(), /\[goodServer stderr\] good fixture ready/);
    assert.equal(logger.lines.filter((l) => /is running \(pid/.test(l.message)).length, 1, 'one process for two starts');
  });

  it('calls tools: text, numbers, structured content, isError, unknown tool', async () => {
    assert.deepEqual(await source.call('echo', { text: 'héllo' }), { text: 'héllo', isError: false });
    assert.deepEqual(await source.call('add', { a: 2, b: 40 }), { text: '42', isError: false });
    assert.deepEqual(JSON.parse((await source.call('stats', {})).text), { files: 3, lines: 120 });
    assert.deepEqual(await source.call('fail', {}), { text: 'the fixture failed on purpose', isError: true });
    const unknown = await source.call('nope', {});
    assert.equal(unknown.isError, true);
    assert.match(unknown.text, /Unknown tool: nope/);
  });

  it('describes image, audio and resource parts instead of dropping them', async () => {
    const result = await source.call('image', {});
    assert.equal(
      result.text,
      ['a picture:', '[image: image/png, 12 KB]', '[audio: audio/wav, 1 KB]', '[resource: file:///notes.txt, text/plain]', 'resource text', '[resource link: file:///report.pdf (report), application/pdf]'].join('\n'),
    );
  });

  it('re-lists on tools/list_changed and fires onDidChange', async () => {
    let changes = 0;
    const listening = source.onDidChange(() => changes++);
    const result = await source.call('grow', {});
    assert.equal(result.text, 'added grown_7');
    await waitFor(() => source.tools().some((t) => t.name === 'grown_7'), 'the grown tool to be listed');
    assert.ok(changes >= 1);
    assert.deepEqual(await source.call('grown_7', {}), { text: 'grown_7', isError: false });
    listening.dispose();
  });

  it('cancels a call: the server receives notifications/cancelled and keeps serving', async () => {
    const controller = new AbortController();
    const call = source.call('slow', { ms: 60_000 }, { signal: controller.signal });
    await waitFor(() => logger.lines.some((l) => l.message.includes('slow started')), 'the slow call to reach the server');
    controller.abort();
    await assert.rejects(call, (error: Error) => error instanceof ToolCancelledError && /notifications\/cancelled/.test(error.message));
    const written = await waitFor(() => fs.readFile(marker, 'utf8').catch(() => ''), 'the fixture to record the cancellation');
    assert.match(written, /^cancelled \d+$/);
    assert.deepEqual(await source.call('echo', { text: 'still here' }), { text: 'still here', isError: false });
  });

  it('refuses a call whose signal is already aborted without sending it', async () => {
    await assert.rejects(source.call('echo', { text: 'x' }, { signal: AbortSignal.abort() }), ToolCancelledError);
  });

  it('stops: the process is gone, the state is stopped, tools are empty; start runs a new process', async () => {
    const pid = source.pid!;
    await source.stop();
    assert.ok(await processGone(pid), `pid ${pid} still runs`);
    assert.deepEqual(source.state(), { state: 'stopped' });
    assert.deepEqual(source.tools(), []);
    await source.start();
    assert.deepEqual(source.state(), { state: 'running' });
    assert.notEqual(source.pid, pid);
  });
});

describe('McpServerSource limits and gates', function () {
  this.timeout(20_000);
  const sources: McpServerSource[] = [];
  const track = (s: McpServerSource) => (sources.push(s), s);
  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.stop()));
  });

  it('caps the tool list and the output, with a warning and a notice', async () => {
    const logger = recordingLogger();
    const source = track(fixtureSource('goodServer.js', { env: { MCP_FIXTURE_EXTRA_TOOLS: '30', MCP_FIXTURE_PAGE_SIZE: '4' }, logger, limits: { maxTools: 10, maxOutputChars: 100 } }));
    await source.start();
    assert.equal(source.tools().length, 10);
    assert.match(logger.text(), /warn: .*offers more tools than Toolbelt lists; only the first 10/);
    const result = await source.call('echo', { text: 'a'.repeat(500) });
    assert.equal(result.text, `${'a'.repeat(50)}\n[Output truncated: showing 50 of 500 characters.]`);
  });

  it('times a call out: rejects, and the server is told to cancel', async () => {
    const marker = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-mcp-')), 'cancelled');
    const source = track(fixtureSource('goodServer.js', { env: { MCP_FIXTURE_MARKER: marker }, limits: { callTimeoutMs: 300 } }));
    await assert.rejects(source.call('slow', { ms: 60_000 }), /the call to "goodServer\/slow" did not finish within 0\.3 s/);
    await waitFor(() => fs.readFile(marker, 'utf8').catch(() => ''), 'the fixture to record the cancellation');
    assert.deepEqual(source.state(), { state: 'running' });
  });

  it('asks approve with the definition and its hash before every start; "no" fails without running anything', async () => {
    const server = fixtureServer('goodServer.js', 'gated');
    const asked: [unknown, string][] = [];
    let answer = false;
    const source = track(
      new McpServerSource({
        server,
        logger: recordingLogger(),
        approve: async (definition, hash) => (asked.push([definition, hash]), answer),
      }),
    );
    await source.start();
    assert.deepEqual(source.state(), { state: 'failed', reason: 'not approved' });
    assert.equal(source.pid, undefined);
    assert.deepEqual(asked, [[server, definitionHash(server)]]);
    answer = true;
    await source.start();
    assert.deepEqual(source.state(), { state: 'running' });
    assert.equal(asked.length, 2);
  });

  it('passes the same hash whatever value an input gets, asking for it at each start; never logs the value', async () => {
    const hashes: string[] = [];
    const values = ['first-S3CRET', 'second-S3CRET'];
    const logger = recordingLogger();
    const base = fixtureServer('goodServer.js', 'withInput');
    const server = { ...base, args: [...base.args, '--key=${input:secret}'], env: { SECRET: '${input:secret}' } };
    const make = () =>
      track(
        new McpServerSource({
          server,
          inputs: [{ id: 'secret', type: 'promptString', description: 'Secret', password: true }],
          variables: { resolveInput: async () => values.shift() },
          logger,
          approve: async (_d, hash) => (hashes.push(hash), true),
        }),
      );
    await make().start();
    await make().start();
    assert.equal(hashes.length, 2);
    assert.equal(hashes[0], hashes[1]);
    assert.deepEqual(values, []);
    assert.match(logger.text(), /"withInput" started: pid \d+, .*--key=\$\{input:secret\}/);
    assert.doesNotMatch(logger.text(), /S3CRET/);
  });

  it('fails with a clear reason when the command does not exist, or an input is refused', async () => {
    const missing = track(new McpServerSource({ server: { ...fixtureServer('x.js', 'missing'), command: '/nonexistent/mcp-server' }, logger: recordingLogger(), approve: async () => true }));
    await missing.start();
    assert.deepEqual(missing.state(), { state: 'failed', reason: 'command not found: /nonexistent/mcp-server' });
    const refused = track(
      new McpServerSource({
        server: { ...fixtureServer('goodServer.js', 'refused'), args: ['${input:k}'] },
        inputs: [{ id: 'k', type: 'promptString', description: 'Key', password: false }],
        variables: { resolveInput: async () => undefined },
        logger: recordingLogger(),
        approve: async () => true,
      }),
    );
    await refused.start();
    assert.deepEqual(refused.state(), { state: 'failed', reason: 'no value was given for the input "k" (Key).' });
  });

  it('starts a not-started server on call, and loads the SDK only when a server starts', async () => {
    let loads = 0;
    const source = track(
      fixtureSource('goodServer.js', {
        loadSdk: () => {
          loads++;
          return loadSdkClient();
        },
      }),
    );
    assert.equal(loads, 0);
    assert.deepEqual(await source.call('echo', { text: 'auto' }), { text: 'auto', isError: false });
    assert.ok(loads >= 1);
  });

  it('keeps the SDK out of the modules the source imports (it is required lazily)', () => {
    const module = path.resolve(__dirname, '../../src/tools/mcp/mcpServerSource.js');
    const loaded = execFileSync(
      process.execPath,
      ['-e', `require(${JSON.stringify(module)}); console.log(Object.keys(require.cache).filter((k) => k.includes('@modelcontextprotocol')).length)`],
      { encoding: 'utf8' },
    );
    assert.equal(loaded.trim(), '0');
  });
});
