import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { memoryLog } from '../../src/cli/cliLog';
import { CliWorkspace } from '../../src/cli/cliWorkspace';
import { connectToolbeltMcp } from '../support/cliProcess';

export interface McpServerRoundTrip {
  calls: number;
  /** The call timed: read_file of a small file. */
  call: string;
  /** Median of `registry.run` in this process (the registry `toolbelt mcp` serves), ms. */
  directMedianMs: number;
  directP90Ms: number;
  /** Median of one `tools/call` from an MCP SDK client through `node dist/cli.js mcp` over stdio, ms. */
  mcpMedianMs: number;
  mcpP90Ms: number;
  /** What MCP adds to one call: the medians' difference. */
  overheadMs: number;
  /** Spawn of `toolbelt mcp` until its first tools/list answered. */
  startMs: number;
  cores: number;
  loadAverage: number;
}

const CALL = { name: 'read_file', arguments: { path: 'src/a.ts' } };

async function timed(calls: number, warmup: number, once: () => Promise<void>): Promise<number[]> {
  for (let i = 0; i < warmup; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < calls; i++) {
    const started = performance.now();
    await once();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b);
}

const at = (times: number[], q: number) => round(times[Math.min(times.length - 1, Math.floor(q * times.length))]);
const round = (ms: number) => Math.round(ms * 1000) / 1000;

/**
 * `npm run bench -- --only=mcp-server` (`node out/test/bench/mcpServer.js [calls]`): one tools/call
 * round trip through `toolbelt mcp` (a real SDK client, stdio, the built dist/cli.js) against the
 * same call straight to the registry, in the same workspace, alternating so load hits both alike.
 */
export async function measureMcpServer(calls = 300, warmup = 30): Promise<McpServerRoundTrip> {
  const parent = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-bench-mcp-'));
  const root = path.join(parent, 'workspace');
  await fs.mkdir(path.join(root, 'src'), { recursive: true });
  await fs.mkdir(path.join(root, '.vscode'));
  await fs.writeFile(path.join(root, 'src', 'a.ts'), 'export const alpha = 1;\n'.repeat(20));
  await fs.writeFile(path.join(root, '.vscode', 'settings.json'), JSON.stringify({ 'toolbelt.tools.registry': [{ name: 'read_file' }, { name: 'calculator' }] }));
  const stateDir = path.join(parent, 'state');
  const choices = { stateDir, enable: new Set<string>(), approveServers: new Set<string>(), runWithoutAsking: new Set<string>(), acceptWorkspaceCommands: false };
  const workspace = await CliWorkspace.open({ root, choices, log: memoryLog() });
  const started = performance.now();
  const connection = await connectToolbeltMcp(['--workspace', root, '--state-dir', stateDir]);
  try {
    await connection.client.listTools();
    const startMs = performance.now() - started;
    const caller = { kind: 'bench', label: 'bench' };
    const direct: number[] = [];
    const mcp: number[] = [];
    for (let round = 0; round < 3; round++) {
      direct.push(...(await timed(calls / 3, warmup, async () => void (await workspace.manager.registry.run(CALL.name, CALL.arguments, { caller })))));
      mcp.push(...(await timed(calls / 3, warmup, async () => void (await connection.client.callTool(CALL)))));
    }
    direct.sort((a, b) => a - b);
    mcp.sort((a, b) => a - b);
    return {
      calls,
      call: `${CALL.name} ${JSON.stringify(CALL.arguments)}`,
      directMedianMs: at(direct, 0.5),
      directP90Ms: at(direct, 0.9),
      mcpMedianMs: at(mcp, 0.5),
      mcpP90Ms: at(mcp, 0.9),
      overheadMs: round(at(mcp, 0.5) - at(direct, 0.5)),
      startMs: round(startMs),
      cores: os.cpus().length,
      loadAverage: os.loadavg()[0],
    };
  } finally {
    await connection.close();
    await workspace.close();
    await fs.rm(parent, { recursive: true, force: true });
  }
}

if (require.main === module) {
  measureMcpServer(Number(process.argv[2] ?? 300))
    .then((result) => process.stdout.write(`${JSON.stringify(result)}\n`))
    .catch((error: Error) => {
      process.stderr.write(`${error.stack ?? error.message}\n`);
      process.exitCode = 1;
    });
}
