import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { promises as fs, readFileSync, readdirSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { builtCli, REPO_ROOT, runProcess } from '../support/cliProcess';

// `toolbelt hook AGENT` as the agents run it: dist/cli.js, the event on stdin, the answer on
// stdout and in the exit code. The events are the real agents' (test/fixtures/hookEvents/).
const FIXTURES = path.join(REPO_ROOT, 'test', 'fixtures', 'hookEvents');

// Line numbers matter: the answers name them.
const SETTINGS = `{
  // The workspace's rules
  "toolbelt.runBash.deniedCommands": ["rm"],
  "toolbelt.tools.sensitiveFiles": ["*.secret"]
}
`;

interface HookResult {
  code: number | null;
  stdout: string;
  stderr: string;
  json: Record<string, unknown> | undefined;
}

describe('toolbelt hook AGENT (the built dist/cli.js, real agents\' events)', function () {
  this.timeout(30_000);
  let parent: string;
  let ws: string;
  let state: string;
  let userSettings: string;

  before(async () => {
    parent = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-hook-')));
    await fs.chmod(parent, 0o755);
    ws = path.join(parent, 'ws');
    state = path.join(parent, 'state');
    await fs.mkdir(path.join(ws, '.vscode'), { recursive: true });
    await fs.mkdir(path.join(ws, 'data'), { recursive: true });
    await fs.mkdir(state, { recursive: true, mode: 0o777 });
    await fs.chmod(state, 0o777);
    await fs.writeFile(path.join(ws, '.vscode', 'settings.json'), SETTINGS);
    await fs.writeFile(path.join(ws, '.env'), 'SECRET=hunter2\n');
    await fs.writeFile(path.join(ws, 'data', 'keep.txt'), 'keep\n');
    await fs.mkdir(path.join(parent, 'elsewhere'));
    await fs.writeFile(path.join(parent, 'elsewhere', 'x.txt'), 'x\n');
    await fs.symlink(path.join(parent, 'elsewhere'), path.join(ws, 'link'));
    userSettings = path.join(parent, 'user-settings.json');
    await fs.writeFile(userSettings, JSON.stringify({ 'toolbelt.runBash.allowedCommands': ['ls', 'echo'] }));
  });

  after(async () => {
    await fs.rm(parent, { recursive: true, force: true });
  });

  /** The fixture's event with its workspace's paths moved to this test's (`/tmp/probe/<run>/ws` → `<parent>/ws`). */
  function event(name: string, change?: (event: Record<string, unknown>) => void): string {
    const text = readFileSync(path.join(FIXTURES, `${name}.json`), 'utf8');
    const captured = JSON.parse(text) as Record<string, unknown>;
    const cwd = (captured.cwd as string | undefined) ?? (captured.workspace_roots as string[])[0];
    const moved = JSON.parse(text.split(path.dirname(cwd)).join(parent)) as Record<string, unknown>;
    change?.(moved);
    return JSON.stringify(moved);
  }

  function hook(agent: string, input: string | undefined, options: { args?: string[]; env?: NodeJS.ProcessEnv; asNobody?: boolean; keepOpen?: boolean } = {}): Promise<HookResult> {
    const env = { ...process.env, TOOLBELT_STATE_DIR: state, TOOLBELT_USER_SETTINGS: userSettings, ...options.env };
    const [command, args] = options.asNobody
      ? ['setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, builtCli(), 'hook', agent, ...(options.args ?? [])]]
      : [process.execPath, [builtCli(), 'hook', agent, ...(options.args ?? [])]];
    return new Promise((resolve, reject) => {
      const child = spawn(command, args, { cwd: parent, env, stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
      child.on('error', reject);
      child.on('close', (code) => {
        let json: Record<string, unknown> | undefined;
        try {
          json = stdout.trim() ? (JSON.parse(stdout) as Record<string, unknown>) : undefined;
        } catch {
          json = undefined;
        }
        resolve({ code, stdout, stderr, json });
      });
      if (input !== undefined) child.stdin.write(input);
      if (!options.keepOpen) child.stdin.end();
    });
  }

  const claude = (decision: string, reason: string) => ({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: decision, permissionDecisionReason: reason } });
  const decisionOf = (result: HookResult) => (result.json?.hookSpecificOutput as { permissionDecision?: string } | undefined)?.permissionDecision;

  describe('Claude Code (bypassPermissions, as captured)', () => {
    it('denies `rm -rf data`, naming the rule and its line', async () => {
      const result = await hook('claude-code', event('claude-code-Bash-rm'));
      assert.equal(result.code, 0, result.stderr);
      assert.deepEqual(result.json, claude('deny', 'Toolbelt: denied — The command was not run: the command rules (toolbelt.runBash) deny `rm -rf data` (denied by "rm"). (.vscode/settings.json:3 (toolbelt.runBash.deniedCommands "rm")).'));
    });

    it('judges by the project\'s policy after a command moved Claude\'s cwd into a subfolder (CLAUDE_PROJECT_DIR)', async () => {
      const moved = event('claude-code-Bash-rm', (e) => (e.cwd = path.join(ws, 'data')));
      const result = await hook('claude-code', moved, { env: { CLAUDE_PROJECT_DIR: ws } });
      assert.equal(decisionOf(result), 'deny');
      assert.match(result.stdout, /\.vscode\/settings\.json:3/);
    });

    it('denies `cat .env` (a sensitive file; nobody to ask in bypass mode), saying how to allow it', async () => {
      const result = await hook('claude-code', event('claude-code-Bash'));
      assert.equal(result.code, 0);
      assert.equal(decisionOf(result), 'deny');
      const reason = (result.json!.hookSpecificOutput as { permissionDecisionReason: string }).permissionDecisionReason;
      assert.match(reason, /"\.env", a sensitive file/);
      assert.match(reason, /cannot ask in this permission mode/);
      assert.match(reason, /To let the agent read it/);
    });

    it('denies Read .env in bypass mode, and asks for it in default mode', async () => {
      assert.equal(decisionOf(await hook('claude-code', event('claude-code-Read'))), 'deny');
      const asked = await hook('claude-code', event('claude-code-Read', (e) => (e.permission_mode = 'default')));
      assert.deepEqual(asked.json, claude('ask', `Toolbelt asks: "${ws}/.env" is a sensitive file (matches ".env"): reading it sends its content to the model (toolbelt.tools.sensitiveFiles ".env" (the built-in default; no settings file sets it)).`));
    });

    it('denies the Edit of .vscode/settings.json in every mode (Claude\'s ask does not stop it there)', async () => {
      for (const mode of ['bypassPermissions', 'default', 'acceptEdits']) {
        const result = await hook('claude-code', event('claude-code-Edit', (e) => (e.permission_mode = mode)));
        assert.equal(decisionOf(result), 'deny', mode);
        assert.match(result.stdout, /protected path/);
      }
    });

    it('denies a write to .claude/ (an agent\'s own configuration) and allows an ordinary write', async () => {
      const config = await hook('claude-code', event('claude-code-Write', (e) => {
        e.permission_mode = 'default';
        e.tool_input = { file_path: path.join(ws, '.claude', 'settings.json'), content: '{}' };
      }));
      assert.equal(decisionOf(config), 'deny');
      assert.match(config.stdout, /an agent's own configuration \(\.claude\/\)/);
      const ordinary = await hook('claude-code', event('claude-code-Write', (e) => (e.tool_input = { file_path: path.join(ws, 'notes.txt'), content: 'n' })));
      assert.deepEqual(ordinary.json, claude('allow', `Toolbelt: allowed — writes inside the workspace (${ws}/notes.txt) (built-in rule: reads and writes inside the workspace run).`));
    });

    it('denies the Write to ../outside.txt, and a read through a link that leads out', async () => {
      const outside = await hook('claude-code', event('claude-code-Write'));
      assert.deepEqual(outside.json, claude('deny', `Toolbelt: denied — "${parent}/outside.txt" is outside the workspace ${ws} (after resolving ".." and links): claude-code's Write may not write it (built-in rule: paths stay inside the workspace (no "..", no links that lead out)).`));
      const linked = await hook('claude-code', event('claude-code-Read', (e) => (e.tool_input = { file_path: path.join(ws, 'link', 'x.txt') })));
      assert.equal(decisionOf(linked), 'deny');
      assert.match(linked.stdout, /outside the workspace/);
    });

    it('allows a command the person\'s allow-list covers and an ordinary read', async () => {
      const ls = await hook('claude-code', event('claude-code-Bash', (e) => (e.tool_input = { command: 'ls data' })));
      assert.deepEqual(ls.json, claude('allow', `Toolbelt: allowed — allowed by toolbelt.runBash.allowedCommands (${userSettings}:1 (toolbelt.runBash.allowedCommands "ls")).`));
      const read = await hook('claude-code', event('claude-code-Read', (e) => (e.tool_input = { file_path: path.join(ws, 'data', 'keep.txt') })));
      assert.equal(decisionOf(read), 'allow');
    });

    it('asks for an uncovered command in default mode; an MCP tool asks unless the hook line lets it run', async () => {
      const make = await hook('claude-code', event('claude-code-Bash', (e) => {
        e.permission_mode = 'default';
        e.tool_input = { command: 'make build' };
      }));
      assert.equal(decisionOf(make), 'ask');
      const mcp = (e: Record<string, unknown>) => {
        e.permission_mode = 'default';
        e.tool_name = 'mcp__github__create_issue';
        e.tool_input = { title: 't' };
      };
      assert.equal(decisionOf(await hook('claude-code', event('claude-code-Bash', mcp))), 'ask');
      assert.equal(decisionOf(await hook('claude-code', event('claude-code-Bash', mcp), { args: ['--run-without-asking', 'github/create_issue'] })), 'allow');
      // Toolbelt's own MCP tools judge each call themselves (a write_file to .claude/ asks there).
      const own = await hook('claude-code', event('claude-code-Bash', (e) => {
        e.tool_name = 'mcp__toolbelt__write_file';
        e.tool_input = { path: '.claude/settings.json', content: '{}' };
      }));
      assert.equal(decisionOf(own), 'allow');
    });

    it('denies a WebFetch while toolbelt.sandbox.network is off (the default)', async () => {
      const result = await hook('claude-code', event('claude-code-Bash', (e) => {
        e.tool_name = 'WebFetch';
        e.tool_input = { url: 'https://example.com/', prompt: 'p' };
      }));
      assert.equal(decisionOf(result), 'deny');
      assert.match(result.stdout, /toolbelt\.sandbox\.network is \\"off\\"/);
    });
  });

  describe('Codex (ask and allow are ignored: deny is exit 2)', () => {
    it('blocks `rm -rf data` with exit 2 and the reason on stderr', async () => {
      const result = await hook('codex', event('codex-Bash-rm'));
      assert.equal(result.code, 2);
      assert.match(result.stderr, /^Toolbelt: denied — The command was not run.*\.vscode\/settings\.json:3/);
      assert.equal(decisionOf(result), 'deny');
    });

    it('blocks `cat .env` and the apply_patch of .vscode/settings.json and of ../outside.txt (asks become denies)', async () => {
      for (const name of ['codex-Bash', 'codex-apply_patch', 'codex-apply_patch-outside']) {
        const result = await hook('codex', event(name));
        assert.equal(result.code, 2, name);
        assert.match(result.stderr, /^Toolbelt: denied/, name);
      }
    });

    it('says nothing for an allowed command (exit 0, empty stdout)', async () => {
      const result = await hook('codex', event('codex-Bash', (e) => (e.tool_input = { command: 'echo hi' })));
      assert.deepEqual([result.code, result.stdout, result.stderr], [0, '', '']);
    });
  });

  describe('Gemini CLI (headless here: ask becomes deny)', () => {
    it('answers {decision, reason} for each captured call', async () => {
      const expected: Record<string, string> = {
        'gemini-cli-run_shell_command-rm': 'deny',
        'gemini-cli-run_shell_command': 'deny',
        'gemini-cli-replace': 'deny',
        'gemini-cli-read_file': 'allow',
        'gemini-cli-write_file': 'allow',
      };
      for (const [name, decision] of Object.entries(expected)) {
        const result = await hook('gemini-cli', event(name));
        assert.equal(result.code, 0, name);
        assert.deepEqual(Object.keys(result.json ?? {}), ['decision', 'reason'], name);
        assert.equal(result.json!.decision, decision, `${name}: ${result.stdout}`);
      }
      const write = await hook('gemini-cli', event('gemini-cli-write_file'));
      assert.deepEqual(write.json, { decision: 'allow', reason: 'Toolbelt: allowed — writes inside the workspace (notes.txt) (built-in rule: reads and writes inside the workspace run).' });
    });
  });

  describe('Copilot (VS Code\'s agent and Copilot CLI) and Cursor', () => {
    it('Copilot in VS Code: deny for `rm -rf data`, ask for a sensitive read (VS Code asks the person)', async () => {
      const rm = await hook('copilot', event('copilot-vscode-run_in_terminal'));
      assert.equal(rm.code, 0);
      assert.equal(rm.json!.permissionDecision, 'deny');
      assert.equal(decisionOf(rm), 'deny');
      const env = await hook('copilot', event('copilot-vscode-read_file'));
      assert.equal(env.json!.permissionDecision, 'ask');
    });

    it('Copilot CLI: toolArgs as JSON text; an allowed command is allowed', async () => {
      const result = await hook('copilot', event('copilot-cli-bash'));
      assert.equal(result.json!.permissionDecision, 'allow', result.stdout);
    });

    it('Cursor: {permission, user_message, agent_message}', async () => {
      const rm = await hook('cursor', event('cursor-beforeShellExecution'));
      assert.equal(rm.code, 0);
      assert.equal(rm.json!.permission, 'deny');
      assert.match(rm.json!.agent_message as string, /denied by "rm"/);
      const env = await hook('cursor', event('cursor-beforeReadFile'));
      assert.equal(env.json!.permission, 'deny', 'beforeReadFile cannot ask: deny');
    });
  });

  describe('fails closed (deny in the agent\'s format, never exit 1)', () => {
    it('an event that is not JSON', async () => {
      const result = await hook('claude-code', 'not json {');
      assert.equal(result.code, 0);
      assert.equal(decisionOf(result), 'deny');
      assert.match(result.stdout, /not JSON/);
      const codex = await hook('codex', '');
      assert.equal(codex.code, 2);
    });

    it('a malformed .vscode/settings.json', async () => {
      const other = path.join(parent, 'malformed');
      await fs.mkdir(path.join(other, '.vscode'), { recursive: true });
      await fs.writeFile(path.join(other, '.vscode', 'settings.json'), '{ "toolbelt.runBash.deniedCommands": ["rm" ');
      const result = await hook('claude-code', event('claude-code-Read', (e) => (e.tool_input = { file_path: path.join(ws, 'data', 'keep.txt') })), { args: ['--workspace', other] });
      assert.equal(decisionOf(result), 'deny');
      assert.match(result.stdout, /the policy cannot be read: \.vscode\/settings\.json:1/);
      const gemini = await hook('gemini-cli', event('gemini-cli-write_file'), { args: ['--workspace', other] });
      assert.equal(gemini.json!.decision, 'deny');
    });

    it('an unreadable .vscode/settings.json (as uid 65534)', async function () {
      if (process.getuid?.() !== 0) this.skip(); // setpriv needs root to switch to uid 65534.
      const other = path.join(parent, 'unreadable');
      await fs.mkdir(path.join(other, '.vscode'), { recursive: true, mode: 0o755 });
      await fs.chmod(other, 0o755);
      await fs.chmod(path.join(other, '.vscode'), 0o755);
      await fs.writeFile(path.join(other, '.vscode', 'settings.json'), SETTINGS, { mode: 0o600 });
      const result = await hook('claude-code', event('claude-code-Read', (e) => (e.tool_input = { file_path: path.join(other, 'a.txt') })), { args: ['--workspace', other], asNobody: true });
      assert.equal(result.code, 0, result.stderr);
      assert.equal(decisionOf(result), 'deny');
      assert.match(result.stdout, /cannot be read \(EACCES\)/);
      // The same file readable: the same call is allowed (the deny came from the unreadable file).
      await fs.chmod(path.join(other, '.vscode', 'settings.json'), 0o644);
      assert.equal(decisionOf(await hook('claude-code', event('claude-code-Read', (e) => (e.tool_input = { file_path: path.join(other, 'a.txt') })), { args: ['--workspace', other], asNobody: true })), 'allow');
    });

    it('a hook that gets no end of its event within the bound', async () => {
      const result = await hook('claude-code', '{"tool_name":', { keepOpen: true, env: { TOOLBELT_HOOK_BOUND_MS: '300' } });
      assert.equal(decisionOf(result), 'deny');
      assert.match(result.stdout, /took longer than 300 ms/);
    });

    it('a dist/hook.js that cannot load: exit 2 (a block in Claude Code, Codex, Gemini CLI, Cursor) with the reason', async () => {
      const lone = path.join(parent, 'lone-bin');
      await fs.mkdir(lone, { recursive: true });
      await fs.copyFile(builtCli(), path.join(lone, 'cli.js'));
      const result = await runProcess(process.execPath, [path.join(lone, 'cli.js'), 'hook', 'claude-code'], { input: event('claude-code-Bash-rm') });
      assert.equal(result.code, 2);
      assert.match(result.stderr, /the hook cannot load/);
      assert.equal((JSON.parse(result.stdout) as { hookSpecificOutput: { permissionDecision: string } }).hookSpecificOutput.permissionDecision, 'deny');
    });

    it('an agent the hook does not know: exit 2 with the reason', async () => {
      const result = await hook('aider', event('claude-code-Bash'));
      assert.equal(result.code, 2);
      assert.match(result.stderr, /names no agent Toolbelt knows/);
    });
  });

  it('writes each decision into the CLI\'s call log, caller = the agent with its session id', async () => {
    await hook('claude-code', event('claude-code-Bash-rm', (e) => (e.session_id = 'session-for-the-log')));
    const [folder] = readdirSync(state).filter((name) => name.startsWith('ws-'));
    const lines = readFileSync(path.join(state, folder, 'tool-calls.jsonl'), 'utf8').trim().split('\n').map((line) => JSON.parse(line) as Record<string, unknown>);
    const record = lines.find((line) => line.chatId === 'session-for-the-log');
    assert.ok(record, 'the decision is in the log');
    assert.equal(record.caller, 'Claude Code');
    assert.equal(record.tool, 'Bash');
    assert.equal(record.decision, 'deny');
    assert.equal(record.status, 'refused');
    assert.deepEqual(record.args, { command: 'rm -rf data', description: 'remove data' });
    assert.match(record.rule as string, /^\.vscode\/settings\.json:3/);
  });
});
