import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import type { StressReport } from '../../support/mcpStartStress';

const CYCLES = 200;
/** What each start may end as; anything else (or no end at all) fails. */
const EXPECTED: Record<string, RegExp> = {
  goodServer: /^running$/,
  malformed: /^running$/,
  detachedChildren: /^running$/,
  exitMidCall: /^running$/,
  ignoresSigterm: /^running$/,
  tenThousandTools: /^running$/,
  hostileServer: /^running$/,
  neverInitializes: /^failed: did not answer initialize within 0\.2 s$/,
  // Unsandboxed, Toolbelt finds it missing; in the sandbox, bwrap says so and exits 1.
  missingCommand: /^failed: (command not found: \/nonexistent\/toolbelt-no-such-server|exited with code 1)$/,
  stopDuringStart: /^stopped$/,
};

/**
 * 200 MCP server starts and stops in one process, one after another — well-behaved servers, ones
 * that never answer initialize, crash, ignore SIGTERM, leave grandchildren, are missing, are
 * stopped mid-start, list 10,000 tools or send a 10 MB description — every other one in the
 * sandbox, with a sandboxed run_bash call every five. They run in a process of their own that
 * holds nothing else: a start or stop that waits on what keeps no event loop alive (an unref'd
 * timer, an event already missed) empties its loop, and the runner reports which one never
 * settled; one that waits on a live handle forever runs into this test's timeout.
 */
describe('hostile: MCP server starts and stops in sequence always settle', function () {
  this.timeout(240_000);
  let child: ChildProcess | undefined;

  afterEach(() => {
    if (child?.exitCode === null && child.pid !== undefined) child.kill('SIGKILL');
  });

  it(`settles every one of ${CYCLES} starts and stops, interleaved with sandboxed run_bash calls`, async () => {
    const runner = path.join(__dirname, '..', '..', 'support', 'mcpStartStress.js');
    const started = spawn(process.execPath, [runner, String(CYCLES), '1'], { stdio: ['ignore', 'pipe', 'pipe'] });
    child = started;
    let stdout = '';
    let stderr = '';
    started.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    started.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk.slice(0, 10_000)));
    const code = await new Promise<number | null>((resolve) => started.once('close', resolve));
    const report = JSON.parse(stdout || '{}') as StressReport;
    assert.equal(report.neverSettled, undefined, `the event loop emptied with the ${report.neverSettled} pending: nothing would ever settle it`);
    assert.equal(report.error, undefined);
    assert.equal(code, 0, stderr);
    assert.equal(report.cycles, CYCLES);
    assert.ok(report.bashCalls >= CYCLES / 5, String(report.bashCalls));
    for (const [name, outcomes] of Object.entries(report.outcomes)) {
      for (const outcome of Object.keys(outcomes)) assert.match(outcome, EXPECTED[name] ?? /^$/, `${name}: ${JSON.stringify(outcomes)}`);
    }
    assert.deepEqual(Object.keys(report.outcomes).sort(), Object.keys(EXPECTED).sort(), 'every kind of server ran');
  });
});
