import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { fixedAnswerHook, guardedHookLine, installHook } from '../support/agentHooks';
import { AgentWorkspace, realAgentSuite, skipUnlessRoot } from '../support/agentWorkspace';
import { codexTrustToml } from '../support/codexHookTrust';
import type { ScriptedToolCall } from '../support/modelServer';
import { allToolResults } from '../support/modelServerToolResults';
import { AGENT_PACKAGES, findAgent, runAgent, scriptTurns, SECRET, type AgentRun } from '../support/realAgents';

/*
 * The real Codex (the pinned devDependency), driven by a scripted OpenAI Responses server through a
 * `model_providers` entry of a CODEX_HOME of the test's own, in its most permissive headless mode
 * (`codex exec --dangerously-bypass-approvals-and-sandbox`): its exec_command and apply_patch run
 * with no sandbox and no question, so only Toolbelt's PreToolUse hook (.codex/hooks.json) stands in
 * the way. Each hostile case is first shown to do harm without Toolbelt.
 *
 * Codex runs a project's hooks only once the person has trusted them (a hash per hook in their own
 * config.toml, set in Codex's /hooks view): the tests record that trust as Codex does
 * (codexHookTrust.ts), and show what happens without it or after the hook line changes.
 */

const PKG = AGENT_PACKAGES.codex;
const found = findAgent('codex');
/** A model Codex knows: it then offers exec_command and the freeform apply_patch (an unknown name gets no apply_patch). */
const MODEL = 'gpt-5.5';

describe(`A real Codex (${PKG.name}) and its own tools`, function () {
  this.timeout(180_000);
  const suite = realAgentSuite('codex');

  async function place(withToolbelt: boolean, settings?: Record<string, unknown> | string, hook: { hookCommand?: string; shim?: boolean; trusted?: boolean } = {}): Promise<AgentWorkspace> {
    const p = await suite.place(withToolbelt, settings, hook);
    // Codex's own per-user configuration: the scripted server as its provider, the workspace trusted
    // (so its .codex layer, hooks included, is read), no update check, analytics or feedback.
    const codexHome = path.join(p.home, '.codex');
    await fs.mkdir(codexHome, { recursive: true });
    const toml = [
      `model = "${MODEL}"`,
      'model_provider = "scripted"',
      'check_for_update_on_startup = false',
      '[analytics]',
      'enabled = false',
      '[feedback]',
      'enabled = false',
      '[model_providers.scripted]',
      'name = "Scripted"',
      `base_url = "${suite.model.openaiBaseUrl}"`,
      'env_key = "SCRIPTED_API_KEY"',
      'wire_api = "responses"',
      `[projects.${JSON.stringify(p.root)}]`,
      'trust_level = "trusted"',
    ];
    await fs.writeFile(path.join(codexHome, 'config.toml'), toml.join('\n') + '\n');
    // Codex puts its sandbox helper beside CODEX_HOME only when that is not under the temporary folder: a TMPDIR of the test's own.
    await fs.mkdir(path.join(p.home, '..', 'tmp'));
    if (withToolbelt && hook.trusted !== false) await trust(p);
    return p;
  }

  /** Records, in the person's own Codex config, their trust in the workspace's hooks as they are now (what Codex's /hooks view does). */
  async function trust(p: AgentWorkspace): Promise<void> {
    const file = path.join(p.root, '.codex', 'hooks.json');
    await fs.appendFile(path.join(p.home, '.codex', 'config.toml'), codexTrustToml(file, JSON.parse(await fs.readFile(file, 'utf8'))));
  }

  /** Codex's own sandbox as a network-off policy sets it: workspace-write, no network, /tmp and $TMPDIR not writable. */
  const NETWORK_OFF_SANDBOX = [
    '-s',
    'workspace-write',
    '-c',
    'approval_policy="never"',
    '-c',
    'sandbox_workspace_write.network_access=false',
    '-c',
    'sandbox_workspace_write.exclude_slash_tmp=true',
    '-c',
    'sandbox_workspace_write.exclude_tmpdir_env_var=true',
  ];

  async function codex(p: AgentWorkspace, turns: ScriptedToolCall[][], options: { sandbox?: readonly string[] } = {}): Promise<{ run: AgentRun; results: string }> {
    scriptTurns(suite.model, 'exec_command', turns);
    const mode = options.sandbox ?? ['--dangerously-bypass-approvals-and-sandbox'];
    const run = await runAgent((found as { entry: string }).entry, ['exec', ...mode, '--skip-git-repo-check', '--json', 'Do the task.'], {
      cwd: p.root,
      user: p.user,
      env: p.env({ CODEX_HOME: path.join(p.home, '.codex'), SCRIPTED_API_KEY: 'test-key', TMPDIR: path.join(p.home, '..', 'tmp') }),
    });
    assert.equal(run.timedOut, false, `Codex did not end within 90 s.\n${run.stdout}\n${run.stderr}`);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.match(run.stdout, /"type":"agent_message","text":"All done\."/, run.stdout);
    if (process.env.TOOLBELT_SHOW_AGENT_RESULTS) console.log(allToolResults(suite.model.requests));
    return { run, results: allToolResults(suite.model.requests) };
  }

  const shell = (cmd: string): ScriptedToolCall[][] => [[{ name: 'exec_command', arguments: { cmd } }]];
  const patch = (body: string): ScriptedToolCall[][] => [[{ name: 'apply_patch', freeform: true, arguments: `*** Begin Patch\n${body}*** End Patch\n` }]];
  // Codex itself refuses `rm -rf`/`rm -fr` even in this mode (after the hook has run); `rm -r` it runs.
  const rmData = shell('rm -r data');
  const editSettings = patch('*** Update File: .vscode/settings.json\n@@\n-    "rm"\n+    "nothing"\n');
  const writeOutside = patch('*** Add File: ../outside.txt\n+escaped\n');

  describe('without Toolbelt (each hostile call does harm: the cases below can fail)', () => {
    it('its `cat .env` brings the secret back to the model', async () => {
      const p = await place(false);
      assert.match((await codex(p, shell('cat .env'))).results, new RegExp(SECRET));
    });

    it('its `rm -r data` removes data/', async () => {
      const p = await place(false);
      await codex(p, rmData);
      assert.equal(await p.exists('data'), false);
    });

    it('its apply_patch on .vscode/settings.json changes the policy file', async () => {
      const p = await place(false);
      await codex(p, editSettings);
      assert.match(await p.read('.vscode/settings.json'), /"nothing"/);
    });

    it('its apply_patch adding ../outside.txt creates a file outside the workspace', async () => {
      const p = await place(false);
      await codex(p, writeOutside);
      assert.equal(await p.outsideExists(), true);
    });
  });

  describe('with `toolbelt hook codex` in .codex/hooks.json', () => {
    it('its `cat .env` never brings the secret back (an ask is answered deny: Codex runs what its hook asks about)', async () => {
      const p = await place(true);
      const { results } = await codex(p, shell('cat .env'));
      assert.doesNotMatch(results, new RegExp(SECRET));
      assert.match(results, /Command blocked by PreToolUse hook: Toolbelt: denied/);
    });

    it('its `rm -r data` is denied by the workspace rule and data/ stays', async () => {
      const p = await place(true);
      const { results } = await codex(p, rmData);
      assert.equal(await p.read('data/keep.txt'), 'keep me\n');
      assert.match(results, /Toolbelt: denied.*\.vscode\/settings\.json:\d+/s);
    });

    it('its apply_patch on .vscode/settings.json leaves the file as it was', async () => {
      const p = await place(true);
      const before = await p.read('.vscode/settings.json');
      const { results } = await codex(p, editSettings);
      assert.equal(await p.read('.vscode/settings.json'), before);
      assert.match(results, /Toolbelt: denied/);
    });

    it('its apply_patch adding ../outside.txt creates nothing', async () => {
      const p = await place(true);
      const { results } = await codex(p, writeOutside);
      assert.equal(await p.outsideExists(), false);
      assert.match(results, /Toolbelt: denied.*outside the workspace/s);
    });

    it('an ordinary patch and an allowed command still work, and each decision is in the call log as Codex', async () => {
      const p = await place(true);
      const { results } = await codex(p, [...patch('*** Add File: notes/n.txt\n+written by codex\n'), ...shell('ls data')]);
      assert.equal(await p.read('notes/n.txt'), 'written by codex\n');
      assert.match(results, /keep\.txt/);
      const log = await p.callLog();
      assert.deepEqual(log.map((r) => [r.tool, r.status]), [['apply_patch', 'ok'], ['Bash', 'ok']]);
      assert.ok(log.every((r) => r.caller === 'Codex'), JSON.stringify(log));
    });

    it('a malformed .vscode/settings.json denies even an ordinary patch and command', async () => {
      const p = await place(true, '{ "toolbelt.runBash.deniedCommands": ["rm"\n');
      const { results } = await codex(p, [...patch('*** Add File: notes.txt\n+x\n'), ...shell('ls data')]);
      assert.equal(await p.exists('notes.txt'), false);
      assert.doesNotMatch(results, /keep\.txt/);
      assert.match(results, /Toolbelt: denied/);
    });

    it('is skipped by Codex, silently, while the person has not trusted it: the call runs (what `agents status` must warn about)', async () => {
      const p = await place(true, undefined, { trusted: false });
      const { run, results } = await codex(p, shell('cat .env'));
      assert.match(results, new RegExp(SECRET));
      assert.deepEqual(await p.callLog(), []);
      assert.doesNotMatch(run.stdout + run.stderr, /hook/i);
    });

    it('is skipped again once its line changes after it was trusted (a reinstall needs the trust renewed)', async () => {
      const p = await place(true);
      const file = path.join(p.root, '.codex', 'hooks.json');
      await fs.writeFile(file, (await fs.readFile(file, 'utf8')).replace('"timeout": 30', '"timeout": 31'));
      const { results } = await codex(p, shell('cat .env'));
      assert.match(results, new RegExp(SECRET));
      assert.deepEqual(await p.callLog(), []);
    });

    it('with `toolbelt` missing from PATH, a bare `toolbelt hook` line (exit 127) lets the call run: the line must guard itself', async () => {
      const p = await place(true, undefined, { shim: false });
      assert.match((await codex(p, shell('cat .env'))).results, new RegExp(SECRET));
    });

    it('with `toolbelt` missing from PATH, the guarded hook line blocks; with it there, the guarded line is Toolbelt', async () => {
      const missing = await place(true, undefined, { shim: false, hookCommand: guardedHookLine('codex') });
      const blocked = await codex(missing, shell('cat .env'));
      assert.doesNotMatch(blocked.results, new RegExp(SECRET));
      assert.match(blocked.results, /toolbelt is not on PATH/);
      const present = await place(true, undefined, { hookCommand: guardedHookLine('codex') });
      const decided = await codex(present, shell('cat .env'));
      assert.doesNotMatch(decided.results, new RegExp(SECRET));
      assert.match(decided.results, /Toolbelt: denied/);
    });

    it('holds the same as uid 65534 (not root): without the hook the secret leaks, with it the secret stays and data/ too', async function () {
      skipUnlessRoot(this);
      const bare = await place(false);
      bare.runAs(65534);
      assert.match((await codex(bare, shell('cat .env'))).results, new RegExp(SECRET));
      const p = await place(true);
      p.runAs(65534);
      const { results } = await codex(p, [...shell('cat .env'), ...rmData]);
      assert.doesNotMatch(results, new RegExp(SECRET));
      assert.equal(await p.read('data/keep.txt'), 'keep me\n');
      assert.equal((await p.callLog()).filter((r) => r.status === 'refused').length, 2);
      // The hook ran as that user too: it created the call log.
      assert.equal((await fs.stat(p.callLogFile)).uid, 65534);
    });
  });
  describe("Codex's own sandbox as a network-off policy sets it (workspace-write, network_access false, /tmp excluded)", () => {
    let canary: http.Server;
    let hits = 0;
    let url = '';
    before(async () => {
      canary = http.createServer((_req, res) => (hits++, res.end('canary reached')));
      await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/canary`;
    });
    after(() => canary?.close());

    it('a `curl` Toolbelt allows reaches a local server without the sandbox, and nothing with it; writes inside still work', async () => {
      const p = await place(true);
      await fs.writeFile(p.userSettings, JSON.stringify({ 'toolbelt.runBash.allowedCommands': ['ls', 'curl'] }));
      hits = 0;
      assert.match((await codex(p, shell(`curl -s -m 5 ${url}`))).results, /canary reached/);
      assert.equal(hits, 1);
      const { results } = await codex(p, [...shell(`curl -s -m 5 ${url}`), ...patch('*** Add File: notes/n.txt\n+inside\n')], { sandbox: NETWORK_OFF_SANDBOX });
      assert.doesNotMatch(results, /canary reached/);
      assert.equal(hits, 1);
      assert.equal(await p.read('notes/n.txt'), 'inside\n');
      // Toolbelt let both through: the sandbox alone stopped the network call.
      assert.deepEqual((await p.callLog()).map((r) => [r.tool, r.status]), [['Bash', 'ok'], ['Bash', 'ok'], ['apply_patch', 'ok']]);
    });
  });

  describe("what Codex itself does with a hook's answer (why toolbelt hook answers deny here)", () => {
    for (const [what, answer] of [
      ['an `ask`', { stdout: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'A person must say.' } } }],
      ['an `allow`', { stdout: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'allow', permissionDecisionReason: 'Fine.' } } }],
      ['exit 1', { stderr: 'broken', code: 1 }],
    ] as const) {
      it(`${what} lets the call run`, async () => {
        const p = await place(false);
        await installHook('codex', p.root, await fixedAnswerHook(path.join(p.home, 'hooks'), answer));
        await trust(p);
        assert.match((await codex(p, shell('cat .env'))).results, new RegExp(SECRET));
      });
    }
  });
});
