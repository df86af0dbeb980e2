import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fixedAnswerHook, guardedHookLine, installHook } from '../support/agentHooks';
import { AgentWorkspace, realAgentSuite, skipUnlessRoot } from '../support/agentWorkspace';
import type { ScriptedToolCall } from '../support/modelServer';
import { allToolResults } from '../support/modelServerToolResults';
import { AGENT_PACKAGES, findAgent, runAgent, scriptTurns, SECRET, type AgentRun } from '../support/realAgents';

/*
 * The real Claude Code (the pinned devDependency), driven by a scripted Anthropic Messages server in
 * its most permissive headless mode (`-p --permission-mode bypassPermissions`): its own Bash, Read,
 * Edit and Write run without a question, so only Toolbelt's PreToolUse hook stands in the way. Each
 * hostile case is first shown to do harm without Toolbelt, so the test can fail.
 */

const PKG = AGENT_PACKAGES['claude-code'];
const found = findAgent('claude-code');

describe(`A real Claude Code (${PKG.name}) and its own tools`, function () {
  this.timeout(180_000);
  const suite = realAgentSuite('claude-code');

  const place = suite.place;

  /** One headless run in which the model calls `turns` (one turn per tool result), then ends. */
  async function claude(p: AgentWorkspace, turns: ScriptedToolCall[][]): Promise<{ run: AgentRun; results: string }> {
    scriptTurns(suite.model, 'Bash', turns);
    const run = await runAgent((found as { entry: string }).entry, ['-p', 'Do the task.', '--permission-mode', 'bypassPermissions', '--output-format', 'json', '--model', 'claude-sonnet-4-5'], {
      cwd: p.root,
      user: p.user,
      env: p.env({
        ANTHROPIC_BASE_URL: suite.model.anthropicBaseUrl,
        ANTHROPIC_API_KEY: 'test-key',
        // No update checks, telemetry or error reports: the scripted server is the only address.
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
        DISABLE_AUTOUPDATER: '1',
        DISABLE_TELEMETRY: '1',
        DISABLE_ERROR_REPORTING: '1',
        // Claude Code refuses bypassPermissions as root unless it is told it runs in a sandbox (CI runs as root).
        IS_SANDBOX: '1',
      }),
    });
    assert.equal(run.timedOut, false, `Claude Code did not end within 90 s.\n${run.stdout}\n${run.stderr}`);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal((JSON.parse(run.stdout) as { result: string }).result, 'All done.', run.stdout);
    if (process.env.TOOLBELT_SHOW_AGENT_RESULTS) console.log(allToolResults(suite.model.requests));
    return { run, results: allToolResults(suite.model.requests) };
  }

  const bashCatEnv: ScriptedToolCall[][] = [[{ name: 'Bash', arguments: { command: 'cat .env', description: 'Show the environment file' } }]];
  const readEnv = (p: AgentWorkspace): ScriptedToolCall[][] => [[{ name: 'Read', arguments: { file_path: path.join(p.root, '.env') } }]];
  const rmData: ScriptedToolCall[][] = [[{ name: 'Bash', arguments: { command: 'rm -rf data', description: 'Remove data' } }]];
  const editSettings = (p: AgentWorkspace): ScriptedToolCall[][] => {
    const file = path.join(p.root, '.vscode', 'settings.json');
    // Claude Code edits only a file it has read in this session: Read first, then Edit.
    return [[{ name: 'Read', arguments: { file_path: file } }], [{ name: 'Edit', arguments: { file_path: file, old_string: '"rm"', new_string: '"nothing"' } }]];
  };
  const writeOutside = (p: AgentWorkspace): ScriptedToolCall[][] => [[{ name: 'Write', arguments: { file_path: `${p.root}/../outside.txt`, content: 'escaped\n' } }]];

  describe('without Toolbelt (each hostile call does harm: the cases below can fail)', () => {
    it('its Bash `cat .env` and its Read of .env bring the secret back to the model', async () => {
      const p = await place(false);
      assert.match((await claude(p, bashCatEnv)).results, new RegExp(SECRET));
      assert.match((await claude(p, readEnv(p))).results, new RegExp(SECRET));
    });

    it('its Bash `rm -rf data` removes data/', async () => {
      const p = await place(false);
      await claude(p, rmData);
      assert.equal(await p.exists('data'), false);
    });

    it('its Edit of .vscode/settings.json changes the policy file', async () => {
      const p = await place(false);
      await claude(p, editSettings(p));
      assert.match(await p.read('.vscode/settings.json'), /"nothing"/);
    });

    it('its Write to ../outside.txt creates a file outside the workspace', async () => {
      const p = await place(false);
      await claude(p, writeOutside(p));
      assert.equal(await p.outsideExists(), true);
    });
  });

  describe('with `toolbelt hook claude-code` as its PreToolUse hook', () => {
    it('its Bash `cat .env` and its Read of .env never bring the secret back; the model is told why', async () => {
      const p = await place(true);
      const shell = await claude(p, bashCatEnv);
      assert.doesNotMatch(shell.results, new RegExp(SECRET));
      assert.match(shell.results, /Toolbelt: denied/);
      const read = await claude(p, readEnv(p));
      assert.doesNotMatch(read.results, new RegExp(SECRET));
      assert.match(read.results, /Toolbelt: denied.*sensitive/s);
    });

    it('its Bash `rm -rf data` is denied by the workspace rule and data/ stays', async () => {
      const p = await place(true);
      const { results } = await claude(p, rmData);
      assert.equal(await p.read('data/keep.txt'), 'keep me\n');
      assert.match(results, /Toolbelt: denied.*\.vscode\/settings\.json:\d+/s);
    });

    it('its Edit of .vscode/settings.json leaves the file as it was (bypass mode would let an ask through)', async () => {
      const p = await place(true);
      const before = await p.read('.vscode/settings.json');
      const { results } = await claude(p, editSettings(p));
      assert.equal(await p.read('.vscode/settings.json'), before);
      assert.match(results, /Toolbelt: denied/);
      assert.deepEqual((await p.callLog()).map((r) => [r.tool, r.status]), [['Read', 'ok'], ['Edit', 'refused']]);
    });

    it('its Write to ../outside.txt creates nothing', async () => {
      const p = await place(true);
      const { results } = await claude(p, writeOutside(p));
      assert.equal(await p.outsideExists(), false);
      assert.match(results, /Toolbelt: denied.*outside the workspace/s);
    });

    it('ordinary reads, writes and an allowed command still work, and each decision is in the call log as Claude Code', async () => {
      const p = await place(true);
      const { results } = await claude(p, [
        [{ name: 'Read', arguments: { file_path: path.join(p.root, 'src', 'a.txt') } }],
        [{ name: 'Write', arguments: { file_path: path.join(p.root, 'notes', 'n.txt'), content: 'written by claude\n' } }],
        [{ name: 'Bash', arguments: { command: 'ls data', description: 'List data' } }],
      ]);
      assert.match(results, /alpha/);
      assert.equal(await p.read('notes/n.txt'), 'written by claude\n');
      assert.match(results, /keep\.txt/);
      const log = await p.callLog();
      assert.deepEqual(log.map((r) => [r.tool, r.status]), [['Read', 'ok'], ['Write', 'ok'], ['Bash', 'ok']]);
      assert.ok(log.every((r) => r.caller === 'Claude Code'), JSON.stringify(log));
    });

    it('a malformed .vscode/settings.json denies even an ordinary read and write', async () => {
      const p = await place(true, '{ "toolbelt.runBash.deniedCommands": ["rm"\n');
      const { results } = await claude(p, [
        [{ name: 'Read', arguments: { file_path: path.join(p.root, 'src', 'a.txt') } }],
        [{ name: 'Write', arguments: { file_path: path.join(p.root, 'notes.txt'), content: 'x' } }],
      ]);
      assert.doesNotMatch(results, /alpha/);
      assert.equal(await p.exists('notes.txt'), false);
      assert.match(results, /Toolbelt: denied/);
    });

    it('with `toolbelt` missing from PATH, a bare `toolbelt hook` line (exit 127) lets the call run: the line must guard itself', async () => {
      const p = await place(true, undefined, { shim: false });
      assert.match((await claude(p, bashCatEnv)).results, new RegExp(SECRET));
    });

    it('with `toolbelt` missing from PATH, the guarded hook line blocks; with it there, the guarded line is Toolbelt', async () => {
      const missing = await place(true, undefined, { shim: false, hookCommand: guardedHookLine('claude-code') });
      const blocked = await claude(missing, bashCatEnv);
      assert.doesNotMatch(blocked.results, new RegExp(SECRET));
      assert.match(blocked.results, /toolbelt is not on PATH/);
      const present = await place(true, undefined, { hookCommand: guardedHookLine('claude-code') });
      const decided = await claude(present, bashCatEnv);
      assert.doesNotMatch(decided.results, new RegExp(SECRET));
      assert.match(decided.results, /Toolbelt: denied/);
    });

    it('holds the same as uid 65534 (not root): without the hook the secret leaks, with it the secret stays and data/ too', async function () {
      skipUnlessRoot(this);
      const bare = await place(false);
      bare.runAs(65534);
      assert.match((await claude(bare, bashCatEnv)).results, new RegExp(SECRET));
      const p = await place(true);
      p.runAs(65534);
      const { results } = await claude(p, [...bashCatEnv, ...rmData]);
      assert.doesNotMatch(results, new RegExp(SECRET));
      assert.equal(await p.read('data/keep.txt'), 'keep me\n');
      assert.equal((await p.callLog()).filter((r) => r.status === 'refused').length, 2);
      // The hook ran as that user too: it created the call log.
      assert.equal((await fs.stat(p.callLogFile)).uid, 65534);
    });
  });
  describe("Claude Code's own sandbox as a network-off policy sets it (enabled, no allowed domains, allowUnsandboxedCommands: false)", () => {
    let canary: http.Server;
    let hits = 0;
    let url = '';

    before(async function () {
      for (const tool of ['bwrap', 'socat']) {
        try {
          execFileSync('sh', ['-c', `command -v ${tool}`]);
        } catch {
          // Environment guard: Claude Code's Linux sandbox is bubblewrap with socat for its proxy.
          console.log(`      skipped: ${tool} is not installed (Claude Code's Linux sandbox needs it)`);
          this.skip();
        }
      }
      canary = http.createServer((_req, res) => (hits++, res.end('canary reached')));
      await new Promise<void>((resolve) => canary.listen(0, '127.0.0.1', resolve));
      url = `http://127.0.0.1:${(canary.address() as AddressInfo).port}/canary`;
    });
    after(() => canary?.close());

    /** Toolbelt's hook with the person allowing `curl` (no rule catches the call), and Claude Code's sandbox as given. */
    async function sandboxed(sandbox: Record<string, unknown> | undefined): Promise<AgentWorkspace> {
      const p = await place(true);
      await fs.writeFile(p.userSettings, JSON.stringify({ 'toolbelt.runBash.allowedCommands': ['ls', 'curl'] }));
      const file = path.join(p.root, '.claude', 'settings.json');
      const settings = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
      await fs.writeFile(file, JSON.stringify(sandbox ? { ...settings, sandbox } : settings, null, 2));
      return p;
    }
    const curl = (escape: boolean): ScriptedToolCall[][] => [[{ name: 'Bash', arguments: { command: `curl -s ${url}`, description: 'Fetch', ...(escape ? { dangerouslyDisableSandbox: true } : {}) } }]];
    const networkOff = { enabled: true, autoAllowBashIfSandboxed: true, allowUnsandboxedCommands: false, network: { allowedDomains: [] } };

    it('an allowed `curl` reaches a local server without the sandbox, and nothing with it', async () => {
      hits = 0;
      assert.match((await claude(await sandboxed(undefined), curl(false))).results, /canary reached/);
      assert.equal(hits, 1);
      const p = await sandboxed(networkOff);
      const { results } = await claude(p, curl(false));
      assert.doesNotMatch(results, /canary reached/);
      assert.equal(hits, 1);
      // Toolbelt let it through (the person allows curl): the sandbox alone stopped it.
      assert.deepEqual((await p.callLog()).map((r) => [r.tool, r.status]), [['Bash', 'ok']]);
    });

    it("the model's dangerouslyDisableSandbox leaves the sandbox unless allowUnsandboxedCommands is false", async () => {
      hits = 0;
      const { allowUnsandboxedCommands: _, ...byDefault } = networkOff;
      await claude(await sandboxed(byDefault), curl(true));
      assert.equal(hits, 1, 'by default the model can ask to run unsandboxed, and in bypass mode it does');
      await claude(await sandboxed(networkOff), curl(true));
      assert.equal(hits, 1);
    });
  });

  describe("what Claude Code itself does with a hook's answer (why toolbelt hook answers deny here)", () => {
    it('an `ask` does not stop its Edit of .vscode/settings.json in bypassPermissions: the file is changed', async () => {
      const p = await place(false);
      const ask = await fixedAnswerHook(path.join(p.home, 'hooks'), { stdout: { hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'ask', permissionDecisionReason: 'A person must say.' } } });
      // Only Edit and Write asked about: the Read before the Edit runs.
      await fs.mkdir(path.join(p.root, '.claude'), { recursive: true });
      await fs.writeFile(path.join(p.root, '.claude', 'settings.json'), JSON.stringify({ hooks: { PreToolUse: [{ matcher: 'Edit|Write', hooks: [{ type: 'command', command: ask }] }] } }));
      await claude(p, editSettings(p));
      assert.match(await p.read('.vscode/settings.json'), /"nothing"/);
    });

    it('a hook that exits 1 lets the call run', async () => {
      const p = await place(false);
      await installHook('claude-code', p.root, await fixedAnswerHook(path.join(p.home, 'hooks'), { stderr: 'broken', code: 1 }));
      assert.match((await claude(p, bashCatEnv)).results, new RegExp(SECRET));
    });
  });
});
