import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { CliFixture } from '../support/cliFixture';
import { runCliProcess, type CliResult } from '../support/cliProcess';

/**
 * `toolbelt policy test --agents`: the team's examples go through each installed agent's hook path
 * (that agent's event format, the hook's answer read back as the agent reads it), so a rule that
 * holds for Toolbelt's tools but not for an agent's own ones fails in CI.
 */
describe('toolbelt policy test --agents', function () {
  this.timeout(60_000);
  let fixture: CliFixture;

  const settings = (examples: unknown[]) => ({
    'toolbelt.tools.registry': [{ name: 'run_bash' }, { name: 'read_file' }, { name: 'write_file' }],
    'toolbelt.runBash.deniedCommands': ['rm'],
    'toolbelt.policy.tests': examples,
  });
  const EXAMPLES = [
    { tool: 'run_bash', args: { command: 'rm -rf data' }, expect: 'deny' },
    { tool: 'read_file', args: { path: '.env' }, expect: 'ask' },
    { tool: 'write_file', args: { path: '.vscode/settings.json', content: '{}' }, expect: 'ask' },
    { tool: 'read_file', args: { path: 'src/a.txt' }, expect: 'allow' },
    { tool: 'write_file', args: { path: 'src/b.txt', content: 'b' }, expect: 'allow' },
  ];

  const policyTest = (...extra: string[]): Promise<CliResult> => runCliProcess(['policy', 'test', ...fixture.args('--agents', ...extra)]);

  beforeEach(async () => {
    fixture = await CliFixture.create({ settings: settings(EXAMPLES), files: { 'src/a.txt': 'a\n', '.env': 'KEY=secret\n', 'data/keep.txt': 'keep\n' } });
  });
  afterEach(() => fs.rm(fixture.ws.parent, { recursive: true, force: true }));

  it('fails, saying so, while no agent is protected', async () => {
    const result = await policyTest();
    assert.equal(result.code, 1, result.stderr);
    assert.match(result.stdout, /^FAIL {2}--agents: no agent is protected in this workspace/m);
  });

  it("passes each example through each installed agent's own tool calls; an ask becomes deny where the agent cannot ask", async () => {
    const install = await runCliProcess(['agents', 'install', 'claude-code', 'codex', 'gemini-cli', '--workspace', fixture.root]);
    assert.equal(install.code, 0, install.stderr);
    const result = await policyTest();
    assert.equal(result.code, 0, result.stdout + result.stderr);
    assert.match(result.stdout, /^pass {2}\.vscode\/settings\.json:\d+ {2}Claude Code: run_bash \{"command":"rm -rf data"\} → deny$/m);
    assert.match(result.stdout, /^pass {2}\.vscode\/settings\.json:\d+ {2}Claude Code: read_file \{"path":".env"\} → ask$/m);
    assert.match(result.stdout, /^pass {2}\.vscode\/settings\.json:\d+ {2}Codex: run_bash \{"command":"rm -rf data"\} → deny$/m);
    assert.match(result.stdout, /^pass {2}.* {2}Codex: write_file \{"path":".vscode\/settings.json","content":"\{\}"\} → deny \(it cannot ask here, so the hook denies\)$/m);
    assert.match(result.stdout, /^pass {2}.* {2}Gemini CLI: write_file \{"path":"src\/b.txt","content":"b"\} → allow$/m);
    assert.doesNotMatch(result.stdout, /Copilot|Cursor/, 'only the installed agents are checked');
    assert.doesNotMatch(result.stdout, /^FAIL/m);
    assert.deepEqual(await fixture.callLog(), [], "the rehearsals do not go into the workspace's call log");
  });

  it("fails when an agent's files drifted from the policy since install, saying how to bring them back", async () => {
    assert.equal((await runCliProcess(['agents', 'install', 'claude-code', '--workspace', fixture.root])).code, 0);
    await fixture.writeSettings({ ...settings(EXAMPLES), 'toolbelt.runBash.deniedCommands': ['rm', 'curl'] });
    const result = await policyTest();
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /^FAIL {2}--agents: Claude Code's files drifted from the policy \(.+\); run toolbelt agents install claude-code\.$/m);
    assert.equal((await runCliProcess(['agents', 'install', 'claude-code', '--workspace', fixture.root])).code, 0);
    assert.equal((await policyTest()).code, 0, 'installed again: no drift');
  });

  it('fails an example one agent answers otherwise, naming the agent and the hook\'s reason', async () => {
    await fixture.writeSettings(settings([...EXAMPLES, { tool: 'run_bash', args: { command: 'rm -rf data' }, expect: 'allow' }]));
    assert.equal((await runCliProcess(['agents', 'install', 'claude-code', '--workspace', fixture.root])).code, 0);
    const result = await policyTest();
    assert.equal(result.code, 1);
    assert.match(result.stdout, /^FAIL {2}\.vscode\/settings\.json:\d+ {2}Claude Code: run_bash \{"command":"rm -rf data"\} → deny, expected allow: Toolbelt: denied — .*toolbelt\.runBash\.deniedCommands "rm"/m);
  });
});
