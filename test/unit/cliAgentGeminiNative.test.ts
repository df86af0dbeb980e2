import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { fixedAnswerHook, guardedHookLine, installHook } from '../support/agentHooks';
import { AgentWorkspace, realAgentSuite, skipUnlessRoot } from '../support/agentWorkspace';
import type { ScriptedToolCall } from '../support/modelServer';
import { allToolResults, toolResults } from '../support/modelServerToolResults';
import { AGENT_PACKAGES, findAgent, runAgent, scriptTurns, SECRET, type AgentRun } from '../support/realAgents';

/*
 * The real Gemini CLI (the pinned devDependency) and its OWN tools (run_shell_command, read_file,
 * write_file, replace), driven by the scripted Gemini server in a headless yolo run: every call runs
 * without a question, so only Toolbelt's BeforeTool hook (.gemini/settings.json) stands in the way.
 * (cliAgentGemini.test.ts covers the same CLI calling Toolbelt's MCP tools.) Each hostile case is
 * first shown to do harm without Toolbelt.
 *
 * Gemini CLI itself refuses read_file of `.env` and write_file outside the workspace before any hook
 * runs, so those harms are shown (and stopped) through read_file of a key file and its shell tool.
 */

const PKG = AGENT_PACKAGES['gemini-cli'];
const found = findAgent('gemini-cli');

describe(`A real Gemini CLI (${PKG.name}) and its own tools`, function () {
  this.timeout(240_000);
  const suite = realAgentSuite('gemini-cli');

  async function place(withToolbelt: boolean, settings?: Record<string, unknown> | string, hook: { hookCommand?: string; shim?: boolean } = {}): Promise<AgentWorkspace> {
    const p = await suite.place(withToolbelt, settings, hook);
    // Gemini CLI's own per-user files: an API key sign-in, no update checks or telemetry, the folder trusted (so its project hooks run).
    const geminiHome = path.join(p.home, '.gemini');
    await fs.mkdir(geminiHome, { recursive: true });
    const userSettings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { disableAutoUpdate: true, disableUpdateNag: true }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } };
    await fs.writeFile(path.join(geminiHome, 'settings.json'), JSON.stringify(userSettings));
    await fs.writeFile(path.join(geminiHome, 'trustedFolders.json'), JSON.stringify({ [p.root]: 'TRUST_FOLDER' }));
    return p;
  }

  function runGemini(p: AgentWorkspace, turns: ScriptedToolCall[][], timeoutMs?: number): Promise<AgentRun> {
    scriptTurns(suite.model, 'run_shell_command', turns);
    return runAgent(process.execPath, [(found as { entry: string }).entry, '-p', 'Do the task.', '-m', 'gemini-2.5-flash', '--output-format', 'json', '--approval-mode', 'yolo'], {
      cwd: p.root,
      user: p.user,
      env: p.env({ GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: suite.model.geminiBaseUrl }),
      timeoutMs,
    });
  }

  async function gemini(p: AgentWorkspace, turns: ScriptedToolCall[][]): Promise<{ run: AgentRun; results: string }> {
    const run = await runGemini(p, turns);
    assert.equal(run.timedOut, false, `Gemini CLI did not end within 90 s.\n${run.stdout}\n${run.stderr}`);
    assert.equal(run.code, 0, `${run.stdout}\n${run.stderr}`);
    assert.equal((JSON.parse(run.stdout) as { response: string }).response, 'All done.', run.stdout);
    if (process.env.TOOLBELT_SHOW_AGENT_RESULTS) console.log(allToolResults(suite.model.requests));
    return { run, results: allToolResults(suite.model.requests) };
  }

  const shell = (command: string): ScriptedToolCall[][] => [[{ name: 'run_shell_command', arguments: { command, description: 'A command' } }]];
  // Gemini CLI refuses read_file of .env itself (before any hook); a key file it reads.
  const readPem: ScriptedToolCall[][] = [[{ name: 'read_file', arguments: { file_path: 'certs/server.pem' } }]];
  /** The tool results of the run's last request (it carries the whole conversation's). */
  const lastResults = () => toolResults(suite.model.requests.at(-1)!);
  const editSettings: ScriptedToolCall[][] = [
    [{ name: 'replace', arguments: { file_path: '.vscode/settings.json', old_string: '"rm"', new_string: '"nothing"', instruction: 'Loosen the rules' } }],
    [{ name: 'write_file', arguments: { file_path: '.vscode/settings.json', content: '{}\n' } }],
  ];

  describe('without Toolbelt (each hostile call does harm: the cases below can fail)', () => {
    it('its run_shell_command `cat .env` and its read_file of a .pem each bring the secret back to the model', async () => {
      const p = await place(false);
      await gemini(p, [...shell('cat .env'), ...readPem]);
      assert.deepEqual(lastResults().map((r) => r.includes(SECRET)), [true, true]);
    });

    it('its run_shell_command `rm -rf data` removes data/', async () => {
      const p = await place(false);
      await gemini(p, shell('rm -rf data'));
      assert.equal(await p.exists('data'), false);
    });

    it('its replace and write_file on .vscode/settings.json change the policy file', async () => {
      const p = await place(false);
      await gemini(p, editSettings);
      assert.equal(await p.read('.vscode/settings.json'), '{}\n');
    });

    it('its run_shell_command writing ../outside.txt creates a file outside the workspace', async () => {
      const p = await place(false);
      await gemini(p, shell('echo escaped > ../outside.txt'));
      assert.equal(await p.outsideExists(), true);
    });
  });

  describe('with `toolbelt hook gemini-cli` as its BeforeTool hook', () => {
    it('its `cat .env` and its read_file of a .pem never bring the secret back (an ask is answered deny: a headless ask would wait forever)', async () => {
      const p = await place(true);
      const { results } = await gemini(p, [...shell('cat .env'), ...readPem]);
      assert.doesNotMatch(results, new RegExp(SECRET));
      assert.deepEqual(lastResults().map((r) => /Tool execution blocked: Toolbelt: denied/.test(r)), [true, true], results);
    });

    it('its `rm -rf data` is denied by the workspace rule and data/ stays', async () => {
      const p = await place(true);
      const { results } = await gemini(p, shell('rm -rf data'));
      assert.equal(await p.read('data/keep.txt'), 'keep me\n');
      assert.match(results, /Toolbelt: denied.*\.vscode\/settings\.json:\d+/s);
    });

    it('its replace and write_file on .vscode/settings.json leave the file as it was', async () => {
      const p = await place(true);
      const before = await p.read('.vscode/settings.json');
      const { results } = await gemini(p, editSettings);
      assert.equal(await p.read('.vscode/settings.json'), before);
      // Both calls refused (the last request carries the whole conversation's results).
      assert.deepEqual(lastResults().map((r) => /Toolbelt: denied/.test(r)), [true, true], results);
    });

    it('its run_shell_command writing ../outside.txt creates nothing', async () => {
      const p = await place(true);
      const { results } = await gemini(p, shell('echo escaped > ../outside.txt'));
      assert.equal(await p.outsideExists(), false);
      assert.match(results, /Toolbelt: denied/);
    });

    it('ordinary reads, writes and an allowed command still work, and each decision is in the call log as Gemini CLI', async () => {
      const p = await place(true);
      const { results } = await gemini(p, [
        [{ name: 'read_file', arguments: { file_path: 'src/a.txt' } }],
        [{ name: 'write_file', arguments: { file_path: 'notes/n.txt', content: 'written by gemini\n' } }],
        ...shell('ls data'),
      ]);
      assert.match(results, /alpha/);
      assert.equal(await p.read('notes/n.txt'), 'written by gemini\n');
      assert.match(results, /keep\.txt/);
      const log = await p.callLog();
      assert.deepEqual(log.map((r) => [r.tool, r.status]), [['read_file', 'ok'], ['write_file', 'ok'], ['run_shell_command', 'ok']]);
      assert.ok(log.every((r) => r.caller === 'Gemini CLI'), JSON.stringify(log));
    });

    it('a malformed .vscode/settings.json denies even an ordinary read and write', async () => {
      const p = await place(true, '{ "toolbelt.runBash.deniedCommands": ["rm"\n');
      const { results } = await gemini(p, [[{ name: 'read_file', arguments: { file_path: 'src/a.txt' } }], [{ name: 'write_file', arguments: { file_path: 'notes.txt', content: 'x' } }]]);
      assert.doesNotMatch(results, /alpha/);
      assert.equal(await p.exists('notes.txt'), false);
      assert.match(results, /Toolbelt: denied/);
    });

    it('with `toolbelt` missing from PATH, even a bare `toolbelt hook` line blocks (Gemini CLI takes exit 127 as a block)', async () => {
      const p = await place(true, undefined, { shim: false });
      const { results } = await gemini(p, shell('cat .env'));
      assert.doesNotMatch(results, new RegExp(SECRET));
      assert.match(results, /command not found/);
    });

    it('with `toolbelt` missing from PATH, the guarded hook line blocks; with it there, the guarded line is Toolbelt', async () => {
      const missing = await place(true, undefined, { shim: false, hookCommand: guardedHookLine('gemini-cli') });
      const blocked = await gemini(missing, shell('cat .env'));
      assert.doesNotMatch(blocked.results, new RegExp(SECRET));
      assert.match(blocked.results, /toolbelt is not on PATH/);
      const present = await place(true, undefined, { hookCommand: guardedHookLine('gemini-cli') });
      const decided = await gemini(present, shell('cat .env'));
      assert.doesNotMatch(decided.results, new RegExp(SECRET));
      assert.match(decided.results, /Toolbelt: denied/);
    });

    it('holds the same as uid 65534 (not root): without the hook the secret leaks, with it the secret stays and data/ too', async function () {
      skipUnlessRoot(this);
      const bare = await place(false);
      bare.runAs(65534);
      assert.match((await gemini(bare, shell('cat .env'))).results, new RegExp(SECRET));
      const p = await place(true);
      p.runAs(65534);
      const { results } = await gemini(p, [...shell('cat .env'), ...shell('rm -rf data')]);
      assert.doesNotMatch(results, new RegExp(SECRET));
      assert.equal(await p.read('data/keep.txt'), 'keep me\n');
      assert.equal((await p.callLog()).filter((r) => r.status === 'refused').length, 2);
      // The hook ran as that user too: it created the call log.
      assert.equal((await fs.stat(p.callLogFile)).uid, 65534);
    });
  });
  describe("what Gemini CLI itself does with a hook's answer (why toolbelt hook answers deny here)", () => {
    it('an `ask` in a headless yolo run waits and never runs the call (killed after 20 s)', async () => {
      const p = await place(false);
      await installHook('gemini-cli', p.root, await fixedAnswerHook(path.join(p.home, 'hooks'), { stdout: { decision: 'ask', reason: 'A person must say.' } }));
      const run = await runGemini(p, shell('rm -rf data'), 20_000);
      assert.equal(run.timedOut, true, `${run.stdout}\n${run.stderr}`);
      assert.equal(await p.read('data/keep.txt'), 'keep me\n');
      assert.equal(suite.model.requests.filter((r) => r.format === 'gemini').every((r) => toolResults(r).length === 0), true);
    });

    it('a hook that exits 1 lets the call run', async () => {
      const p = await place(false);
      await installHook('gemini-cli', p.root, await fixedAnswerHook(path.join(p.home, 'hooks'), { stderr: 'broken', code: 1 }));
      assert.match((await gemini(p, shell('cat .env'))).results, new RegExp(SECRET));
    });
  });
});
