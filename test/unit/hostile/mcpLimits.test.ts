import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import type { ChatTool } from '../../../src/tools/interface';
import type { McpServerSource } from '../../../src/tools/mcp/mcpServerSource';
import { EXTERNAL_OUTPUT_MAX_CHARS } from '../../../src/tools/sourceTool';
import { ToolManager } from '../../../src/tools/toolManager';
import type { ConfirmationRequest } from '../../../src/tools/types';
import type { ExtensionToolSource } from '../../../src/vscode/sources/extensionTools';
import { externalToolText } from '../../../src/vscode/sources/sourceRowText';
import { fixtureSource, processGone, recordingLogger, type RecordingLogger } from '../../fixtures/mcp/fixtureSources';
import { RecordingLogger as ManagerLogger } from '../../support/fakeToolSource';
import { waitFor } from '../../support/waitFor';
import { requireWithVscode } from '../../support/withFakeVscode';
import { contextFor, TempWorkspace } from '../../support/workspace';

const SERVER = 'hostileServer';

/**
 * One hostile server behind a real ToolManager, as the chat uses it: what reaches the model (the
 * tool schemas, the call results), what the person is asked, and what the server gets to run.
 */
describe('hostile: what an MCP server says about its tools is bounded', function () {
  this.timeout(60_000);
  let ws: TempWorkspace;
  let source: McpServerSource;
  let manager: ToolManager;
  let serverLog: RecordingLogger;
  let managerLog: ManagerLogger;

  before(async () => {
    ws = await TempWorkspace.create();
    serverLog = recordingLogger();
    managerLog = new ManagerLogger();
    source = fixtureSource('hostileServer.js', { logger: serverLog });
    manager = new ToolManager({ context: contextFor(ws, { answer: true }), logger: managerLog });
    manager.addSource(source);
    manager.applyConfig([{ name: `${SERVER}/*` }]);
    await source.start();
    await waitFor(() => manager.list().some((t) => t.state === 'ready'), 'the tools to be registered');
  });

  after(async () => {
    await source.stop();
    await ws.dispose();
  });

  const offered = (): ChatTool[] => manager.registry.getToolsForProvider('openai') as ChatTool[];
  const row = (name: string) => manager.list().find((t) => t.name === `${SERVER}/${name}`);
  const noticesOf = (name: string) => {
    const tool = row(name);
    return tool && 'notices' in tool ? tool.notices : undefined;
  };

  it('offers the model each description within 2,048 characters and each schema within 16 KB, and leaves out a 300-character name', () => {
    const tools = offered();
    assert.deepEqual(tools.map((t) => t.function.name).sort(), ['hostileServer_echo', 'hostileServer_flood', 'hostileServer_mutate', 'hostileServer_sprawling', 'hostileServer_verbose']);
    for (const tool of tools) {
      assert.ok(tool.function.description.length <= 2048, `${tool.function.name}: ${tool.function.description.length} characters`);
      assert.ok(Buffer.byteLength(JSON.stringify(tool.function.parameters)) <= 16 * 1024, `${tool.function.name} schema`);
    }
    assert.ok(Buffer.byteLength(JSON.stringify(tools)) < 40 * 1024, 'all five tools together, as every request carries them');
    const verbose = tools.find((t) => t.function.name === 'hostileServer_verbose')!;
    assert.match(verbose.function.description, /^v+… \[description cut by Toolbelt: 10,485,760 characters\]$/);
    const sprawling = tools.find((t) => t.function.name === 'hostileServer_sprawling')!.function.parameters;
    assert.deepEqual(sprawling.properties.p0, { type: 'string', description: 'd'.repeat(40), enum: ['a', 'b'] });
    assert.deepEqual(sprawling.required, ['p0'], 'required names whose property was cut are not required');
  });

  it('says what it cut in the tree and, once, in the log', async () => {
    assert.deepEqual(noticesOf('verbose'), ['description cut from 10,485,760 to 2,048 characters']);
    const notices = noticesOf('sprawling');
    assert.match(notices?.[0] ?? '', /^input schema cut from 3.8 MB to 16 KB: \d+ of 40,000 top-level properties kept, without their details$/);
    assert.equal(externalToolText({ locked: false, runWithoutAsking: false, notices }), 'asks before each call · ⚠ schema cut');
    // A relisting (tools/list_changed) does not repeat the warnings.
    await source.call('mutate', {});
    await waitFor(() => row('echo')?.description.startsWith('Deletes'), 'the relisted tools');
    const warnings = serverLog.lines.filter((l) => l.level === 'warn').map((l) => l.message);
    assert.equal(warnings.filter((w) => w === 'MCP server "hostileServer", tool "verbose": description cut from 10,485,760 to 2,048 characters.').length, 1);
    assert.equal(warnings.filter((w) => w.startsWith('MCP server "hostileServer", tool "sprawling": input schema cut')).length, 1);
    assert.equal(warnings.filter((w) => /lists a tool whose name has 300 characters \(over 128\); it was left out/.test(w)).length, 1);
  });
});

describe('hostile: a 30 MB MCP result, and a tool that changes after "run without asking"', function () {
  this.timeout(60_000);
  let ws: TempWorkspace;
  let source: McpServerSource;
  let manager: ToolManager;
  let serverLog: RecordingLogger;
  let managerLog: ManagerLogger;
  let marker: string;
  let allow = true;
  const asked: ConfirmationRequest[] = [];

  beforeEach(async () => {
    ws = await TempWorkspace.create();
    marker = ws.path('deleted-everything');
    serverLog = recordingLogger();
    managerLog = new ManagerLogger();
    allow = true;
    asked.length = 0;
    source = fixtureSource('hostileServer.js', { env: { MCP_FIXTURE_MARKER: marker }, logger: serverLog });
    manager = new ToolManager({ context: contextFor(ws, { answer: (request) => (asked.push(request), allow) }), logger: managerLog });
    manager.addSource(source);
    manager.applyConfig([{ name: `${SERVER}/echo` }, { name: `${SERVER}/flood` }, { name: `${SERVER}/mutate` }]);
    await source.start();
    await waitFor(() => manager.list().every((t) => t.state === 'ready'), 'the tools to be registered');
  });

  afterEach(async () => {
    await source.stop();
    await ws.dispose();
  });

  it('cuts a 30 MB result to the output cap, saying how large it was; the same connection answers the next call', async () => {
    const pid = source.pid;
    const result = await manager.registry.run('hostileServer_flood', { mb: 30 });
    assert.equal(result.status, 'ok');
    assert.equal(result.text.length, EXTERNAL_OUTPUT_MAX_CHARS, 'what the model gets: the cap, notice included');
    assert.match(result.text.slice(-120), /x\n\[Output truncated: the server sent 31,457,3\d\d bytes; the first 29,9\d\d characters are shown\.\]$/);
    assert.equal(result.text.match(/\[Output truncated/g)?.length, 1, 'one notice, not one per cap');
    assert.deepEqual(source.state(), { state: 'running' });
    assert.equal(source.pid, pid, 'not restarted');
    assert.equal((await manager.registry.run('hostileServer_echo', { text: 'still answering' })).text, 'still answering');
    assert.match(serverLog.text(), /warn: MCP server "hostileServer" sent a message of 31,457,3\d\d bytes, over the 4 MB Toolbelt reads whole/);
  });

  it('stops the server at the 32 MB limit when a result is larger (50 MB): the call fails naming the limit, the process is gone', async () => {
    const pid = source.pid!;
    const result = await manager.registry.run('hostileServer_flood', { mb: 50 });
    assert.equal(result.status, 'error', result.text);
    assert.match(result.text, /MCP server "hostileServer" stopped during the call to "hostileServer\/flood": sent a message over the 32 MB limit; it was stopped/);
    assert.deepEqual(source.state(), { state: 'failed', reason: 'sent a message over the 32 MB limit; it was stopped' });
    await waitFor(() => processGone(pid), `pid ${pid} gone`);
  });

  it('asks again once tools/list_changed turns echo into "Deletes everything…": refused, the server never runs it; chosen again, it runs', async () => {
    assert.deepEqual(manager.setRunWithoutAsking(`${SERVER}/echo`, true), { ok: true });
    const unasked = await manager.registry.run('hostileServer_echo', { text: 'hi' });
    assert.deepEqual([unasked.status, unasked.approvedBy, asked.length], ['ok', 'rule', 0]);

    await manager.registry.run('hostileServer_mutate', {});
    await waitFor(() => manager.list().find((t) => t.name === `${SERVER}/echo`)?.description.startsWith('Deletes everything'), 'echo to change');
    const echo = manager.list().find((t) => t.name === `${SERVER}/echo`)!;
    assert.equal(echo.runWithoutAsking, false);
    assert.equal(echo.state === 'ready' && echo.runWithoutAskingLapsed, true);
    assert.equal(managerLog.warnings.filter((w) => w.startsWith(`"${SERVER}/echo" asks before each call again`)).length, 1);

    allow = false;
    asked.length = 0;
    const refused = await manager.registry.run('hostileServer_echo', { text: 'hi', force: true });
    assert.equal(refused.status, 'refused');
    assert.equal(asked.length, 1, 'the person was asked');
    assert.equal(asked[0].tool, 'hostileServer_echo');
    await assert.rejects(fs.stat(marker), /ENOENT/, 'the server never ran the changed tool');

    assert.deepEqual(manager.setRunWithoutAsking(`${SERVER}/echo`, true), { ok: true });
    asked.length = 0;
    const chosen = await manager.registry.run('hostileServer_echo', { text: 'hi', force: true });
    assert.deepEqual([chosen.status, chosen.approvedBy, asked.length], ['ok', 'rule', 0]);
    assert.equal(await fs.readFile(marker, 'utf8'), 'deleted everything');
  });
});

describe('hostile: VS Code\'s own MCP tools (vscode.lm.tools) are capped the same way', () => {
  it('cuts a 10 MB description and a 40,000-property schema before the catalog lists them', () => {
    const { ExtensionToolSource: Source } = requireWithVscode<{ ExtensionToolSource: typeof ExtensionToolSource }>({}, [
      require.resolve('../../../src/vscode/sources/extensionTools'),
    ]);
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 40_000; i++) properties[`p${i}`] = { type: 'string' };
    const cyclic: Record<string, unknown> = { type: 'object' };
    cyclic.properties = { self: cyclic };
    const lm = {
      tools: [
        { name: 'mcp_other_verbose', description: 'v'.repeat(10 * 1024 * 1024), inputSchema: { type: 'object', properties }, tags: [] },
        { name: 'mcp_other_cyclic', description: 'Has a cycle.', inputSchema: cyclic, tags: [] },
      ],
    };
    const source = new Source(lm as never);
    const [verbose, cycle] = source.tools();
    assert.equal(verbose.description.length, 2048);
    assert.ok(Buffer.byteLength(JSON.stringify(verbose.parameters)) <= 16 * 1024);
    assert.deepEqual(verbose.notices?.map((n) => n.split(' ').slice(0, 3).join(' ')), ['description cut from', 'input schema cut']);
    assert.deepEqual(cycle.parameters, { type: 'object', properties: {} });
    assert.deepEqual(cycle.notices, ['input schema left out: it is not JSON']);
    assert.equal(source.tools()[0], verbose, 'made once per tool');
  });
});

describe('hostile: a server that writes 100 MB on one line before it answers initialize', function () {
  this.timeout(30_000);
  let ws: TempWorkspace;
  let source: McpServerSource | undefined;

  beforeEach(async () => {
    ws = await TempWorkspace.create();
  });
  afterEach(async () => {
    await source?.stop();
    await ws.dispose();
  });

  it('is stopped as the line crosses the 32 MB limit, not at the initialize timeout: the state names the limit and the process is gone', async () => {
    const marker = ws.path('pid');
    const logger = recordingLogger();
    // The process-group containment: the pid the fixture writes is the host's.
    source = fixtureSource('hugeLine.js', { env: { MCP_FIXTURE_MARKER: marker }, logger, isolation: 'process-group', limits: { initializeTimeoutMs: 20_000 } });
    await source.start();
    assert.deepEqual(source.state(), { state: 'failed', reason: 'sent a message over the 32 MB limit; it was stopped' });
    assert.doesNotMatch(logger.text(), /did not answer initialize/);
    assert.match(logger.text(), /warn: MCP server "hugeLine": the server sent a message over the 32 MB limit; it was stopped\./);
    const pid = Number(await fs.readFile(marker, 'utf8'));
    assert.ok(pid > 0);
    await waitFor(() => processGone(pid), `pid ${pid} gone`);
  });
});
