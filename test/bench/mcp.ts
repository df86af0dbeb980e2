import * as os from 'node:os';
import { performance } from 'node:perf_hooks';
import { fixtureSource } from '../fixtures/mcp/fixtureSources';

export interface McpRoundTrip {
  calls: number;
  /** Median of one `tools/call` (echo) through McpServerSource to the stdio fixture, ms. */
  medianMs: number;
  p90Ms: number;
  minMs: number;
  /** First start: SDK load, spawn, initialize, tools/list. */
  startMs: number;
  cores: number;
  loadAverage: number;
}

/**
 * MCP bench for `npm run bench` (`node out/test/bench/mcp.js [calls]`): starts the good stdio
 * fixture (test/fixtures/mcp/goodServer.js) through McpServerSource, warms up, then times `calls`
 * sequential echo calls and reports the median round trip.
 */
export async function measureMcpRoundTrip(calls = 200, warmup = 20): Promise<McpRoundTrip> {
  const source = fixtureSource('goodServer.js');
  try {
    const started = performance.now();
    await source.start();
    const startMs = performance.now() - started;
    if (source.state().state !== 'running') throw new Error(`the MCP fixture did not start: ${JSON.stringify(source.state())}`);
    for (let i = 0; i < warmup; i++) await source.call('echo', { text: `warm ${i}` });
    const times: number[] = [];
    for (let i = 0; i < calls; i++) {
      const t = performance.now();
      const result = await source.call('echo', { text: `call ${i}` });
      times.push(performance.now() - t);
      if (result.text !== `call ${i}`) throw new Error(`unexpected echo: ${result.text}`);
    }
    times.sort((a, b) => a - b);
    const at = (q: number) => round(times[Math.min(times.length - 1, Math.floor(q * times.length))]);
    return { calls, medianMs: at(0.5), p90Ms: at(0.9), minMs: round(times[0]), startMs: round(startMs), cores: os.cpus().length, loadAverage: os.loadavg()[0] };
  } finally {
    await source.stop();
  }
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

if (require.main === module) {
  measureMcpRoundTrip(Number(process.argv[2] ?? 200))
    .then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
    .catch((error: Error) => {
      process.stderr.write(`${error.stack ?? error.message}\n`);
      process.exitCode = 1;
    });
}
