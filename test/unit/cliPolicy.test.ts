import * as assert from 'node:assert/strict';
import type { Explanation } from '../../src/cli/policyCommands';
import { CliFixture } from '../support/cliFixture';
import { runCliInProcess } from '../support/cliInProcess';
import { runCliProcess } from '../support/cliProcess';

// Line numbers matter: the tests below name them.
const SETTINGS = `{
  // The tools of this workspace
  "toolbelt.tools.registry": [
    { "name": "read_file" },
    { "name": "write_file" },
    { "name": "run_bash" },
    { "name": "move" }
  ],
  "toolbelt.runBash.allowedCommands": [
    "git status",
    "npm test",
    "/^echo [a-z ]+$/"
  ],
  "toolbelt.runBash.deniedCommands": ["rm", "curl"],
  "toolbelt.tools.sensitiveFiles": ["*.secret", ".env"],
  "toolbelt.policy.tests": [
    { "tool": "run_bash", "args": { "command": "git status" }, "expect": "allow" },
    { "tool": "run_bash", "args": { "command": "rm -rf /" }, "expect": "deny" },
    { "tool": "read_file", "args": { "path": "keys.secret" }, "expect": "ask" },
    { "tool": "write_file", "args": { "path": ".vscode/x.json", "content": "" }, "expect": "allow" }
  ]
}
`;

describe('toolbelt policy explain and policy test', function () {
  this.timeout(20_000);
  let fixture: CliFixture;

  before(async () => {
    fixture = await CliFixture.create({
      settings: SETTINGS,
      user: { 'toolbelt.runBash.deniedCommands': ['sudo'] },
      files: { 'keys.secret': 'k', 'src/a.ts': 'export {};\n' },
    });
  });
  after(() => fixture.dispose());

  async function explain(tool: string, args: Record<string, unknown>, ...flags: string[]): Promise<Explanation> {
    const result = await runCliInProcess(['policy', 'explain', ...fixture.args('--json', ...flags), tool, JSON.stringify(args)]);
    assert.equal(result.code, 0, result.stderr);
    return JSON.parse(result.stdout) as Explanation;
  }

  it('names each simple command of a shell command with its verdict and the line of its rule', async () => {
    const e = await explain('run_bash', { command: 'git status && rm -rf build' }, '--accept-workspace-commands');
    assert.equal(e.verdict, 'deny');
    assert.deepEqual(
      e.parts!.map((p) => [p.text, p.verdict, p.rule.file, p.rule.line, p.rule.entry]),
      [
        ['git status', 'allow', '.vscode/settings.json', 10, 'git status'],
        ['rm -rf build', 'deny', '.vscode/settings.json', 14, 'rm'],
      ],
    );
    assert.equal(e.rule.text, '.vscode/settings.json:14 (toolbelt.runBash.deniedCommands "rm")');
    const allowed = await explain('run_bash', { command: 'git status | npm test && echo all done' }, '--accept-workspace-commands');
    assert.equal(allowed.verdict, 'allow');
    assert.deepEqual(allowed.parts!.map((p) => p.rule.line), [10, 11, 12]);
  });

  it('says a part that writes files or that no rule covers asks, by a built-in rule', async () => {
    const e = await explain('run_bash', { command: 'git status > out.txt; make' }, '--accept-workspace-commands');
    assert.equal(e.verdict, 'ask');
    assert.deepEqual(e.parts!.map((p) => [p.text, p.verdict, p.rule.kind]), [
      ['git status > out.txt', 'ask', 'builtin'],
      ['make', 'ask', 'builtin'],
    ]);
    assert.match(e.parts![0].reason, /writes to out\.txt/);
  });

  it('says inline code under deny rules is refused by a built-in rule, not by an entry', async () => {
    const e = await explain('run_bash', { command: "python3 -c 'print(1)'" });
    assert.equal(e.verdict, 'deny');
    assert.deepEqual(e.parts!.map((p) => [p.verdict, p.rule.kind]), [['deny', 'builtin']]);
    assert.match(e.parts![0].rule.text, /deniedCommands set, code the rules cannot read .* is refused/);
  });

  it("applies the workspace's allowed commands only when the person accepted them", async () => {
    const result = await runCliInProcess(['policy', 'explain', ...fixture.args(), 'run_bash', '{"command":"git status"}']);
    assert.equal(result.code, 0);
    assert.match(result.stdout, /^ask {2}run_bash/);
    assert.match(result.stderr, /--accept-workspace-commands/);
  });

  it("finds a rule in the person's own settings file by its line", async () => {
    const e = await explain('run_bash', { command: 'sudo ls' });
    assert.equal(e.verdict, 'deny');
    assert.equal(e.rule.file, fixture.userSettings);
    assert.equal(e.rule.line, 3); // the entry "sudo", on its own line of the JSON written above
  });

  it('names sensitive-file globs, protected paths and the path guard', async () => {
    const secret = await explain('read_file', { path: 'keys.secret' });
    assert.deepEqual([secret.verdict, secret.rule.text], ['ask', '.vscode/settings.json:15 (toolbelt.tools.sensitiveFiles "*.secret")']);
    const git = await explain('write_file', { path: '.git/config', content: '' });
    assert.deepEqual([git.verdict, git.rule.kind], ['ask', 'builtin']);
    assert.match(git.rule.text, /protected paths/);
    const outside = await explain('read_file', { path: '../state' });
    assert.deepEqual([outside.verdict, outside.rule.kind], ['deny', 'builtin']);
    assert.match(outside.rule.text, /inside the workspace/);
    const plain = await explain('read_file', { path: 'src/a.ts' });
    assert.deepEqual([plain.verdict, plain.rule.kind], ['allow', 'builtin']);
  });

  it('denies a tool the workspace does not register, pointing at the registry', async () => {
    const e = await explain('remove', { path: 'src/a.ts' });
    assert.equal(e.verdict, 'deny');
    assert.equal(e.rule.text, '.vscode/settings.json:3 (toolbelt.tools.registry)');
  });

  it('prints allow | ask | deny first, the reason and where, in text', async () => {
    const result = await runCliInProcess(['policy', 'explain', ...fixture.args(), 'run_bash', '{"command":"curl example.com"}']);
    assert.match(result.stdout, /^deny {2}run_bash \{"command":"curl example.com"\}\n {2}reason: .*denied by "curl"/);
    assert.match(result.stdout, /where: {2}\.vscode\/settings\.json:14/);
    assert.match(result.stdout, /note: {3}run_bash is off until/);
  });

  it('usage errors exit 2: arguments that are not a JSON object, no tool', async () => {
    for (const argv of [['run_bash', '{command: ls}'], ['run_bash', '[1]'], []]) {
      const result = await runCliInProcess(['policy', 'explain', ...fixture.args(), ...argv]);
      assert.equal(result.code, 2, argv.join(' '));
      assert.match(result.stderr, /toolbelt --help/);
    }
  });

  it("usage errors exit 2: a workspace that is not a folder, a person's settings file that is not there", async () => {
    const noFolder = await runCliInProcess(['policy', 'test', '--workspace', fixture.ws.path('keys.secret')]);
    assert.deepEqual([noFolder.code, /not a folder/.test(noFolder.stderr)], [2, true]);
    const noFile = await runCliInProcess(['policy', 'test', '--workspace', fixture.root, '--user-settings', fixture.ws.path('missing.json')]);
    assert.deepEqual([noFile.code, /there is no such file/.test(noFile.stderr)], [2, true]);
    const unknown = await runCliInProcess(['policy', 'test', ...fixture.args('--frobnicate')]);
    assert.deepEqual([unknown.code, /Unknown option --frobnicate/.test(unknown.stderr)], [2, true]);
  });

  it('policy test checks every example and exits non-zero naming each mismatch by its line', async () => {
    const result = await runCliProcess(['policy', 'test', ...fixture.args('--accept-workspace-commands')]);
    assert.equal(result.code, 1);
    const lines = result.stdout.trim().split('\n');
    assert.deepEqual(lines.map((l) => l.split(/\s+/)[0]), ['pass', 'pass', 'pass', 'FAIL', '4']);
    assert.match(lines[3], /^FAIL {2}\.vscode\/settings\.json:20 {2}toolbelt\.policy\.tests\[3\]: write_file .* expected allow, got ask/);
    assert.equal(lines[4], '4 examples: 3 passed, 1 failed.');
  });

  it('policy test exits 0 when every example matches, and 1 when there is nothing to check', async () => {
    const passing = await CliFixture.create({
      settings: {
        'toolbelt.tools.registry': [{ name: 'read_file' }],
        'toolbelt.policy.tests': [{ tool: 'read_file', args: { path: '.env' }, expect: 'ask' }, { tool: 'read_file', args: { path: 'a' }, expect: 'allow' }],
      },
      files: { '.env': 'X=1', a: 'a' },
    });
    const none = await CliFixture.create({ settings: { 'toolbelt.tools.registry': [] } });
    try {
      const ok = await runCliProcess(['policy', 'test', ...passing.args()]);
      assert.equal(ok.code, 0, ok.stdout + ok.stderr);
      assert.match(ok.stdout, /2 examples: 2 passed, 0 failed\./);
      const empty = await runCliInProcess(['policy', 'test', ...none.args()]);
      assert.equal(empty.code, 1);
      assert.match(empty.stdout, /no toolbelt\.policy\.tests/);
    } finally {
      await passing.dispose();
      await none.dispose();
    }
  });
});
