import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { SANDBOX_UNAVAILABLE_VARIABLE, sandboxAvailability } from '../../../src/tools/sandbox/sandboxAvailability';
import { DEFAULT_SENSITIVE_GLOBS } from '../../../src/tools/sensitiveFiles';
import { ToolManager } from '../../../src/tools/toolManager';
import type { SandboxSetting } from '../../../src/tools/types';
import { fixturePath, fixtureSource, processGone, recordingLogger } from '../../fixtures/mcp/fixtureSources';
import { McpServerSource, type McpServerSourceOptions } from '../../../src/tools/mcp/mcpServerSource';
import { waitFor } from '../../support/waitFor';
import { contextFor } from '../../support/workspace';

interface Probe {
  env: Record<string, string>;
  read: { ok: boolean; value?: string; code?: string };
  write: { ok: boolean; code?: string };
}

// A stdio MCP server started inside the sandbox: what it can reach, checked on disk and in what it
// reports; and that stopping it still ends it. Under /var/tmp: the sandbox's /tmp is private.
describe('hostile sandbox: stdio MCP servers', function () {
  this.timeout(30_000);
  let base: string;
  let workspace: string;
  const saved = { token: process.env.GITHUB_TOKEN, unavailable: process.env[SANDBOX_UNAVAILABLE_VARIABLE] };

  before(async function () {
    const availability = await sandboxAvailability();
    if (!availability.available) console.log(`      no sandbox here, skipped: ${availability.detail}`);
    if (process.platform !== 'linux' || !availability.available) this.skip();
  });
  beforeEach(async () => {
    base = await fs.mkdtemp('/var/tmp/toolbelt-sandbox-mcp-');
    workspace = path.join(base, 'workspace');
    await fs.mkdir(workspace);
    await fs.writeFile(path.join(workspace, '.env'), 'TOKEN=S3CR3T-mcp-dotenv\n');
    process.env.GITHUB_TOKEN = 'S3CR3T-mcp-env';
  });
  afterEach(async () => {
    if (saved.token === undefined) delete process.env.GITHUB_TOKEN;
    else process.env.GITHUB_TOKEN = saved.token;
    if (saved.unavailable === undefined) delete process.env[SANDBOX_UNAVAILABLE_VARIABLE];
    else process.env[SANDBOX_UNAVAILABLE_VARIABLE] = saved.unavailable;
    await fs.rm(base, { recursive: true, force: true });
  });

  const source = (setting: SandboxSetting, logger = recordingLogger()) =>
    fixtureSource('probeServer.js', { env: { SERVER_OWN: 'from-its-definition' }, logger, sandbox: () => ({ setting, roots: [workspace], sensitiveGlobs: DEFAULT_SENSITIVE_GLOBS }) });

  it('runs the server sandboxed: it reads no secret, writes only the workspace, gets its own variables and no token', async () => {
    const logger = recordingLogger();
    const server = source({ mode: 'auto', network: 'off' }, logger);
    try {
      const outside = await server.call('probe', { read: path.join(workspace, '.env'), write: path.join(base, 'outside.txt') });
      const report = JSON.parse(outside.text) as Probe;
      assert.equal(report.read.ok, false, 'the .env was read');
      assert.equal(report.write.ok, false, 'a file outside the workspace was written');
      assert.equal(await fs.access(path.join(base, 'outside.txt')).then(() => true, () => false), false);
      assert.equal(report.env.GITHUB_TOKEN, undefined);
      assert.equal(report.env.SERVER_OWN, 'from-its-definition');
      assert.ok(!outside.text.includes('S3CR3T'), outside.text);
      const inside = JSON.parse((await server.call('probe', { read: '/etc/hostname', write: path.join(workspace, 'made.txt') })).text) as Probe;
      assert.equal(inside.write.ok, true);
      assert.equal(server.containment, 'sandboxed, network off', 'the server says how it runs (each call and the call log carry it)');
      assert.equal(await fs.readFile(path.join(workspace, 'made.txt'), 'utf8'), 'written by the probe');
      assert.match(logger.text(), /started: pid \d+, .* \(sandboxed, network off\)/);
      // Through the registry, as every caller runs it: the result carries how the server runs.
      const manager = new ToolManager({ context: contextFor(workspace, { answer: true }), trusted: true, toggles: { get: () => true, set: () => undefined } });
      manager.addSource(server);
      manager.applyConfig([{ name: 'probeServer/probe' }]);
      const viaRegistry = await manager.registry.run('probeServer_probe', { read: '/etc/hostname', write: path.join(workspace, 'again.txt') });
      assert.equal(viaRegistry.status, 'ok', viaRegistry.text);
      assert.equal(viaRegistry.containment, 'sandboxed, network off');
    } finally {
      const pid = server.pid;
      await server.stop();
      if (pid !== undefined) await waitFor(() => processGone(pid), 'the sandboxed server gone', 5000);
    }
  });

  it('runs a server installed under /tmp: it sees its own package, read-only, and nothing else of /tmp', async () => {
    // The sandbox's /tmp is private; only the package the server's command line names shows through.
    const installed = await fs.mkdtemp('/tmp/toolbelt-mcp-package-');
    const neighbour = `${installed}-neighbour.txt`;
    try {
      await fs.writeFile(path.join(installed, 'package.json'), '{ "name": "probe-server" }\n');
      await fs.mkdir(path.join(installed, 'lib'));
      for (const file of ['probeServer.js', 'jsonRpcServer.js']) await fs.copyFile(fixturePath(file), path.join(installed, 'lib', file));
      await fs.writeFile(neighbour, 'S3CR3T-tmp-neighbour');
      const server = new McpServerSource({
        server: { name: 'probeServer', type: 'stdio', command: process.execPath, args: [path.join(installed, 'lib', 'probeServer.js')], env: {}, origin: 'test' },
        approve: async () => true,
        logger: recordingLogger(),
        limits: { killGraceMs: 300 },
        sandbox: () => ({ setting: { mode: 'auto', network: 'off' }, roots: [workspace], sensitiveGlobs: DEFAULT_SENSITIVE_GLOBS }),
      });
      try {
        const own = JSON.parse((await server.call('probe', { read: path.join(installed, 'package.json'), write: path.join(installed, 'lib', 'planted.js') })).text) as Probe;
        assert.equal(server.containment, 'sandboxed, network off');
        assert.deepEqual(own.read, { ok: true, value: '{ "name": "probe-server" }\n' }, 'it reads its own package');
        assert.equal(own.write.ok, false, 'its package is read-only');
        assert.equal(await fs.access(path.join(installed, 'lib', 'planted.js')).then(() => true, () => false), false);
        const other = JSON.parse((await server.call('probe', { read: neighbour, write: path.join(workspace, 'made.txt') })).text) as Probe;
        assert.equal(other.read.ok, false, 'another file in /tmp was read');
        assert.ok(!JSON.stringify(other).includes('S3CR3T'));
        assert.equal(other.write.ok, true, 'the workspace stays writable');
      } finally {
        await server.stop();
      }
    } finally {
      await fs.rm(installed, { recursive: true, force: true });
      await fs.rm(neighbour, { force: true });
    }
  });

  /** The probe server behind a shell that first leaves a file: whether the file is there says whether anything ran. */
  const markedSource = (setting: SandboxSetting, marker: string, approveUnsandboxed?: McpServerSourceOptions['approveUnsandboxed'], logger = recordingLogger()) =>
    new McpServerSource({
      server: { name: 'probeServer', type: 'stdio', command: '/bin/sh', args: ['-c', `: > "$MARKER"; exec "${process.execPath}" "${fixturePath('probeServer.js')}"`], env: { MARKER: marker, SERVER_OWN: 'from-its-definition' }, origin: 'test' },
      approve: async () => true,
      ...(approveUnsandboxed && { approveUnsandboxed }),
      logger,
      limits: { killGraceMs: 300 },
      sandbox: () => ({ setting, roots: [workspace], sensitiveGlobs: DEFAULT_SENSITIVE_GLOBS }),
    });
  const exists = (file: string) => fs.access(file).then(() => true, () => false);

  it('without a sandbox in mode "auto" and nobody to ask: the server does not start (as run_bash asks for each such command)', async () => {
    process.env[SANDBOX_UNAVAILABLE_VARIABLE] = '1';
    const marker = path.join(base, 'started');
    const server = markedSource({ mode: 'auto', network: 'off' }, marker);
    try {
      await server.start();
      const state = server.state();
      assert.equal(state.state, 'failed');
      assert.match(state.state === 'failed' ? state.reason : '', /no sandbox is available here, and nobody allowed this server to run without one/);
      assert.equal(await exists(marker), false, 'the server ran');
    } finally {
      await server.stop();
    }
  });

  it('without a sandbox in mode "auto": asks the person, starts only on yes, says so, and still keeps tokens out', async () => {
    process.env[SANDBOX_UNAVAILABLE_VARIABLE] = '1';
    const declinedMarker = path.join(base, 'declined');
    const asked: string[] = [];
    const declined = markedSource({ mode: 'auto', network: 'off' }, declinedMarker, async (_server, _hash, detail) => (asked.push(detail), false));
    try {
      await declined.start();
      assert.equal(declined.state().state, 'failed');
      assert.equal(await exists(declinedMarker), false, 'the declined server ran');
    } finally {
      await declined.stop();
    }
    assert.equal(asked.length, 1);
    assert.match(asked[0], /^it would run without a sandbox, with your account's full powers \(TOOLBELT_SANDBOX_UNAVAILABLE=1/);

    const marker = path.join(base, 'allowed');
    const logger = recordingLogger();
    const allowed = markedSource({ mode: 'auto', network: 'off' }, marker, async () => true, logger);
    try {
      const report = JSON.parse((await allowed.call('probe', { read: '/etc/hostname', write: path.join(workspace, 'made.txt') })).text) as Probe;
      assert.equal(await exists(marker), true);
      assert.equal(report.env.GITHUB_TOKEN, undefined);
      assert.equal(report.env.SERVER_OWN, 'from-its-definition');
      assert.match(logger.text(), /started: pid \d+, .* \(not sandboxed \(no sandbox available\)(; [^)]*)?\)/);
    } finally {
      await allowed.stop();
    }
  });

  it('with mode "off" nobody is asked: the server starts as it always did', async () => {
    process.env[SANDBOX_UNAVAILABLE_VARIABLE] = '1';
    const marker = path.join(base, 'off');
    let asked = 0;
    const server = markedSource({ mode: 'off', network: 'on' }, marker, async () => (asked++, false));
    try {
      await server.call('probe', { read: '/etc/hostname', write: path.join(workspace, 'made.txt') });
      assert.equal(await exists(marker), true);
      assert.equal(asked, 0);
    } finally {
      await server.stop();
    }
  });

  it('refuses to start the server with mode "required" and no sandbox, saying why', async () => {
    process.env[SANDBOX_UNAVAILABLE_VARIABLE] = '1';
    const server = source({ mode: 'required', network: 'off' });
    try {
      await server.start();
      const state = server.state();
      assert.equal(state.state, 'failed');
      assert.match(state.state === 'failed' ? state.reason : '', /toolbelt\.sandbox\.mode is "required" and no sandbox is available here/);
    } finally {
      await server.stop();
    }
  });
});
