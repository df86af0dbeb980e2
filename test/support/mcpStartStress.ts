import { promises as fs, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixtureServer } from '../fixtures/mcp/fixtureSources';
import { McpServerSource, type McpLimits } from '../../src/tools/mcp/mcpServerSource';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { DEFAULT_SENSITIVE_GLOBS } from '../../src/tools/sensitiveFiles';
import type { McpStdioServerConfig } from '../../src/tools/mcp/mcpConfig';

/**
 * `node mcpStartStress.js <cycles> <sandbox: 0|1>`: starts and stops MCP servers one after another
 * in this process, hostile and failing ones among them, with a sandboxed run_bash call every few
 * cycles, and prints one JSON report. Nothing here keeps the event loop alive (no timer, no
 * server of its own): if a start or a stop awaits something only an unref'd timer or a lost event
 * would settle, the loop empties, 'beforeExit' fires with the operation still pending, and the
 * report says which — what a test runner sees as a start that never ends.
 */
export interface StressReport {
  cycles: number;
  /** Each start's end state, e.g. `running`, `failed: did not answer initialize within 0.2 s`. */
  outcomes: Record<string, Record<string, number>>;
  bashCalls: number;
  /** Set when the loop emptied with an operation pending: `start of cycle 17 (neverInitializes)`. */
  neverSettled?: string;
  error?: string;
}

interface Case {
  name: string;
  server: () => McpStdioServerConfig;
  limits?: Partial<McpLimits>;
  /** Stop while the start is still in flight. */
  stopDuringStart?: boolean;
}

const CASES: Case[] = [
  { name: 'goodServer', server: () => fixtureServer('goodServer.js') },
  { name: 'neverInitializes', server: () => fixtureServer('neverInitializes.js'), limits: { initializeTimeoutMs: 200 } },
  { name: 'malformed', server: () => fixtureServer('malformed.js') },
  { name: 'stopDuringStart', server: () => fixtureServer('goodServer.js', 'stopDuringStart'), stopDuringStart: true },
  { name: 'detachedChildren', server: () => fixtureServer('detachedChildren.js', 'detachedChildren', { MCP_FIXTURE_SLEEP: '1000.4242' }) },
  { name: 'missingCommand', server: () => ({ ...fixtureServer('goodServer.js', 'missingCommand'), command: '/nonexistent/toolbelt-no-such-server' }) },
  { name: 'exitMidCall', server: () => fixtureServer('exitMidCall.js') },
  { name: 'ignoresSigterm', server: () => fixtureServer('ignoresSigterm.js') },
];
/** Expensive ones, every so many cycles: 10,000 tools; a 10 MB description, a 40,000-property schema and a 300-character name. */
const HEAVY: Case[] = [
  { name: 'tenThousandTools', server: () => fixtureServer('goodServer.js', 'tenThousandTools', { MCP_FIXTURE_EXTRA_TOOLS: '10000' }) },
  { name: 'hostileServer', server: () => fixtureServer('hostileServer.js') },
];
const HEAVY_EVERY = 50;
const BASH_EVERY = 5;

export async function runStress(cycles: number, sandboxed: boolean): Promise<StressReport> {
  const workspace = await fs.mkdtemp(path.join(sandboxed ? '/var/tmp' : os.tmpdir(), 'toolbelt-mcp-stress-'));
  const report: StressReport = { cycles: 0, outcomes: {}, bashCalls: 0 };
  let pending: string | undefined;
  const onEmptyLoop = () => {
    if (pending === undefined) return;
    report.neverSettled = pending;
    pending = undefined;
    rmSync(workspace, { recursive: true, force: true });
    process.stdout.write(JSON.stringify(report));
    process.exit(3);
  };
  process.on('beforeExit', onEmptyLoop);
  const sandbox = sandboxed ? () => ({ setting: { mode: 'auto' as const, network: 'off' as const }, roots: [workspace], sensitiveGlobs: DEFAULT_SENSITIVE_GLOBS }) : undefined;
  const registry = createDefaultToolRegistry({
    systemPrompt: '',
    sessionContext: '',
    sessionContextFilePath: '.toolbelt/session-context.md',
    workspaceRoot: workspace,
    sandbox: { mode: 'auto', network: 'off' },
    confirm: async () => true,
  });
  registry.enable('run_bash');
  const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
  try {
    for (let cycle = 0; cycle < cycles; cycle++) {
      const heavy = cycle % HEAVY_EVERY === HEAVY_EVERY - 1;
      const chosen = heavy ? HEAVY[Math.floor(cycle / HEAVY_EVERY) % HEAVY.length] : CASES[cycle % CASES.length];
      const source = new McpServerSource({
        server: chosen.server(),
        approve: async () => true,
        logger: quiet,
        limits: { killGraceMs: 100, ...chosen.limits },
        ...(sandbox && cycle % 2 === 1 && { sandbox }),
      });
      pending = `start of cycle ${cycle} (${chosen.name})`;
      const starting = source.start();
      if (chosen.stopDuringStart) {
        pending = `stop during the start of cycle ${cycle} (${chosen.name})`;
        await source.stop();
      }
      await starting;
      const state = source.state();
      const outcome = state.state === 'failed' ? `failed: ${state.reason.replace(/; stderr: .*/, '')}` : state.state;
      const counts = (report.outcomes[chosen.name] ??= {});
      counts[outcome] = (counts[outcome] ?? 0) + 1;
      pending = `stop of cycle ${cycle} (${chosen.name})`;
      await source.stop();
      if (cycle % BASH_EVERY === 0) {
        pending = `run_bash after cycle ${cycle}`;
        const result = await registry.execute('run_bash', { command: 'echo stress', timeoutSeconds: 20 });
        if (!/^Exit code: 0 /.test(result)) throw new Error(`run_bash after cycle ${cycle}: ${result.slice(0, 300)}`);
        report.bashCalls++;
      }
      pending = undefined;
      report.cycles++;
    }
  } catch (error) {
    report.error = `${pending ?? ''}: ${(error as Error).stack ?? String(error)}`;
  } finally {
    pending = undefined;
    process.off('beforeExit', onEmptyLoop);
    await fs.rm(workspace, { recursive: true, force: true });
  }
  return report;
}

if (require.main === module) {
  void runStress(Number(process.argv[2] ?? 200), process.argv[3] === '1').then((report) => process.stdout.write(JSON.stringify(report)));
}
