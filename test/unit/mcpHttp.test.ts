import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { McpServerSource } from '../../src/tools/mcp/mcpServerSource';
import { fixturePath, recordingLogger } from '../fixtures/mcp/fixtureSources';

/** Runs the HTTP fixture and resolves with its port once it listens. */
async function runHttpFixture(args: string[]): Promise<{ child: ChildProcess; port: number }> {
  const child = spawn(process.execPath, [fixturePath('httpServer.js'), ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
  let output = '';
  child.stdout!.setEncoding('utf8');
  const port = await new Promise<number>((resolve, reject) => {
    child.stdout!.on('data', (chunk: string) => {
      output += chunk;
      const match = /listening (\d+)/.exec(output);
      if (match) resolve(Number(match[1]));
    });
    child.once('exit', (code) => reject(new Error(`the HTTP fixture exited with ${code}`)));
  });
  return { child, port };
}

describe('McpServerSource over HTTP', function () {
  this.timeout(20_000);
  const running: ChildProcess[] = [];
  const sources: McpServerSource[] = [];
  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.stop()));
    for (const child of running.splice(0)) {
      child.kill();
      if (child.exitCode === null && child.signalCode === null) await once(child, 'exit');
    }
  });

  for (const [mode, args, via] of [
    ['streamable HTTP', [], 'streamable'],
    ['an SSE-only server (streamable POST answered 405 → SSE fallback)', ['--sse-only'], 'sse'],
  ] as const) {
    it(`talks to ${mode}, sending the configured headers with inputs substituted`, async () => {
      const { child, port } = await runHttpFixture([...args]);
      running.push(child);
      const logger = recordingLogger();
      const source = new McpServerSource({
        server: { name: 'web', type: 'http', url: `http://127.0.0.1:${port}/mcp`, headers: { Authorization: 'Bearer ${input:key}' }, origin: 'test' },
        inputs: [{ id: 'key', type: 'promptString', description: 'Key', password: true }],
        variables: { resolveInput: async () => 'k-123' },
        approve: async () => true,
        logger,
      });
      sources.push(source);
      await source.start();
      assert.deepEqual(source.state(), { state: 'running' }, logger.text());
      assert.deepEqual(
        source.tools().map((t) => t.name),
        ['echo', 'whoami'],
      );
      assert.deepEqual(await source.call('echo', { text: 'over http' }), { text: 'over http', isError: false });
      assert.deepEqual(await source.call('whoami', {}), { text: `${via}: Bearer k-123`, isError: false });
      assert.match(logger.text(), new RegExp(`connected over ${via === 'sse' ? 'sse' : 'streamable-http'}`));
      await source.stop();
      assert.deepEqual(source.state(), { state: 'stopped' });
    });
  }

  it('fails clearly when nothing listens at the URL', async () => {
    const probe = createServer().listen(0, '127.0.0.1');
    await once(probe, 'listening');
    const port = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const source = new McpServerSource({
      server: { name: 'down', type: 'http', url: `http://127.0.0.1:${port}/mcp?key=secret`, headers: {}, origin: 'test' },
      approve: async () => true,
      logger: recordingLogger(),
      limits: { initializeTimeoutMs: 3000 },
    });
    sources.push(source);
    await source.start();
    const state = source.state();
    assert.equal(state.state, 'failed');
    assert.match(state.state === 'failed' ? state.reason : '', new RegExp(`^cannot connect to http://127\\.0\\.0\\.1:${port}/mcp: fetch failed \\(ECONNREFUSED\\)$`));
  });
});
