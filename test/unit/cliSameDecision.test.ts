import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { memoryLog } from '../../src/cli/cliLog';
import { CliWorkspace } from '../../src/cli/cliWorkspace';
import { explainCall } from '../../src/cli/policyCommands';
import type { Verdict } from '../../src/tools/consent';
import { McpServerSource } from '../../src/tools/mcp/mcpServerSource';
import { ToolManager } from '../../src/tools/toolManager';
import { fixtureServer, recordingLogger } from '../fixtures/mcp/fixtureSources';
import { TABLE_CALLS, TABLE_FILES, TABLE_LINKS, TABLE_OUTSIDE, TABLE_SETTINGS, TABLE_USER_SETTINGS, type TableCall, tableContext } from '../fixtures/policyTable';
import { CliFixture } from '../support/cliFixture';
import { connectToolbeltMcp, runCliProcess } from '../support/cliProcess';

async function tableWorkspace(): Promise<CliFixture> {
  const fixture = await CliFixture.create({ settings: TABLE_SETTINGS, user: TABLE_USER_SETTINGS, files: TABLE_FILES, mcpFixtures: { fixture: 'goodServer.js' } });
  for (const [file, content] of Object.entries(TABLE_OUTSIDE)) {
    await fs.mkdir(path.dirname(path.join(fixture.ws.parent, file)), { recursive: true });
    await fs.writeFile(path.join(fixture.ws.parent, file), content);
  }
  for (const [link, target] of Object.entries(TABLE_LINKS)) await fs.symlink(target, fixture.ws.path(link));
  return fixture;
}

/** The panel's way: a ToolManager over a plain context with the rules buildTrustRules makes, the server as a source; a person who says no. */
async function registryColumn(fixture: CliFixture): Promise<Verdict[]> {
  const context = tableContext(fixture.root);
  const manager = new ToolManager({ context, trusted: true, toggles: { get: () => true, set: () => undefined } });
  const source = new McpServerSource({ server: fixtureServer('goodServer.js', 'fixture'), approve: async () => true, logger: recordingLogger() });
  manager.addSource(source);
  manager.applyConfig(TABLE_SETTINGS['toolbelt.tools.registry']);
  await manager.startNeededSources();
  try {
    const verdicts: Verdict[] = [];
    for (const [tool, args] of TABLE_CALLS) {
      let asked = false;
      const caller = { kind: 'panel', confirm: async () => ((asked = true), false) };
      const result = await manager.registry.run(tool, args, { caller });
      verdicts.push(asked ? 'ask' : result.status === 'ok' ? 'allow' : 'deny');
    }
    return verdicts;
  } finally {
    await source.stop();
  }
}

/** `toolbelt mcp` as a process, through a real MCP client whose person says no. */
async function mcpColumn(fixture: CliFixture): Promise<Verdict[]> {
  const connection = await connectToolbeltMcp(fixture.args('--enable', 'run_bash', '--enable', 'remove', '--approve-server', 'fixture'), {
    answer: () => ({ action: 'decline' }),
  });
  try {
    const verdicts: Verdict[] = [];
    for (const [tool, args] of TABLE_CALLS) {
      const before = connection.asked.length;
      const result = await connection.client.callTool({ name: tool, arguments: args });
      verdicts.push(connection.asked.length > before ? 'ask' : result.isError ? 'deny' : 'allow');
    }
    return verdicts;
  } finally {
    await connection.close();
  }
}

/** What `toolbelt policy explain` decides, for each call (the command's own function, one workspace opened once). */
async function explainColumn(fixture: CliFixture): Promise<Verdict[]> {
  const workspace = await CliWorkspace.open({
    root: fixture.root,
    choices: { userSettingsFile: fixture.userSettings, stateDir: fixture.stateBase, enable: new Set(), approveServers: new Set(['fixture']), runWithoutAsking: new Set(), acceptWorkspaceCommands: false },
    log: memoryLog(),
    allEnabled: true,
  });
  try {
    const verdicts: Verdict[] = [];
    for (const [tool, args] of TABLE_CALLS) verdicts.push((await explainCall(workspace, tool, args)).verdict);
    return verdicts;
  } finally {
    await workspace.close();
  }
}

describe('The same decision everywhere: the panel registry, toolbelt mcp and policy explain', function () {
  this.timeout(120_000);
  const fixtures: CliFixture[] = [];
  let columns: { registry: Verdict[]; mcp: Verdict[]; explain: Verdict[] };

  before(async () => {
    // One workspace per column: the running columns change files, and each call must meet the same start.
    const [forRegistry, forMcp, forExplain] = await Promise.all([tableWorkspace(), tableWorkspace(), tableWorkspace()]);
    fixtures.push(forRegistry, forMcp, forExplain);
    columns = { explain: await explainColumn(forExplain), registry: await registryColumn(forRegistry), mcp: await mcpColumn(forMcp) };
  });
  after(async () => {
    for (const fixture of fixtures) await fixture.dispose();
  });

  it(`gives each of the ${TABLE_CALLS.length} calls the same allow / ask / deny in all three`, () => {
    assert.ok(TABLE_CALLS.length >= 100);
    const row = (i: number) => `${i} ${TABLE_CALLS[i][0]} ${JSON.stringify(TABLE_CALLS[i][1])}: registry ${columns.registry[i]}, mcp ${columns.mcp[i]}, explain ${columns.explain[i]}`;
    const differing = TABLE_CALLS.map((_, i) => i).filter((i) => columns.registry[i] !== columns.mcp[i] || columns.registry[i] !== columns.explain[i]);
    assert.deepEqual(differing.map(row), []);
  });

  it('exercises all three verdicts, each many times', () => {
    const count = (verdict: Verdict) => columns.explain.filter((v) => v === verdict).length;
    for (const verdict of ['allow', 'ask', 'deny'] as const) assert.ok(count(verdict) >= 20, `${verdict}: ${count(verdict)} calls`);
  });

  it('what a person was asked about never ran: the protected, removed and moved files are as they were', async () => {
    for (const fixture of fixtures.slice(0, 2)) {
      assert.equal(await fixture.ws.exists('.vscode/tasks.json'), false);
      assert.equal(await fixture.ws.exists('.git/hooks/pre-commit'), false);
      assert.equal(await fixture.ws.read('old1.txt'), 'old\n');
      assert.equal(await fixture.ws.read('.env'), 'TOKEN=1\n');
      assert.equal(await fixture.ws.exists('out.txt'), false);
      assert.equal(await fixture.ws.read('new/one.txt'), 'one');
    }
  });

  it('agrees with the real `toolbelt policy explain` process on a sample of rows', async () => {
    const sample: TableCall[] = [TABLE_CALLS[2], TABLE_CALLS[7], TABLE_CALLS[33], TABLE_CALLS.find(([, a]) => a.command === 'ls; rm x')!];
    const fixture = fixtures[2];
    for (const [tool, args] of sample) {
      const result = await runCliProcess(['policy', 'explain', ...fixture.args('--json', '--approve-server', 'fixture'), tool, JSON.stringify(args)]);
      assert.equal(result.code, 0, result.stderr);
      assert.equal((JSON.parse(result.stdout) as { verdict: Verdict }).verdict, columns.explain[TABLE_CALLS.indexOf(TABLE_CALLS.find((c) => c[0] === tool && c[1] === args)!)], `${tool} ${JSON.stringify(args)}`);
    }
  });
});
