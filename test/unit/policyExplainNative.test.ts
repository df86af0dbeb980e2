import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import * as path from 'node:path';
import type { Explanation } from '../../src/cli/policyCommands';
import { CliFixture } from '../support/cliFixture';
import { runCliInProcess } from '../support/cliInProcess';

const CLI = path.resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');

const SETTINGS = `{
  "toolbelt.tools.registry": [{ "name": "calculator" }],
  "toolbelt.runBash.deniedCommands": ["rm"]
}
`;

/**
 * `toolbelt policy explain` for another agent's own tool (VS Code's run_in_terminal, Claude Code's
 * Bash): what `toolbelt hook` decides for it, and whether a hook governs it here; never Toolbelt's
 * "deny: not an active tool" for a call the agent in fact runs.
 */
describe("policy explain for another agent's own tools", function () {
  this.timeout(30_000);
  let fixture: CliFixture;

  beforeEach(async () => {
    fixture = await CliFixture.create({ settings: SETTINGS, files: { '.env': 'SECRET=1\n' } });
  });
  afterEach(() => fixture.dispose());

  async function explain(tool: string, args: Record<string, unknown>, json = true): Promise<{ e: Explanation; text: string }> {
    const result = await runCliInProcess(['policy', 'explain', ...fixture.args(...(json ? ['--json'] : [])), tool, JSON.stringify(args)]);
    assert.equal(result.code, 0, result.stderr);
    return { e: json ? (JSON.parse(result.stdout) as Explanation) : ({} as Explanation), text: result.stdout };
  }

  /** The installed hook's own answer to VS Code's agent for the same call. */
  function hookSays(tool: string, args: Record<string, unknown>): string {
    const event = { hook_event_name: 'PreToolUse', session_id: 's', cwd: fixture.root, tool_name: tool, tool_input: args };
    const run = spawnSync(process.execPath, [CLI, 'hook', 'copilot'], { input: JSON.stringify(event), encoding: 'utf8', cwd: fixture.root, env: { PATH: process.env.PATH, HOME: fixture.ws.parent, TOOLBELT_STATE_DIR: fixture.stateBase, TOOLBELT_USER_SETTINGS: fixture.userSettings } });
    return (JSON.parse(run.stdout) as { permissionDecision: string }).permissionDecision;
  }

  it("answers the hook's decision for VS Code's run_in_terminal and read_file, and says nothing governs them until the hook is installed", async () => {
    const denied = await explain('run_in_terminal', { command: 'rm -rf data' });
    assert.equal(denied.e.verdict, 'deny');
    assert.equal(denied.e.rule.text, '.vscode/settings.json:3 (toolbelt.runBash.deniedCommands "rm")');
    assert.deepEqual(denied.e.native, { agent: 'copilot', label: 'Copilot', governed: 'not governed' });
    assert.equal(hookSays('run_in_terminal', { command: 'rm -rf data' }), 'deny', 'the same as the hook answers');
    const text = await explain('run_in_terminal', { command: 'rm -rf data' }, false);
    assert.match(text.text, /^not governed \(toolbelt hook copilot would deny\) {2}run_in_terminal/, 'the first word is not a deny for a call that runs');
    assert.doesNotMatch(text.text, /not an active tool/);

    const secret = await explain('read_file', { filePath: '.env' });
    assert.equal(secret.e.verdict, 'ask');
    assert.equal(hookSays('read_file', { filePath: '.env' }), 'ask');
    assert.match(secret.e.reason, /sensitive file/);

    // Installed: the hook governs them.
    assert.equal((await runCliInProcess(['agents', 'install', '--workspace', fixture.root, 'copilot'])).code, 0);
    const governed = await explain('run_in_terminal', { command: 'rm -rf data' });
    assert.equal(governed.e.native?.governed, 'hook');
    assert.match(governed.e.note ?? '', /^Governed by hook: Copilot runs `toolbelt hook copilot` before this tool/);
    const governedText = await explain('run_in_terminal', { command: 'rm -rf data' }, false);
    assert.match(governedText.text, /^deny {2}run_in_terminal/);
  });

  it("knows Claude Code's Bash, says the hook fails closed on arguments it cannot read, and still denies a name no agent has", async () => {
    const bash = await explain('Bash', { command: 'cat .env' });
    assert.equal(bash.e.native?.agent, 'claude-code');
    assert.equal(bash.e.verdict, 'ask');
    const empty = await explain('run_in_terminal', {});
    assert.equal(empty.e.verdict, 'deny');
    assert.match(empty.e.reason, /the hook cannot read this call/);
    assert.equal(empty.e.native?.agent, 'copilot');
    const unknown = await explain('teleport', {});
    assert.equal(unknown.e.verdict, 'deny');
    assert.equal(unknown.e.native, undefined);
    assert.match(unknown.e.reason, /not an active tool of this workspace/);
  });

  it("policy test judges another agent's own tool as explain and the hook do (it said \"not an active tool\" before)", async () => {
    await fixture.writeSettings({
      'toolbelt.tools.registry': [{ name: 'calculator' }],
      'toolbelt.runBash.deniedCommands': ['rm'],
      'toolbelt.policy.tests': [
        { tool: 'Bash', args: { command: 'rm -rf data' }, expect: 'deny' },
        { tool: 'Read', args: { file_path: 'src/a.ts' }, expect: 'allow' },
        { tool: 'run_in_terminal', args: { command: 'cat .env' }, expect: 'ask' },
        { tool: 'Read', args: { file_path: '.env' }, expect: 'allow' },
      ],
    });
    const result = await runCliInProcess(['policy', 'test', ...fixture.args()]);
    assert.equal(result.code, 1, result.stdout);
    assert.match(result.stdout, /4 examples: 3 passed, 1 failed\./);
    assert.match(result.stdout, /FAIL .*toolbelt\.policy\.tests\[3\]: Read \{"file_path":"\.env"\} expected allow, got ask/);
    for (const [tool, args] of [['Bash', { command: 'rm -rf data' }], ['Read', { file_path: 'src/a.ts' }], ['Read', { file_path: '.env' }]] as const) {
      const explained = (await explain(tool, args)).e.verdict;
      assert.match(result.stdout, new RegExp(`${tool} ${JSON.stringify(args).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} (is ${explained}|expected \\w+, got ${explained})`), `${tool} agrees with explain (${explained})`);
    }
  });
});
