import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { McpServerSource } from '../../src/tools/mcp/mcpServerSource';
import { fixtureSource, processGone, recordingLogger } from '../fixtures/mcp/fixtureSources';
import { waitFor } from '../support/waitFor';

describe('McpServerSource with misbehaving servers', function () {
  this.timeout(20_000);
  const sources: McpServerSource[] = [];
  const track = (s: McpServerSource) => (sources.push(s), s);
  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.stop()));
  });

  it('a server that exits mid-call: the call rejects, the state says how it ended, the next start restarts it', async () => {
    const logger = recordingLogger();
    const source = track(fixtureSource('exitMidCall.js', { logger }));
    await source.start();
    const pid = source.pid!;
    await assert.rejects(source.call('crash', {}), /MCP server "exitMidCall" stopped during the call to "exitMidCall\/crash": exited with code 3; stderr: about to crash \| fatal: the fixture exits mid-call/);
    const state = source.state();
    assert.equal(state.state, 'failed');
    assert.match(state.state === 'failed' ? state.reason : '', /^exited with code 3; stderr: /);
    assert.deepEqual(source.tools(), []);
    assert.match(logger.text(), /error: MCP server "exitMidCall" crashed: exited with code 3[^]*Last stderr lines:\nabout to crash\nfatal: the fixture exits mid-call/);
    assert.ok(await processGone(pid));
    await assert.rejects(source.call('crash', {}), /MCP server "exitMidCall" is not running: exited with code 3.*Restart it from the Tools view\./);
    assert.equal(source.state().state, 'failed', 'a call does not restart a failed server');
    await source.start();
    assert.deepEqual(source.state(), { state: 'running' });
    assert.notEqual(source.pid, pid);
  });

  it('a server that never answers initialize: failed after the timeout, its process killed', async () => {
    const logger = recordingLogger();
    const source = track(fixtureSource('neverInitializes.js', { logger, limits: { initializeTimeoutMs: 300, killGraceMs: 200 } }));
    await source.start();
    assert.deepEqual(source.state(), { state: 'failed', reason: 'did not answer initialize within 0.3 s' });
    const line = logger.lines.find((l) => /"neverInitializes" started: pid \d+/.test(l.message));
    const pid = Number(/pid (\d+)/.exec(line?.message ?? '')?.[1]);
    assert.ok(pid > 0, logger.text());
    await waitFor(() => processGone(pid), `pid ${pid} to be gone`);
  });

  it('stop during a start: the start gives up, the process is gone, a later start begins afresh', async () => {
    const logger = recordingLogger();
    const source = track(fixtureSource('neverInitializes.js', { logger, limits: { initializeTimeoutMs: 60_000, killGraceMs: 200 } }));
    const starting = source.start();
    const line = await waitFor(() => logger.lines.find((l) => /"neverInitializes" started: pid \d+/.test(l.message)), 'the spawn');
    const pid = Number(/pid (\d+)/.exec(line.message)![1]);
    await source.stop();
    await starting;
    assert.deepEqual(source.state(), { state: 'stopped' });
    await waitFor(() => processGone(pid), `pid ${pid} to be gone`);
    const again = source.start();
    assert.deepEqual(source.state(), { state: 'starting' });
    await source.stop();
    await again;
  });

  it('malformed JSON-RPC lines are logged and skipped; a result that breaks the schema is a clear error', async () => {
    const logger = recordingLogger();
    const source = track(fixtureSource('malformed.js', { logger }));
    await source.start();
    assert.deepEqual(source.state(), { state: 'running' });
    assert.deepEqual(await source.call('echo', { text: 'ok' }), { text: 'ok', isError: false });
    assert.match(logger.text(), /warn: MCP server "malformed" wrote a line that is not JSON-RPC: this line is not JSON/);
    assert.match(logger.text(), /not JSON-RPC: \{"hello": "a JSON object, but not JSON-RPC"\}/);
    await assert.rejects(source.call('bad_result', {}), /the call to "malformed\/bad_result" failed: /);
    assert.deepEqual(source.state(), { state: 'running' });
    assert.deepEqual(await source.call('echo', { text: 'still ok' }), { text: 'still ok', isError: false });
  });

  it('a 5 MB result is capped with a notice; over maxMessageBytes it is cut as it arrives and the server keeps serving', async () => {
    const source = track(fixtureSource('huge.js', { limits: { maxMessageBytes: 8 * 1024 * 1024 } }));
    const result = await source.call('huge', {});
    assert.equal(result.isError, false);
    assert.equal(result.text.length, 30_000);
    assert.ok(result.text.startsWith('x'.repeat(29_000)));
    assert.match(result.text.slice(-80), /\[Output truncated: showing 29,9\d\d of 5,242,880 characters\.\]$/);

    const logger = recordingLogger();
    const strict = track(fixtureSource('huge.js', { logger, limits: { maxMessageBytes: 1024 * 1024 } }));
    await strict.start();
    const pid = strict.pid!;
    const cut = await strict.call('huge', {});
    assert.equal(cut.text.length, 30_000);
    assert.match(cut.text.slice(-120), /\n\[Output truncated: the server sent 5,242,9\d\d bytes; the first 29,9\d\d characters are shown\.\]$/);
    assert.deepEqual(strict.state(), { state: 'running' });
    assert.equal(strict.pid, pid);
    assert.match(logger.text(), /warn: MCP server "huge" sent a message of 5,242,9\d\d bytes, over the 1 MB Toolbelt reads whole; it was read as it arrived and cut \(1 long strings cut/);
  });

  it('stop kills a server that ignores SIGTERM and stdin, and its children (same group and own session): no orphans (process-group fallback, host pids)', async () => {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-mcp-'));
    const marker = path.join(dir, 'pids.json');
    const logger = recordingLogger();
    // The fixture reports the pids it sees; inside a PID namespace those are not the host's.
    const source = track(fixtureSource('ignoresSigterm.js', { env: { MCP_FIXTURE_MARKER: marker }, logger, limits: { killGraceMs: 200 }, isolation: 'process-group' }));
    await source.start();
    const { server, children } = JSON.parse(await waitFor(() => fs.readFile(marker, 'utf8').catch(() => ''), 'the pids')) as { server: number; children: number[] };
    assert.equal(server, source.pid);
    for (const pid of [server, ...children]) assert.equal(await processGone(pid), false);
    await source.stop();
    for (const pid of [server, ...children]) await waitFor(() => processGone(pid), `pid ${pid} to be gone`);
    assert.deepEqual(source.state(), { state: 'stopped' });
    await fs.rm(dir, { recursive: true, force: true });
  });
});
