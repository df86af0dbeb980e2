import * as assert from 'node:assert/strict';
import { memoryLog } from '../../src/cli/cliLog';
import { CliWorkspace } from '../../src/cli/cliWorkspace';
import { readPolicy as readHookPolicy } from '../../src/cli/hookCommand';
import { acceptAsTheyAre, agentPolicyFrom, buildPolicy, decide, PolicyReader, readPolicyValues, type PolicyChoices, type PolicySource } from '../../src/policy';
import { DEFAULT_SENSITIVE_GLOBS } from '../../src/tools/sensitiveFiles';
import { CliFixture } from '../support/cliFixture';

/** A source over two plain objects: the person's settings and the workspace's, by full key. */
function source(user: Record<string, unknown>, workspace: Record<string, unknown>): PolicySource & { user: Record<string, unknown>; workspace: Record<string, unknown> } {
  const settings = { user, workspace, levels: (key: string) => ({ user: settings.user[key], workspace: settings.workspace[key] }) };
  return settings;
}

function policyOf(user: Record<string, unknown>, workspace: Record<string, unknown>, accept = { commands: false, sandbox: false }) {
  const values = readPolicyValues(source(user, workspace));
  return buildPolicy(values, acceptAsTheyAre(values, accept));
}

describe('One policy (src/policy): the layers read once, the same rules for every caller', () => {
  describe('lists that protect add up; a workspace adds, never removes', () => {
    it("a workspace's toolbelt.tools.sensitiveFiles adds to the built-in list and the person's, never replaces them", () => {
      const policy = policyOf({ 'toolbelt.tools.sensitiveFiles': ['notes/private/**'] }, { 'toolbelt.tools.sensitiveFiles': ['nothing'] });
      for (const glob of DEFAULT_SENSITIVE_GLOBS) assert.ok(policy.sensitiveGlobs.includes(glob), glob);
      assert.ok(policy.sensitiveGlobs.includes('notes/private/**'), "the person's own entry stays");
      assert.ok(policy.sensitiveGlobs.includes('nothing'), "the workspace's entry is added");
    });

    it('a workspace that empties the list changes nothing, and the problems say why', () => {
      const policy = policyOf({}, { 'toolbelt.tools.sensitiveFiles': [] });
      assert.deepEqual([...policy.sensitiveGlobs], [...DEFAULT_SENSITIVE_GLOBS]);
      assert.ok(policy.problems.some((p) => p.startsWith('Workspace settings: toolbelt.tools.sensitiveFiles leaves out ".env"')), policy.problems.join('\n'));
    });

    it("denied commands of both levels add up: the workspace cannot lift the person's", () => {
      const policy = policyOf({ 'toolbelt.runBash.deniedCommands': ['sudo'] }, { 'toolbelt.runBash.deniedCommands': ['rm'] });
      assert.deepEqual([...policy.commandPolicy!.denied].sort(), ['rm', 'sudo']);
    });

    it('read-only and hidden sandbox paths add up over the levels', () => {
      const policy = policyOf(
        { 'toolbelt.sandbox.hiddenPaths': ['~/.private'], 'toolbelt.sandbox.readOnlyPaths': ['docs/'] },
        { 'toolbelt.sandbox.hiddenPaths': ['secrets/**'], 'toolbelt.sandbox.readOnlyPaths': ['ci/'] },
      );
      assert.deepEqual(policy.sandbox.hiddenPaths, ['~/.private', 'secrets/**']);
      assert.deepEqual(policy.sandbox.readOnlyPaths, ['docs/', 'ci/']);
    });

    it('write approvals: the strictest level wins', () => {
      assert.equal(policyOf({ 'toolbelt.approvals.writes': 'never' }, { 'toolbelt.approvals.writes': 'always' }).writeApprovals, 'always');
      assert.equal(policyOf({ 'toolbelt.approvals.writes': 'never' }, {}).writeApprovals, 'never');
      assert.equal(policyOf({ 'toolbelt.approvals.writes': 'never' }, { 'toolbelt.approvals.writes': 'protected' }).writeApprovals, 'protected');
    });
  });

  describe('lists that loosen wait for the person', () => {
    const workspace = { 'toolbelt.runBash.allowedCommands': ['npm test'], 'toolbelt.sandbox.network': 'on' };

    it('apply from the workspace only once accepted, and say what waits meanwhile', () => {
      const waiting = policyOf({}, workspace);
      assert.equal(waiting.commandPolicy, undefined);
      assert.equal(waiting.sandbox.network, 'off');
      assert.deepEqual(waiting.pending.commands?.entries, ['npm test']);
      assert.deepEqual(waiting.pending.sandbox?.changes, ['network "on" instead of "off"']);

      const accepted = policyOf({}, workspace, { commands: true, sandbox: true });
      assert.deepEqual(accepted.commandPolicy?.allowed, ['npm test']);
      assert.equal(accepted.sandbox.network, 'on');
      assert.deepEqual(accepted.pending, {});
    });

    it('an acceptance holds for that exact list: one entry more waits again', () => {
      const settings = source({}, { ...workspace });
      const choices = acceptAsTheyAre(readPolicyValues(settings), { commands: true, sandbox: false });
      const reader = new PolicyReader(settings, () => choices);
      assert.deepEqual(reader.current().commandPolicy?.allowed, ['npm test']);
      settings.workspace = { ...workspace, 'toolbelt.runBash.allowedCommands': ['npm test', 'curl'] };
      assert.equal(reader.current().commandPolicy, undefined);
      assert.deepEqual(reader.current().pending.commands?.entries, ['npm test', 'curl']);
    });

    it('a workspace that only tightens applies at once', () => {
      const policy = policyOf({ 'toolbelt.sandbox.network': 'on' }, { 'toolbelt.sandbox.mode': 'required', 'toolbelt.sandbox.network': 'off' });
      assert.equal(policy.sandbox.mode, 'required');
      assert.equal(policy.sandbox.network, 'off');
      assert.deepEqual(policy.pending, {});
    });
  });

  describe('PolicyReader', () => {
    it('gives the same frozen policy while nothing changes, and a new version when something does', () => {
      const settings = source({}, { 'toolbelt.runBash.deniedCommands': ['rm'] });
      const seen: number[] = [];
      const reader = new PolicyReader(settings, () => ({}), (policy) => seen.push(policy.version));
      const first = reader.current();
      assert.equal(reader.current(), first);
      assert.ok(Object.isFrozen(first) && Object.isFrozen(first.sandbox) && Object.isFrozen(first.commandPolicy!.denied) && Object.isFrozen(first.pending));
      assert.throws(() => (first.sensitiveGlobs as string[]).push('x'), TypeError);
      settings.workspace = { 'toolbelt.runBash.deniedCommands': ['rm', 'curl'] };
      const second = reader.current();
      assert.notEqual(second, first);
      assert.deepEqual([first.version, second.version], [1, 2]);
      assert.deepEqual(seen, [1, 2]);
      assert.deepEqual(first.commandPolicy!.denied, ['rm'], 'an earlier version stays as it was');
    });

    it('rebuilds when only the person\'s choices change', () => {
      const settings = source({}, { 'toolbelt.sandbox.network': 'on' });
      const choices: PolicyChoices = {};
      const reader = new PolicyReader(settings, () => ({ ...choices }));
      assert.equal(reader.current().sandbox.network, 'off');
      choices.acceptedSandbox = reader.current().pending.sandbox!.hash;
      assert.equal(reader.current().sandbox.network, 'on');
      assert.equal(reader.current().version, 2);
    });
  });

  describe('every reader is the one reading', () => {
    it("toolbelt hook reads the sandbox's path settings too: a malformed one fails closed", async () => {
      const fixture = await CliFixture.create({ settings: { 'toolbelt.sandbox.readOnlyPaths': [42] } });
      try {
        assert.throws(
          () => readHookPolicy(fixture.root, { acceptWorkspaceCommands: false, acceptWorkspaceSandbox: false, runWithoutAsking: new Set() }),
          /the policy cannot be read: Workspace settings: toolbelt\.sandbox\.readOnlyPaths: entries that are not strings were ignored/,
        );
      } finally {
        await fixture.dispose();
      }
    });

    it("the agents' compiled policy reads the workspace's values as every caller does: a bad mode is a problem, not a silent \"auto\"", () => {
      const bad = agentPolicyFrom({ 'toolbelt.sandbox.mode': 'strict' }, '{}');
      assert.equal(bad.sandboxMode, 'auto');
      assert.ok(bad.problems.some((p) => p.includes('toolbelt.sandbox.mode must be "auto", "required" or "off"')), bad.problems.join('\n'));
      const written = agentPolicyFrom({ 'toolbelt.sandbox.network': 'allowlist', 'toolbelt.sandbox.allowedDomains': ['Registry.NPMJS.org'], 'toolbelt.runBash.deniedCommands': ['rm'], 'toolbelt.tools.sensitiveFiles': ['*.secret'] }, '{}');
      assert.deepEqual([written.network, written.allowedDomains, written.deniedCommands], ['allowlist', ['registry.npmjs.org'], ['rm']]);
      assert.ok(written.sensitiveGlobs.includes('*.secret') && written.sensitiveGlobs.includes('.env'));
      assert.deepEqual(written.problems, []);
    });
  });

  describe('decide(call)', function () {
    this.timeout(20_000);
    // Line numbers matter: the test names them.
    const SETTINGS = `{
  "toolbelt.tools.registry": [{ "name": "run_bash" }, { "name": "read_file" }],
  "toolbelt.runBash.deniedCommands": ["rm"]
}
`;

    it('answers allow | ask | deny with its reasons, the rule, and where the rule is written', async () => {
      const fixture = await CliFixture.create({ settings: SETTINGS, files: { 'a.txt': 'a', '.env': 'K=1' } });
      const workspace = await CliWorkspace.open({
        root: fixture.root,
        choices: { userSettingsFile: fixture.userSettings, stateDir: fixture.stateBase, enable: new Set(), approveServers: new Set(), runWithoutAsking: new Set(), acceptWorkspaceCommands: false },
        log: memoryLog(),
        allEnabled: true,
      });
      try {
        const registry = workspace.manager.registry;
        const files = workspace.settings.current;
        const denied = await decide(registry, files, { tool: 'run_bash', args: { command: 'rm -rf build' } });
        assert.equal(denied.decision, 'deny');
        assert.equal(denied.where, '.vscode/settings.json:3');
        assert.deepEqual([denied.rule.setting, denied.rule.entry], ['toolbelt.runBash.deniedCommands', 'rm']);

        const asked = await decide(registry, files, { tool: 'read_file', args: { path: '.env' } });
        assert.equal(asked.decision, 'ask');
        assert.equal(asked.reasons.length, asked.questions!.length);
        assert.match(asked.reasons[0], /\(sensitive\)$/);
        assert.equal(asked.where, 'built-in', 'the built-in sensitive list is written in no file');

        const allowed = await decide(registry, files, { tool: 'read_file', args: { path: 'a.txt' } });
        assert.deepEqual([allowed.decision, allowed.where], ['allow', 'built-in']);

        const outside = await decide(registry, files, { tool: 'read_file', args: { path: '../x' } });
        assert.deepEqual([outside.decision, outside.where], ['deny', 'built-in']);
        assert.match(outside.rule.text, /paths stay inside the workspace/);

        const unlocated = await decide(registry, undefined, { tool: 'run_bash', args: { command: 'rm x' } });
        assert.deepEqual([unlocated.decision, unlocated.where, unlocated.rule.text], ['deny', 'toolbelt.runBash.deniedCommands', 'toolbelt.runBash.deniedCommands "rm"']);
      } finally {
        await workspace.close();
        await fixture.dispose();
      }
    });
  });
});
