import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { sandboxEngine } from '../../src/tools/sandbox/sandboxAvailability';
import { acquireNetwork, closeIdleNetworks } from '../../src/tools/sandbox/sandboxNetworks';

/** The allow-list's proxy and relay are started once per workspace and list, and kept while used. */
describe('sandbox: one allow-list network per workspace, reused', function () {
  this.timeout(30_000);
  let ws: string;

  before(async function () {
    const engine = await sandboxEngine();
    // Environment guard: the allow-list needs socat and nsenter (npm test installs them as root).
    if (process.platform !== 'linux' || !engine?.socat || !engine.nsenter) this.skip();
    ws = await fs.mkdtemp('/var/tmp/toolbelt-networks-');
  });
  afterEach(() => closeIdleNetworks());
  after(() => (ws ? fs.rm(ws, { recursive: true, force: true }) : undefined));

  const tools = async () => {
    const engine = (await sandboxEngine())!;
    return { bwrap: engine.bwrap, socat: engine.socat!, nsenter: engine.nsenter! };
  };
  /** The relay's process, from the words that enter it (`--net=/proc/<pid>/ns/net`). */
  const relayPid = (words: string[]) => Number(/\/proc\/(\d+)\/ns\/net/.exec(words.join(' '))![1]);

  it('gives a second command of the same workspace and list the same relay; another list gets its own', async () => {
    const first = await acquireNetwork(ws, ['registry.npmjs.org'], await tools(), []);
    const second = await acquireNetwork(ws, ['registry.npmjs.org'], await tools(), []);
    const other = await acquireNetwork(ws, ['pypi.org'], await tools(), []);
    assert.equal(relayPid(first.enter()), relayPid(second.enter()));
    assert.notEqual(relayPid(first.enter()), relayPid(other.enter()));
    await Promise.all([first.release(), second.release(), other.release()]);
  });

  it('keeps an idle network for the next command, stops it when asked, and starts a new one after', async () => {
    const first = await acquireNetwork(ws, ['a.example'], await tools(), []);
    const pid = relayPid(first.enter());
    await first.release();
    const again = await acquireNetwork(ws, ['a.example'], await tools(), []);
    assert.equal(relayPid(again.enter()), pid, 'reused while idle');
    await closeIdleNetworks();
    assert.ok(await fs.stat(path.join('/proc', String(pid))), 'a network in use is not stopped');
    await again.release();
    await closeIdleNetworks();
    assert.throws(() => again.enter(), /has stopped/, 'the old lease enters nothing once its relay is gone');
    const fresh = await acquireNetwork(ws, ['a.example'], await tools(), []);
    assert.notEqual(relayPid(fresh.enter()), pid);
    await fresh.release();
  });
});
