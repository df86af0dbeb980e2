import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { hookAnswer } from '../../src/cli/hookAnswers';
import { geminiCanAsk, HookEventError, parseHookEvent, patchPaths } from '../../src/policy/hookEvents';
import { agentConfigArea, decideNativeCall, type NativeCall, type NativePolicy } from '../../src/tools/nativeCalls';
import { DEFAULT_SENSITIVE_GLOBS } from '../../src/tools/sensitiveFiles';
import { waitFor } from '../support/waitFor';

// The mapping of another agent's own calls onto the policy, without a process: nativeCalls.ts
// (NativeCall → decision), hookEvents.ts (event → NativeCall) and hookAnswers.ts (decision → format).
describe('Native calls of other agents under the policy', () => {
  let root: string;
  let policy: NativePolicy;
  const call = (fields: Partial<NativeCall>): NativeCall => ({ agent: 'claude-code', tool: 'T', kind: 'other', canAsk: true, args: {}, ...fields });

  before(async () => {
    root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-native-')));
    await fs.mkdir(path.join(root, 'ws', 'src'), { recursive: true });
    await fs.writeFile(path.join(root, 'ws', '.env'), 'S=1\n');
    await fs.writeFile(path.join(root, 'outside.txt'), 'o\n');
    await fs.symlink(path.join(root, 'ws', '.env'), path.join(root, 'ws', 'innocent.txt'));
    await fs.symlink(root, path.join(root, 'ws', 'up'));
    policy = {
      root: path.join(root, 'ws'),
      commandPolicy: { allowed: ['ls', 'git status'], denied: ['rm'] },
      sensitiveGlobs: [...DEFAULT_SENSITIVE_GLOBS, '*.secret'],
      sandbox: { mode: 'auto', network: 'allowlist', allowedDomains: ['example.com', '*.npmjs.org'] },
      runWithoutAsking: new Set(['github/*']),
    };
  });

  after(() => fs.rm(root, { recursive: true, force: true }));

  it('judges a command as run_bash does: denied part → deny, all allowed → allow, otherwise ask', () => {
    assert.equal(decideNativeCall(call({ kind: 'shell', command: 'ls && rm -rf x' }), policy).verdict, 'deny');
    assert.deepEqual(decideNativeCall(call({ kind: 'shell', command: 'rm x' }), policy).rule, { setting: 'toolbelt.runBash.deniedCommands', entry: 'rm' });
    assert.equal(decideNativeCall(call({ kind: 'shell', command: 'git status' }), policy).verdict, 'allow');
    const make = decideNativeCall(call({ kind: 'shell', command: 'make' }), policy);
    assert.deepEqual([make.verdict, make.asks], ['ask', 'command']);
    const none = decideNativeCall(call({ kind: 'shell', command: 'ls' }), { ...policy, commandPolicy: undefined });
    assert.deepEqual([none.verdict, none.asks], ['ask', 'command']);
  });

  it('asks for an allowed command that names a sensitive file (the agent runs it outside Toolbelt\'s sandbox)', () => {
    const cat = decideNativeCall(call({ kind: 'shell', command: 'ls .env' }), policy);
    assert.deepEqual([cat.verdict, cat.asks, cat.rule], ['ask', 'sensitive', { setting: 'toolbelt.tools.sensitiveFiles', entry: '.env' }]);
    assert.equal(decideNativeCall(call({ kind: 'shell', command: 'ls src' }), policy).verdict, 'allow');
  });

  it('reads: outside (by "..", by a link) → deny; sensitive (by name, by a link to it) → ask; others → allow', () => {
    const ws = policy.root;
    assert.equal(decideNativeCall(call({ kind: 'read', paths: ['../outside.txt'], cwd: ws }), policy).verdict, 'deny');
    assert.equal(decideNativeCall(call({ kind: 'read', paths: [path.join(ws, 'up', 'outside.txt')] }), policy).verdict, 'deny');
    assert.equal(decideNativeCall(call({ kind: 'read', paths: ['keys.secret'], cwd: ws }), policy).verdict, 'ask');
    assert.equal(decideNativeCall(call({ kind: 'read', paths: ['innocent.txt'], cwd: ws }), policy).verdict, 'ask');
    assert.equal(decideNativeCall(call({ kind: 'read', paths: ['src/a.ts', '.vscode/settings.json'], cwd: ws }), policy).verdict, 'allow');
  });

  it('writes: protected paths and every agent\'s own configuration ask; ordinary writes run', () => {
    for (const file of ['.vscode/settings.json', '.git/hooks/pre-commit', 'a.code-workspace', '.claude/settings.json', '.codex/config.toml', '.gemini/settings.json', '.cursor/hooks.json', '.mcp.json', '.github/hooks/toolbelt.json', '.VSCode/x']) {
      const decision = decideNativeCall(call({ kind: 'write', paths: [file], cwd: policy.root }), policy);
      assert.deepEqual([decision.verdict, decision.asks], ['ask', 'protected'], file);
    }
    assert.equal(decideNativeCall(call({ kind: 'write', paths: ['.github/workflows/ci.yml', 'src/new.ts'], cwd: policy.root }), policy).verdict, 'allow');
    assert.equal(agentConfigArea('.mcp.json.bak'), undefined);
    assert.equal(agentConfigArea('src/.claude/x'), undefined);
  });

  it('fetches follow the network allow-list; MCP tools follow the person\'s run-without-asking', () => {
    assert.equal(decideNativeCall(call({ kind: 'fetch', urls: ['https://example.com/a'] }), policy).verdict, 'allow');
    assert.equal(decideNativeCall(call({ kind: 'fetch', urls: ['https://registry.npmjs.org/x'] }), policy).verdict, 'allow');
    assert.equal(decideNativeCall(call({ kind: 'fetch', urls: ['https://evil.example.net/'] }), policy).verdict, 'deny');
    assert.equal(decideNativeCall(call({ kind: 'fetch', urls: ['https://example.com/'] }), { ...policy, sandbox: { mode: 'auto', network: 'off' } }).verdict, 'deny');
    assert.equal(decideNativeCall(call({ kind: 'mcp', mcp: { server: 'github', tool: 'create_issue' } }), policy).verdict, 'allow');
    assert.equal(decideNativeCall(call({ kind: 'mcp', mcp: { server: 'slack', tool: 'post' } }), policy).verdict, 'ask');
    assert.equal(decideNativeCall(call({ kind: 'other', tool: 'Mystery' }), policy).verdict, 'ask');
    assert.equal(decideNativeCall(call({ kind: 'other', tool: 'TodoWrite', inert: true }), policy).verdict, 'allow');
  });

  it('reads each agent\'s event shape into one NativeCall', () => {
    const claude = parseHookEvent('claude-code', JSON.stringify({ session_id: 's', cwd: '/w', permission_mode: 'default', tool_name: 'Edit', tool_input: { file_path: '/w/a' } }));
    assert.deepEqual([claude.call.kind, claude.call.paths, claude.call.canAsk, claude.call.sessionId], ['write', ['/w/a'], true, 's']);
    assert.equal(parseHookEvent('claude-code', JSON.stringify({ permission_mode: 'bypassPermissions', tool_name: 'Bash', tool_input: { command: 'ls' } })).call.canAsk, false);
    assert.deepEqual(parseHookEvent('claude-code', JSON.stringify({ tool_name: 'mcp__git_hub__create__issue', tool_input: {} })).call.mcp, { server: 'git_hub', tool: 'create__issue' });
    const codex = parseHookEvent('codex', JSON.stringify({ tool_name: 'apply_patch', tool_input: { command: '*** Begin Patch\n*** Update File: a.ts\n*** Move to: b.ts\n*** End Patch\n' } }));
    assert.deepEqual([codex.call.kind, codex.call.paths, codex.call.canAsk], ['write', ['a.ts', 'b.ts'], false]);
    const gemini = parseHookEvent('gemini-cli', JSON.stringify({ tool_name: 'web_fetch', tool_input: { prompt: 'summarise https://example.com/x and http://a.b/c' } }));
    assert.deepEqual(gemini.call.urls, ['https://example.com/x', 'http://a.b/c']);
    const geminiMcp = parseHookEvent('gemini-cli', JSON.stringify({ tool_name: 'create_issue', tool_input: {}, mcp_context: { server_name: 'github', tool_name: 'create_issue' } }));
    assert.deepEqual(geminiMcp.call.mcp, { server: 'github', tool: 'create_issue' });
    const copilotCli = parseHookEvent('copilot', JSON.stringify({ cwd: '/w', toolName: 'view', toolArgs: '{"path":"/w/.env"}' }));
    assert.deepEqual([copilotCli.call.kind, copilotCli.call.paths, copilotCli.call.canAsk], ['read', ['/w/.env'], false]);
    const vscodeEdit = parseHookEvent('copilot', JSON.stringify({ hookEventName: 'PreToolUse', sessionId: 'v', cwd: '/w', tool_name: 'editFiles', tool_input: { files: ['src/main.ts', '.vscode/x.json'] } }));
    assert.deepEqual([vscodeEdit.call.kind, vscodeEdit.call.paths, vscodeEdit.call.canAsk, vscodeEdit.call.sessionId], ['write', ['src/main.ts', '.vscode/x.json'], true, 'v']);
    const cursorEdit = parseHookEvent('cursor', JSON.stringify({ hook_event_name: 'afterFileEdit', file_path: '/w/a' }));
    assert.equal(cursorEdit.observeOnly, true);
  });

  it('refuses events it cannot read, saying what is missing', () => {
    assert.throws(() => parseHookEvent('claude-code', '[]'), HookEventError);
    assert.throws(() => parseHookEvent('claude-code', JSON.stringify({ tool_name: 'Bash', tool_input: {} })), /no command string/);
    assert.throws(() => parseHookEvent('copilot', JSON.stringify({ toolName: 'bash', toolArgs: 'not json' })), /toolArgs is not a JSON object/);
    assert.throws(() => patchPaths('*** Begin Patch\n*** End Patch\n'), /names no file/);
  });

  describe('Gemini CLI: can a person be asked? (from the gemini process above the hook)', () => {
    const children: ChildProcess[] = [];
    after(() => children.forEach((child) => child.kill('SIGKILL')));

    /** A process whose command line looks like gemini's, on a terminal (through script(1)) or not. */
    async function fakeGemini(flags: string[], terminal: boolean): Promise<number> {
      const argv = [process.execPath, '-e', 'setInterval(() => {}, 1000)', '/opt/bin/gemini', ...flags];
      const child = terminal ? spawn('script', ['-qc', argv.map((a) => `'${a}'`).join(' '), '/dev/null'], { stdio: ['pipe', 'ignore', 'ignore'] }) : spawn(argv[0], argv.slice(1), { stdio: ['pipe', 'ignore', 'ignore'] });
      children.push(child);
      return waitFor(() => findGemini(child.pid!, flags), `a fake gemini ${flags.join(' ')}`);
    }

    it('an interactive gemini on a terminal can ask; with -p, --yolo, or without a terminal it cannot', async function () {
      if (process.platform !== 'linux') this.skip(); // /proc is Linux's.
      assert.equal(geminiCanAsk(await fakeGemini([], true)), true);
      assert.equal(geminiCanAsk(await fakeGemini(['--yolo'], true)), false);
      assert.equal(geminiCanAsk(await fakeGemini(['-p', 'hi'], true)), false);
      assert.equal(geminiCanAsk(await fakeGemini([], false)), false);
      assert.equal(geminiCanAsk(process.pid), false, 'no gemini above this process');
    });
  });

  it('answers in each agent\'s format', () => {
    assert.deepEqual(hookAnswer('claude-code', 'ask', 'R'), { stdout: '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"ask","permissionDecisionReason":"R"}}\n', stderr: '', code: 0 });
    assert.deepEqual(hookAnswer('codex', 'allow', 'R'), { stdout: '', stderr: '', code: 0 });
    assert.deepEqual(hookAnswer('codex', 'deny', 'R'), { stdout: '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"R"}}\n', stderr: 'R\n', code: 2 });
    assert.deepEqual(hookAnswer('gemini-cli', 'deny', 'R'), { stdout: '{"decision":"deny","reason":"R"}\n', stderr: '', code: 0 });
    assert.deepEqual(JSON.parse(hookAnswer('copilot', 'deny', 'R').stdout), { permissionDecision: 'deny', permissionDecisionReason: 'R', hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: 'R' } });
    assert.deepEqual(JSON.parse(hookAnswer('cursor', 'ask', 'R').stdout), { permission: 'ask', user_message: 'R', agent_message: 'R', userMessage: 'R', agentMessage: 'R' });
  });
});

/** The process at or below `pid` whose command line names /opt/bin/gemini with these flags. */
async function findGemini(pid: number, flags: string[]): Promise<number | undefined> {
  const queue = [pid];
  while (queue.length > 0) {
    const current = queue.shift()!;
    const args: string[] = await fs.readFile(`/proc/${current}/cmdline`, 'utf8').then((text) => text.split('\0').filter(Boolean), () => []);
    if (args.includes('/opt/bin/gemini') && flags.every((flag) => args.includes(flag))) return current;
    const children = await fs.readFile(`/proc/${current}/task/${current}/children`, 'utf8').catch(() => '');
    queue.push(...children.split(/\s+/).filter(Boolean).map(Number));
  }
  return undefined;
}
