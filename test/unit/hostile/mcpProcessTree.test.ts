import * as assert from 'node:assert/strict';
import { randomInt } from 'node:crypto';
import { promises as fs } from 'node:fs';
import type { McpServerSource } from '../../../src/tools/mcp/mcpServerSource';
import { processIsolation, type IsolationKind } from '../../../src/tools/sandbox/processIsolation';
import { readProcess } from '../../../src/tools/sandbox/processTable';
import { fixtureSource, recordingLogger } from '../../fixtures/mcp/fixtureSources';
import { waitFor } from '../../support/waitFor';

/** Host pids of the living (not zombie) processes whose command line holds `token` as a whole argument. */
async function processesWith(token: string): Promise<number[]> {
  const pids = (await fs.readdir('/proc')).filter((e) => /^\d+$/.test(e)).map(Number);
  const found = await Promise.all(
    pids.map(async (pid) => {
      const argv = (await fs.readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => '')).split('\0');
      if (!argv.includes(token)) return undefined;
      const entry = await readProcess(pid);
      return entry && !entry.zombie ? pid : undefined;
    }),
  );
  return found.filter((pid): pid is number => pid !== undefined);
}

/** A `sleep` duration no other process on the machine has: how the test finds the fixture's grandchildren. */
function uniqueToken(): string {
  return `1000.${randomInt(100_000, 999_999)}`;
}

/**
 * `setsid env -i sleep …` leaves the server's process group and session and drops the environment
 * marker; `setsid -f` also orphans it at once. After stop() (or a crash), /proc must hold none of them.
 */
describe('hostile: an MCP server cannot leave processes behind', function () {
  if (process.platform !== 'linux') return;
  this.timeout(20_000);
  const sources: McpServerSource[] = [];
  const tokens: string[] = [];
  const track = (s: McpServerSource) => (sources.push(s), s);

  afterEach(async () => {
    await Promise.all(sources.splice(0).map((s) => s.stop()));
    // Whatever a failing test left running is not left for the next one.
    for (const token of tokens.splice(0)) for (const pid of await processesWith(token)) process.kill(pid, 'SIGKILL');
  });

  function start(isolation: IsolationKind | undefined, orphan: boolean): { source: McpServerSource; token: string } {
    const token = uniqueToken();
    tokens.push(token);
    const env: Record<string, string> = { MCP_FIXTURE_SLEEP: token, ...(orphan && { MCP_FIXTURE_ORPHAN: '1' }) };
    const source = track(fixtureSource('detachedChildren.js', { env, isolation, logger: recordingLogger(), limits: { killGraceMs: 300 } }));
    return { source, token };
  }

  it('process-group fallback: a `setsid env -i` grandchild is gone after stop()', async () => {
    const { source, token } = start('process-group', false);
    await source.start();
    const [grandchild] = await waitFor(async () => {
      const found = await processesWith(token);
      return found.length === 1 ? found : undefined;
    }, 'the grandchild to run');
    const stat = await readProcess(grandchild);
    assert.notEqual(stat?.sid, source.pid, 'it left the server session');
    assert.equal(await fs.readFile(`/proc/${grandchild}/environ`, 'utf8'), '', 'and has no environment (no marker)');
    await source.stop();
    assert.deepEqual(await processesWith(token), [], 'nothing survives stop()');
  });

  describe('in a PID namespace of its own (where the machine gives one)', () => {
    before(async function () {
      if ((await processIsolation()).kind !== 'pid-namespace') this.skip();
    });

    it('a grandchild in a new session, without environment, orphaned at once, is gone after stop()', async () => {
      const { source, token } = start(undefined, true);
      await source.start();
      await waitFor(async () => ((await processesWith(token)).length === 2 ? true : undefined), 'both grandchildren to run');
      await source.stop();
      assert.deepEqual(await processesWith(token), [], 'nothing survives stop()');
    });

    it('a server that crashes takes its detached grandchildren with it', async () => {
      const { source, token } = start(undefined, true);
      await source.start();
      await waitFor(async () => ((await processesWith(token)).length === 2 ? true : undefined), 'both grandchildren to run');
      await assert.rejects(source.call('crash', {}), /exited with code 3/);
      await waitFor(async () => ((await processesWith(token)).length === 0 ? true : undefined), 'the grandchildren to be gone');
      assert.equal(source.state().state, 'failed');
    });

    it('the server itself runs as before inside it: its tools answer', async () => {
      const { source } = start(undefined, false);
      await source.start();
      assert.deepEqual(await source.call('echo', { text: 'inside' }), { text: 'inside', isError: false });
    });
  });
});
