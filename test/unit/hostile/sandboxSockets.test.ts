import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { sandboxAvailability, sandboxEngine } from '../../../src/tools/sandbox/sandboxAvailability';
import { prepareSandbox } from '../../../src/tools/sandbox/sandboxLaunch';
import { closeIdleNetworks } from '../../../src/tools/sandbox/sandboxNetworks';
import { spawnSandboxed } from '../../../src/tools/sandbox/sandboxProcess';
import { DEFAULT_SENSITIVE_GLOBS } from '../../../src/tools/sensitiveFiles';
import type { SandboxSetting } from '../../../src/tools/types';
import { fixtureSource, processGone } from '../../fixtures/mcp/fixtureSources';
import { HostSockets, NODE_CLIENT, PYTHON_CLIENT, type SocketTarget } from '../../support/hostSockets';
import { IDENTITIES, makeFixture, runJobs, type Identity, type SandboxFixture } from '../../support/sandboxFixture';
import { waitFor } from '../../support/waitFor';

const ALLOW_ALL = { allowed: ['/.*/'], denied: [] };
const NETWORKS: SandboxSetting['network'][] = ['off', 'on', 'allowlist'];

/**
 * The host's Unix sockets a sandboxed process must not reach, one of each kind: in /run (where
 * the D-Bus system bus and docker's socket are), in $XDG_RUNTIME_DIR (the session bus, ssh and gpg
 * agents, VS Code's IPC sockets: here a folder outside /run, so that its own mask counts), in the
 * workspace itself (which every sandbox shows: only the system-call filter stands there), and in
 * the abstract namespace (X11's @/tmp/.X11-unix/X0; with network "on" the sandbox shares the
 * host's), each as a stream and a datagram socket.
 */
function targetsFor(runDir: string, xdg: string, ws: string): SocketTarget[] {
  // Abstract names are the host's, shared by every suite: one of their own for each.
  const tag = `toolbelt-test-${path.basename(runDir)}`;
  return [
    { name: 'run-stream', kind: 'stream', address: path.join(runDir, 'bus.sock') },
    { name: 'run-dgram', kind: 'dgram', address: path.join(runDir, 'journal.sock') },
    { name: 'xdg-stream', kind: 'stream', address: path.join(xdg, 'bus') },
    { name: 'xdg-dgram', kind: 'dgram', address: path.join(xdg, 'notify') },
    { name: 'workspace-stream', kind: 'stream', address: path.join(ws, '.dev.sock') },
    { name: 'workspace-dgram', kind: 'dgram', address: path.join(ws, '.dgram.sock') },
    { name: 'abstract-stream', kind: 'stream', address: `@${tag}-stream` },
    { name: 'abstract-dgram', kind: 'dgram', address: `@${tag}-dgram` },
  ];
}

/** Every target was tried, every way, and refused: nothing says "connected". */
function everyAttemptRefused(output: string, targets: readonly SocketTarget[], withNode: boolean): void {
  assert.ok(!/ connected$/m.test(output), `an attempt connected:\n${output}`);
  for (const t of targets) {
    const ways = t.kind === 'stream' ? ['socket', ...(withNode ? ['node'] : [])] : ['socket', 'socketpair'];
    for (const how of ways) assert.match(output, new RegExp(`^${t.name} ${how} refused`, 'm'), `${t.name} was not tried by ${how}:\n${output}`);
  }
}

async function sandboxUsable(this: Mocha.Context, identity?: Identity): Promise<void> {
  const availability = await sandboxAvailability();
  if (!availability.available) console.log(`      no sandbox here, skipped: ${availability.detail}`);
  if (process.platform !== 'linux' || !availability.available) this.skip();
  if (identity?.owner && (process.getuid?.() !== 0 || spawnSync('setpriv', ['--version']).status !== 0)) this.skip();
  if (process.getuid?.() !== 0) this.skip(); // the listeners go into /run, which only root may write
}

// No Unix socket of the host is reachable from a sandboxed command, whatever the network setting:
// /run and $XDG_RUNTIME_DIR are empty inside, and a system-call filter refuses socket(AF_UNIX, …)
// and datagram socketpairs. Checked on the host's listeners, which count what reached them.
for (const identity of IDENTITIES) {
  describe(`hostile sandbox: the host's Unix sockets, run_bash as ${identity.name}`, function () {
    this.timeout(60_000);
    let fixture: SandboxFixture;
    let listeners: HostSockets | undefined;
    let runDir: string;
    let xdg: string;

    before(async function () {
      await sandboxUsable.call(this, identity);
      fixture = await makeFixture(identity);
      runDir = await fs.mkdtemp('/run/toolbelt-sockets-');
      xdg = path.join(fixture.base, 'xdg-runtime');
      await fs.mkdir(xdg);
      for (const dir of [runDir, xdg]) await fs.chmod(dir, 0o755);
      await fs.writeFile(path.join(fixture.ws, 'socket-client.py'), PYTHON_CLIENT);
      await fs.writeFile(path.join(fixture.ws, 'socket-client.js'), NODE_CLIENT);
      listeners = await HostSockets.start(targetsFor(runDir, xdg, fixture.ws), fixture.base);
    });

    after(async () => {
      await listeners?.close();
      if (runDir) await fs.rm(runDir, { recursive: true, force: true });
      if (fixture) await fs.rm(fixture.base, { recursive: true, force: true });
    });

    it('the listeners work: the same clients outside the sandbox reach every one of them', async () => {
      const json = JSON.stringify(listeners!.targets);
      const python = spawnSync('python3', [path.join(fixture.ws, 'socket-client.py'), json], { encoding: 'utf8' });
      spawnSync(process.execPath, [path.join(fixture.ws, 'socket-client.js'), json], { encoding: 'utf8' });
      const reached = new Set(await listeners!.take());
      assert.deepEqual([...reached].sort(), listeners!.targets.map((t) => t.name).sort(), python.stdout);
    });

    for (const network of NETWORKS) {
      it(`network "${network}": no path, runtime-folder, workspace or abstract socket of the host is reached, and /run and $XDG_RUNTIME_DIR show none`, async () => {
        const json = JSON.stringify(listeners!.targets);
        const hiddenCheck = listeners!.targets.filter((t) => !t.name.startsWith('workspace') && !t.address.startsWith('@')).map((t) => `test -e ${t.address} || echo ${t.name}-hidden`);
        const command = `python3 socket-client.py '${json}'; node socket-client.js '${json}'; ${hiddenCheck.join('; ')}; echo RAN-sockets`;
        const sandbox: SandboxSetting = { mode: 'auto', network, ...(network === 'allowlist' && { allowedDomains: ['127.0.0.1'] }) };
        const results = await runJobs(fixture, identity, [{ id: 'sockets', workspaceRoot: fixture.ws, command, sandbox, commandPolicy: ALLOW_ALL }], { XDG_RUNTIME_DIR: xdg });
        const output = results.get('sockets')!.result;
        assert.match(output, / · sandboxed, network /);
        assert.match(output, /RAN-sockets/);
        assert.deepEqual(await listeners!.take(), [], `a host socket was reached:\n${output}`);
        everyAttemptRefused(output, listeners!.targets, true);
        for (const name of ['run-stream', 'run-dgram', 'xdg-stream', 'xdg-dgram']) assert.match(output, new RegExp(`^${name}-hidden$`, 'm'), `${name} is visible inside: /run and $XDG_RUNTIME_DIR are masked`);
      });
    }

    it('work that uses Unix sockets between its own processes still runs: socketpairs, Node IPC, asyncio, multiprocessing (fork)', async () => {
      const command = [
        `node -e "const c = require('child_process').spawn(process.execPath, ['-e', 'process.send(6 * 7)'], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] }); c.on('message', (m) => console.log('ipc', m))"`,
        `python3 -c "import asyncio; asyncio.run(asyncio.sleep(0)); print('asyncio ok')"`,
        `python3 -c "import multiprocessing as mp; mp.set_start_method('fork'); print('pool', mp.Pool(2).map(abs, [-5]))"`,
        'git status --short | wc -l',
      ].join(' && ');
      const results = await runJobs(fixture, identity, [{ id: 'ipc', workspaceRoot: fixture.ws, command, commandPolicy: ALLOW_ALL }]);
      const output = results.get('ipc')!.result;
      assert.match(output, /^Exit code: 0 /, output);
      for (const expected of ['ipc 42', 'asyncio ok', 'pool [5]']) assert.ok(output.includes(expected), `${expected} missing:\n${output}`);
    });
  });
}

// A stdio MCP server gets the same sandbox: it reaches no socket of the host either.
describe("hostile sandbox: the host's Unix sockets, a stdio MCP server", function () {
  this.timeout(30_000);
  let base: string;
  let runDir: string;
  let listeners: HostSockets | undefined;
  const savedRuntime = process.env.XDG_RUNTIME_DIR;

  before(async function () {
    await sandboxUsable.call(this);
    base = await fs.mkdtemp('/var/tmp/toolbelt-sandbox-sockets-');
    runDir = await fs.mkdtemp('/run/toolbelt-sockets-');
    await fs.mkdir(path.join(base, 'workspace'));
    await fs.mkdir(path.join(base, 'xdg-runtime'));
    // Toolbelt's own runtime folder is the one the sandbox masks besides /run.
    process.env.XDG_RUNTIME_DIR = path.join(base, 'xdg-runtime');
    listeners = await HostSockets.start(targetsFor(runDir, path.join(base, 'xdg-runtime'), path.join(base, 'workspace')), base);
  });

  after(async () => {
    if (savedRuntime === undefined) delete process.env.XDG_RUNTIME_DIR;
    else process.env.XDG_RUNTIME_DIR = savedRuntime;
    await listeners?.close();
    if (runDir) await fs.rm(runDir, { recursive: true, force: true });
    if (base) await fs.rm(base, { recursive: true, force: true });
  });

  for (const network of NETWORKS) {
    it(`network "${network}": the server connects to none of them`, async () => {
      const setting: SandboxSetting = { mode: 'auto', network, ...(network === 'allowlist' && { allowedDomains: ['127.0.0.1'] }) };
      const server = fixtureSource('socketProbeServer.js', { sandbox: () => ({ setting, roots: [path.join(base, 'workspace')], sensitiveGlobs: DEFAULT_SENSITIVE_GLOBS }) });
      try {
        const streams = listeners!.targets.filter((t) => t.kind === 'stream');
        const answers = JSON.parse((await server.call('connect', { addresses: streams.map((t) => t.address) })).text) as string[];
        assert.match(server.containment ?? '', /^sandboxed/);
        assert.deepEqual(await listeners!.take(), [], `a host socket was reached: ${answers.join(', ')}`);
        assert.deepEqual(answers, streams.map(() => 'EPERM'), 'every connection is refused by the filter');
      } finally {
        const pid = server.pid;
        await server.stop();
        if (pid !== undefined) await waitFor(() => processGone(pid), 'the sandboxed server gone', 5000);
      }
    });
  }
});

// The allow-list's sandbox has no network namespace of its own: it joins the relay's. Once the
// relay is gone there is nothing to join, and the command must not run on the host's network.
describe('hostile sandbox: the allow-list relay', () => {
  it('a sandbox whose relay has stopped starts nothing', async function () {
    const engine = await sandboxEngine();
    if (process.platform !== 'linux' || !engine?.socat || !engine.nsenter) this.skip();
    const ws = await fs.mkdtemp('/var/tmp/toolbelt-relay-');
    try {
      const prepared = await prepareSandbox({ setting: { mode: 'auto', network: 'allowlist', allowedDomains: [] }, roots: [ws], sensitiveGlobs: [], cwd: ws }, engine!);
      assert.equal(path.basename(prepared.command(['true'])[0]), 'nsenter', 'the sandbox starts inside the relay\'s namespaces');
      await prepared.dispose();
      // The network is kept a while for the next command; stopped now, as when it idles out.
      await closeIdleNetworks();
      assert.throws(() => spawnSandboxed(prepared, ['touch', path.join(ws, 'ran')], { cwd: ws, stdio: ['ignore', 'pipe', 'pipe'] }), /relay .* has stopped; nothing was run/);
      assert.equal(await fs.access(path.join(ws, 'ran')).then(() => true, () => false), false);
    } finally {
      await fs.rm(ws, { recursive: true, force: true });
    }
  });
});
