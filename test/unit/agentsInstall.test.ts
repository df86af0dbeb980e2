import * as assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CliFixture } from '../support/cliFixture';
import { REPO_ROOT, runCliProcess, type CliResult } from '../support/cliProcess';
import { ModelServer, type ScriptedReply } from '../support/modelServer';

/*
 * `toolbelt agents install | status | uninstall`, run as the built CLI on a workspace on disk:
 * the files each agent reads, merged into the person's own, once however often it runs, backed
 * up, taken out again to the byte, and refused whole (nothing written) when one file cannot be
 * edited safely.
 */

const POLICY = `{
  // The team's policy.
  "toolbelt.runBash.deniedCommands": ["rm", "/curl .*\\\\| *sh/"],
  "toolbelt.sandbox.network": "allowlist",
  "toolbelt.sandbox.allowedDomains": ["registry.npmjs.org"],
  "toolbelt.policy.tests": [
    { "tool": "run_bash", "args": { "command": "rm -rf data" }, "expect": "deny" },
    { "tool": "run_bash", "args": { "command": "rmdir empty" }, "expect": "ask" }
  ]
}
`;

const CLAUDE_OWN = `{
  // My own settings: they stay.
  "model": "opus",
  "permissions": { "allow": ["Bash(npm test:*)"] },
  "hooks": {
    "PreToolUse": [{ "matcher": "Bash", "hooks": [{ "type": "command", "command": "echo mine" }] }],
    "Stop": [{ "hooks": [{ "type": "command", "command": "echo done" }] }]
  }
}
`;

const GEMINI_OWN = `{
  /* theme */ "ui": { "theme": "GitHub" }
}
`;

const AGENT_FILES = ['.claude/settings.json', '.codex/hooks.json', '.codex/rules/toolbelt.rules', '.codex/config.toml', '.gemini/settings.json', '.github/hooks/toolbelt.json', '.cursor/hooks.json'];

function agents(fixture: CliFixture, ...args: string[]): Promise<CliResult> {
  return runCliProcess(['agents', ...args, '--workspace', fixture.root]);
}

/** Every file under the workspace with its bytes (links as links), to show that nothing changed. */
async function snapshot(root: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (dir: string): Promise<void> => {
    for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      const relative = path.relative(root, full);
      if (entry.isSymbolicLink()) files[relative] = `-> ${await fs.readlink(full)}`;
      else if (entry.isDirectory()) await walk(full);
      else files[relative] = await fs.readFile(full, 'utf8');
    }
  };
  await walk(root);
  return files;
}

function count(text: string, needle: string): number {
  return text.split(needle).length - 1;
}

describe('toolbelt agents install | status | uninstall (built CLI, files on disk)', function () {
  this.timeout(60_000);
  let fixture: CliFixture;

  beforeEach(async () => {
    fixture = await CliFixture.create({ settings: POLICY, files: { '.claude/settings.json': CLAUDE_OWN, '.gemini/settings.json': GEMINI_OWN } });
  });
  afterEach(() => fixture.dispose());

  it('writes every agent\'s files, merged into the person\'s own with their entries and comments, and a backup of what it changed', async () => {
    const result = await agents(fixture, 'install', '--all');
    assert.equal(result.code, 0, result.stderr);
    for (const file of AGENT_FILES) assert.ok(await fixture.ws.exists(file), file);

    const claudeText = await fixture.ws.read('.claude/settings.json');
    assert.ok(claudeText.includes('// My own settings: they stay.'));
    const claude = JSON.parse(claudeText.replace(/^\s*\/\/.*$/gm, '')) as {
      model: string;
      permissions: { allow: string[]; deny: string[] };
      hooks: { PreToolUse: { matcher: string; hooks: { command: string }[] }[]; Stop: unknown[] };
      sandbox: { enabled: boolean; allowUnsandboxedCommands: boolean; filesystem: { denyRead: string[]; denyWrite: string[] }; network: { allowedDomains: string[] } };
    };
    assert.equal(claude.model, 'opus');
    assert.deepEqual(claude.permissions.allow, ['Bash(npm test:*)']);
    // A prefix rule becomes Claude's own deny; the /regex/ stays with the hook.
    assert.deepEqual(claude.permissions.deny, ['Bash(rm:*)']);
    // toolbelt.sandbox.mode is not "required": a sandbox that cannot start is not made a hard gate.
    assert.equal((claude.sandbox as { failIfUnavailable?: boolean }).failIfUnavailable, undefined);
    assert.equal(claude.hooks.PreToolUse.length, 2);
    assert.equal(claude.hooks.PreToolUse[0].hooks[0].command, 'echo mine');
    assert.equal(claude.hooks.PreToolUse[1].matcher, '*');
    assert.match(claude.hooks.PreToolUse[1].hooks[0].command, /exec toolbelt hook claude-code$/);
    assert.equal(claude.hooks.Stop.length, 1);
    assert.equal(claude.sandbox.enabled, true);
    assert.equal(claude.sandbox.allowUnsandboxedCommands, false);
    assert.ok(claude.sandbox.filesystem.denyRead.includes('~/.ssh'));
    assert.ok(claude.sandbox.filesystem.denyRead.includes('**/.env'));
    assert.ok(claude.sandbox.filesystem.denyWrite.includes('./.vscode'));
    assert.deepEqual(claude.sandbox.network.allowedDomains, ['registry.npmjs.org']);
    assert.equal(await fixture.ws.read('.claude/settings.json.toolbelt-backup'), CLAUDE_OWN);

    const gemini = await fixture.ws.read('.gemini/settings.json');
    assert.ok(gemini.includes('/* theme */'));
    assert.match(gemini, /"BeforeTool"/);
    assert.equal(await fixture.ws.read('.gemini/settings.json.toolbelt-backup'), GEMINI_OWN);
    // Files it created have no backup: there was nothing to keep.
    assert.equal(await fixture.ws.exists('.cursor/hooks.json.toolbelt-backup'), false);

    const codexHooks = JSON.parse(await fixture.ws.read('.codex/hooks.json')) as { hooks: { PreToolUse: { matcher: string; hooks: { type: string; command: string }[] }[] } };
    assert.equal(codexHooks.hooks.PreToolUse[0].hooks[0].type, 'command');
    const rules = await fixture.ws.read('.codex/rules/toolbelt.rules');
    assert.match(rules, /pattern = \["rm"\],\n {4}decision = "forbidden"/);
    // The team's examples are Codex's own checks of the rule.
    assert.match(rules, /match = \[\["rm", "-rf", "data"\]\]/);
    assert.match(rules, /not_match = \[\["rmdir", "empty"\]\]/);
    assert.doesNotMatch(rules, /curl/);
    assert.match(await fixture.ws.read('.codex/config.toml'), /network_access = false/);
    const copilot = JSON.parse(await fixture.ws.read('.github/hooks/toolbelt.json')) as { version: number; hooks: { preToolUse: { type: string; bash: string }[] } };
    assert.equal(copilot.version, 1);
    assert.match(copilot.hooks.preToolUse[0].bash, /exec toolbelt hook copilot$/);
    const cursor = JSON.parse(await fixture.ws.read('.cursor/hooks.json')) as { version: number; hooks: Record<string, unknown[]> };
    assert.deepEqual(Object.keys(cursor.hooks).sort(), ['beforeMCPExecution', 'beforeReadFile', 'beforeShellExecution', 'preToolUse']);

    // Portable: checked-in files name no path of this machine.
    for (const file of AGENT_FILES) {
      const text = await fixture.ws.read(file);
      assert.ok(!text.includes(fixture.root) && !text.includes(fixture.ws.parent) && !text.includes('dist/cli.js'), file);
    }
  });

  it('twice is once: one hook entry per event, the same bytes, the backup still the file before the first install', async () => {
    assert.equal((await agents(fixture, 'install', '--all')).code, 0);
    const first = await snapshot(fixture.root);
    const again = await agents(fixture, 'install', '--all', '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(await snapshot(fixture.root), first);
    const report = JSON.parse(again.stdout) as { command: string; files: { agent: string; file: string; action: string }[] };
    assert.equal(report.command, 'install');
    assert.deepEqual(report.files.map((f) => f.file).sort(), [...AGENT_FILES].sort());
    assert.deepEqual([...new Set(report.files.map((f) => f.action))], ['unchanged']);
    assert.equal(count(await fixture.ws.read('.claude/settings.json'), 'toolbelt hook claude-code'), 1);
    assert.equal(count(await fixture.ws.read('.codex/hooks.json'), 'toolbelt hook codex'), 1);
    assert.equal(count(await fixture.ws.read('.gemini/settings.json'), 'toolbelt hook gemini-cli'), 1);
    assert.equal(count(await fixture.ws.read('.github/hooks/toolbelt.json'), 'toolbelt hook copilot'), 1);
    assert.equal(count(await fixture.ws.read('.cursor/hooks.json'), 'toolbelt hook cursor'), 4);
    assert.equal(await fixture.ws.read('.claude/settings.json.toolbelt-backup'), CLAUDE_OWN);
  });

  it('uninstall takes out exactly what install added: the person\'s files come back to the byte, the ones it created go', async () => {
    const before = await snapshot(fixture.root);
    assert.equal((await agents(fixture, 'install', '--all')).code, 0);
    const result = await agents(fixture, 'uninstall', '--all');
    assert.equal(result.code, 0, result.stderr);
    assert.deepEqual(await snapshot(fixture.root), before);
    for (const folder of ['.codex', '.cursor', '.github']) assert.equal(await fixture.ws.exists(folder), false, folder);
  });

  it('uninstall keeps what the person added since: only Toolbelt\'s entries go', async () => {
    assert.equal((await agents(fixture, 'install', 'claude-code')).code, 0);
    const text = await fixture.ws.read('.claude/settings.json');
    await fixture.ws.write({ '.claude/settings.json': text.replace('"model": "opus",', '"model": "opus",\n  "env": { "MINE": "1" },') });
    assert.equal((await agents(fixture, 'uninstall', 'claude-code')).code, 0);
    const after = await fixture.ws.read('.claude/settings.json');
    assert.match(after, /"MINE": "1"/);
    assert.match(after, /echo mine/);
    assert.match(after, /\/\/ My own settings: they stay\./);
    assert.doesNotMatch(after, /toolbelt|sandbox|Bash\(rm/);
  });

  for (const [name, setUp, expected] of [
    ['a folder that is a link out of the workspace', async (f: CliFixture) => {
      await fs.mkdir(path.join(f.ws.parent, 'elsewhere'));
      await fs.symlink(path.join(f.ws.parent, 'elsewhere'), path.join(f.root, '.cursor'));
    }, /\.cursor\/hooks\.json/],
    ['a file that is not JSON', (f: CliFixture) => f.ws.write({ '.gemini/settings.json': '{ "ui": { "theme": "GitHub" }\n' }), /\.gemini\/settings\.json:\d+: the file is not JSON/],
    ['a file that names a key twice', (f: CliFixture) => f.ws.write({ '.claude/settings.json': '{\n  "hooks": {},\n  "hooks": {}\n}\n' }), /\.claude\/settings\.json:3: "hooks" is defined twice/],
    ['a file with a list where an object goes', (f: CliFixture) => f.ws.write({ '.claude/settings.json': '{ "sandbox": [] }\n' }), /"sandbox" is not a JSON object/],
  ] as const) {
    it(`refuses ${name}, naming it, and writes nothing at all`, async () => {
      await setUp(fixture);
      const before = await snapshot(fixture.root);
      const result = await agents(fixture, 'install', '--all');
      assert.equal(result.code, 1, result.stdout);
      assert.match(result.stderr, expected);
      assert.match(result.stderr, /Nothing was written\./);
      assert.deepEqual(await snapshot(fixture.root), before);
      // Nothing went through the link either.
      assert.deepEqual(await fs.readdir(path.join(fixture.ws.parent, 'elsewhere')).catch(() => []), []);
    });
  }

  it('refuses a link out of the workspace as an unprivileged user too (uid 65534), writing nothing', async function () {
    if (process.getuid?.() !== 0) this.skip(); // environment guard: switching to uid 65534 needs root
    const cli = path.resolve(__dirname, '..', '..', '..', 'dist', 'cli.js');
    const asNobody = (args: string[]) => spawnSync('setpriv', ['--reuid=65534', '--regid=65534', '--clear-groups', process.execPath, ...args], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: fixture.ws.parent } });
    // Environment guard: this checkout (the built CLI) must be readable by uid 65534.
    if (asNobody(['-e', `require('fs').accessSync(${JSON.stringify(cli)}, require('fs').constants.R_OK)`]).status !== 0) this.skip();
    await fs.mkdir(path.join(fixture.ws.parent, 'elsewhere'));
    await fs.rm(path.join(fixture.root, '.claude'), { recursive: true });
    await fs.symlink(path.join(fixture.ws.parent, 'elsewhere'), path.join(fixture.root, '.claude'));
    assert.equal(spawnSync('chown', ['-R', '65534:65534', fixture.ws.parent]).status, 0);
    const before = await snapshot(fixture.root);
    const run = asNobody([cli, 'agents', 'install', 'claude-code', '--workspace', fixture.root]);
    assert.equal(run.status, 1, `${run.stdout}${run.stderr}`);
    assert.match(run.stderr, /\.claude\/settings\.json/);
    assert.deepEqual(await snapshot(fixture.root), before);
    assert.deepEqual(await fs.readdir(path.join(fixture.ws.parent, 'elsewhere')), []);
  });

  it("leaves a .codex/config.toml of the person's own alone, and status says what that loses", async () => {
    const mine = 'model = "o3"\n';
    await fixture.ws.write({ '.codex/config.toml': mine });
    const result = await agents(fixture, 'install', 'codex');
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /left\s+\.codex\/config\.toml/);
    assert.equal(await fixture.ws.read('.codex/config.toml'), mine);
    assert.equal(await fixture.ws.exists('.codex/config.toml.toolbelt-backup'), false);
    const status = JSON.parse((await agents(fixture, 'status', 'codex', '--json')).stdout) as { agents: { notes: string[] }[] };
    assert.match(status.agents[0].notes.join('\n'), /\.codex\/config\.toml is yours/);
    assert.equal((await agents(fixture, 'uninstall', 'codex')).code, 0);
    assert.equal(await fixture.ws.read('.codex/config.toml'), mine);
    assert.equal(await fixture.ws.exists('.codex/hooks.json'), false);
  });

  it('an unreadable policy is a usage error and nothing is written', async () => {
    await fixture.writeSettings('{ "toolbelt.runBash.deniedCommands": ["rm" }');
    const before = await snapshot(fixture.root);
    const result = await agents(fixture, 'install', '--all');
    assert.equal(result.code, 2);
    assert.match(result.stderr, /\.vscode\/settings\.json:1/);
    assert.deepEqual(await snapshot(fixture.root), before);
  });

  it('asks for the agents: none named is a usage error, and so is an unknown one', async () => {
    const none = await agents(fixture, 'install');
    assert.equal(none.code, 2);
    assert.match(none.stderr, /--all/);
    const unknown = await agents(fixture, 'install', 'vim');
    assert.equal(unknown.code, 2);
    assert.match(unknown.stderr, /Unknown agent "vim"/);
    assert.equal(await fixture.ws.exists('.codex'), false);
  });

  it('status --json: one object, per agent found, protected, drift and the loss report per rule', async () => {
    const bare = await agents(fixture, 'status', '--json');
    assert.equal(bare.code, 0, bare.stderr);
    const unprotected = JSON.parse(bare.stdout) as { agents: { agent: string; found: boolean; foundBy: string[]; protected: boolean }[] };
    assert.deepEqual(unprotected.agents.map((a) => a.protected), [false, false, false, false, false]);
    // Found by their folders in the workspace (their programs may be on PATH too).
    assert.ok(unprotected.agents[0].found && unprotected.agents[0].foundBy.includes('.claude/'));
    assert.ok(unprotected.agents[2].found && unprotected.agents[2].foundBy.includes('.gemini/'));
    assert.ok(!unprotected.agents[4].foundBy.includes('.cursor/'));
    // A named agent that is not protected fails the check.
    assert.equal((await agents(fixture, 'status', 'claude-code')).code, 1);

    assert.equal((await agents(fixture, 'install', '--all')).code, 0);
    const result = await agents(fixture, 'status', '--json');
    assert.equal(result.code, 0, result.stdout);
    const report = JSON.parse(result.stdout) as {
      command: string;
      workspace: string;
      agents: { agent: string; found: boolean; protected: boolean; drift: string[]; trust?: string; loss: { rule: string; enforcedBy: string[]; agentSetting?: string; notEnforceable?: string }[] }[];
    };
    assert.equal(report.command, 'status');
    assert.equal(report.workspace, fixture.root);
    assert.deepEqual(report.agents.map((a) => a.agent), ['claude-code', 'codex', 'gemini-cli', 'copilot', 'cursor']);
    for (const agent of report.agents) {
      assert.equal(agent.found, true, agent.agent);
      assert.equal(agent.protected, true, agent.agent);
      assert.deepEqual(agent.drift, [], agent.agent);
    }
    const claude = report.agents[0];
    assert.deepEqual(claude.loss.find((l) => l.rule.includes('"rm"'))?.enforcedBy, ['permissions', 'hook']);
    assert.deepEqual(claude.loss.find((l) => l.rule.includes('curl'))?.enforcedBy, ['hook']);
    const gemini = report.agents[2];
    assert.ok(gemini.loss.find((l) => l.rule.startsWith('sensitive files'))?.notEnforceable);
    assert.match(report.agents[1].trust ?? '', /trust/);
  });

  it('status sees drift once the policy changes, and install brings the files back in line', async () => {
    assert.equal((await agents(fixture, 'install', 'claude-code', 'codex')).code, 0);
    await fixture.writeSettings(POLICY.replace('["rm", ', '["rm", "git push", '));
    const drifted = await agents(fixture, 'status', '--json');
    assert.equal(drifted.code, 1);
    const report = JSON.parse(drifted.stdout) as { agents: { agent: string; drift: string[] }[] };
    assert.match(report.agents.find((a) => a.agent === 'claude-code')!.drift.join('\n'), /\.claude\/settings\.json/);
    assert.match(report.agents.find((a) => a.agent === 'codex')!.drift.join('\n'), /\.codex\/rules\/toolbelt\.rules/);
    // The text says so too.
    assert.match((await agents(fixture, 'status')).stdout, /drift: \.claude\/settings\.json/);

    assert.equal((await agents(fixture, 'install', 'claude-code', 'codex')).code, 0);
    assert.match(await fixture.ws.read('.claude/settings.json'), /"Bash\(git push:\*\)"/);
    assert.equal((await agents(fixture, 'status', 'claude-code', 'codex')).code, 0);
    // A sandbox the policy requires becomes a hard gate in Claude Code's.
    await fixture.writeSettings(POLICY.replace('["rm", ', '["rm", "git push", ').replace('"toolbelt.sandbox.network"', '"toolbelt.sandbox.mode": "required",\n  "toolbelt.sandbox.network"'));
    assert.equal((await agents(fixture, 'status', 'claude-code')).code, 1);
    assert.equal((await agents(fixture, 'install', 'claude-code')).code, 0);
    assert.match(await fixture.ws.read('.claude/settings.json'), /"failIfUnavailable": true/);
    assert.equal((await agents(fixture, 'status', 'claude-code', 'codex')).code, 0);
    // A rule taken out of the policy leaves the agent's deny list too, and the person's original list stays.
    await fixture.writeSettings(POLICY.replace('["rm", ', '['));
    assert.equal((await agents(fixture, 'install', 'claude-code')).code, 0);
    assert.doesNotMatch(await fixture.ws.read('.claude/settings.json'), /Bash\(rm:\*\)|Bash\(git push|failIfUnavailable/);
    assert.match(await fixture.ws.read('.claude/settings.json'), /Bash\(npm test:\*\)/);
  });

  describe('the hook line as the agents run it (sh -c)', () => {
    async function hookLine(agent: string, file: string, pick: (json: unknown) => string): Promise<string> {
      assert.equal((await agents(fixture, 'install', agent)).code, 0);
      return pick(JSON.parse((await fixture.ws.read(file)).replace(/^\s*\/\/.*$/gm, '')));
    }

    it('blocks (exit 2, the reason on stderr, the agent\'s own deny on stdout) when toolbelt is not on PATH', async () => {
      const cursor = await hookLine('cursor', '.cursor/hooks.json', (j) => (j as { hooks: { beforeShellExecution: { command: string }[] } }).hooks.beforeShellExecution[0].command);
      const claude = await hookLine('claude-code', '.claude/settings.json', (j) => (j as { hooks: { PreToolUse: { hooks: { command: string }[] }[] } }).hooks.PreToolUse[1].hooks[0].command);
      const empty = path.join(fixture.ws.parent, 'empty-bin');
      await fs.mkdir(empty);
      for (const [line, stdout] of [[claude, ''], [cursor, 'deny']] as const) {
        const run = spawnSync('/bin/sh', ['-c', line], { input: '{"tool_name":"Bash"}', encoding: 'utf8', env: { PATH: empty } });
        assert.equal(run.status, 2, run.stderr);
        assert.match(run.stderr, /toolbelt is not on PATH/);
        if (stdout) assert.equal((JSON.parse(run.stdout) as { permission: string }).permission, 'deny');
        else assert.equal(run.stdout, '');
      }
    });

    it('runs `toolbelt hook AGENT` from PATH with the event on stdin, and answers with its exit code', async () => {
      const line = await hookLine('codex', '.codex/hooks.json', (j) => (j as { hooks: { PreToolUse: { hooks: { command: string }[] }[] } }).hooks.PreToolUse[0].hooks[0].command);
      const bin = path.join(fixture.ws.parent, 'bin');
      await fs.mkdir(bin);
      await fs.writeFile(path.join(bin, 'toolbelt'), '#!/bin/sh\necho "args: $*"\ncat\nexit 7\n', { mode: 0o755 });
      const run = spawnSync('/bin/sh', ['-c', line], { input: '{"tool_name":"shell"}', encoding: 'utf8', env: { PATH: `${bin}:/usr/bin:/bin` } });
      assert.equal(run.status, 7);
      assert.equal(run.stdout, 'args: hook codex\n{"tool_name":"shell"}');
    });
  });

  describe('a real agent reads the installed hook: Gemini CLI 0.61.0 (the devDependency) in yolo mode, a scripted model', function () {
    this.timeout(180_000);
    let model: ModelServer;
    let home: string;

    before(async () => {
      model = await ModelServer.start();
      // Each run the model asks for one shell command that leaves a file behind, then says it is done.
      model.setFallback((request): ScriptedReply => {
        const contents = (request.body.contents ?? []) as { parts?: { functionResponse?: unknown }[] }[];
        if (contents.at(-1)?.parts?.some((part) => part.functionResponse)) return { text: 'done' };
        return { toolCalls: [{ name: 'run_shell_command', arguments: { command: 'touch made-by-gemini.txt' } }] };
      });
    });
    after(() => model.close());

    beforeEach(async () => {
      home = path.join(fixture.ws.parent, 'home');
      await fs.mkdir(path.join(home, '.gemini'), { recursive: true });
      const settings = { security: { auth: { selectedType: 'gemini-api-key' } }, general: { disableAutoUpdate: true, disableUpdateNag: true }, privacy: { usageStatisticsEnabled: false }, telemetry: { enabled: false } };
      await fs.writeFile(path.join(home, '.gemini', 'settings.json'), JSON.stringify(settings));
      await fs.writeFile(path.join(home, '.gemini', 'trustedFolders.json'), JSON.stringify({ [fixture.root]: 'TRUST_FOLDER' }));
    });

    function gemini(pathVariable: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
      const cli = path.join(REPO_ROOT, 'node_modules', '@google', 'gemini-cli', 'bundle', 'gemini.js');
      if (!existsSync(cli)) throw new Error(`${cli} is missing: @google/gemini-cli 0.61.0 is a devDependency; run npm install.`);
      return new Promise((resolve, reject) => {
        const env = { HOME: home, PATH: pathVariable, GEMINI_API_KEY: 'test-key', GOOGLE_GEMINI_BASE_URL: model.origin, NO_COLOR: '1' };
        const child = spawn(process.execPath, [cli, '-p', 'Make the file', '-m', 'gemini-2.5-flash', '--output-format', 'json', '--approval-mode', 'yolo'], { cwd: fixture.root, env, stdio: ['ignore', 'pipe', 'pipe'] });
        let stdout = '';
        let stderr = '';
        child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
        child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
        const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
        child.on('error', reject);
        child.on('close', (code) => (clearTimeout(timer), resolve({ code, stdout, stderr })));
      });
    }

    it('without the hook the command runs; with it and no toolbelt on PATH it is blocked and the model is told why; with toolbelt it is asked, event on stdin', async () => {
      // The harm first: nothing stands in the way.
      let run = await gemini('/usr/bin:/bin');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(await fixture.ws.exists('made-by-gemini.txt'), true);
      await fs.rm(fixture.ws.path('made-by-gemini.txt'));

      assert.equal((await agents(fixture, 'install', 'gemini-cli')).code, 0);
      model.requests.length = 0;
      run = await gemini('/usr/bin:/bin');
      assert.equal(run.code, 0, run.stderr);
      assert.equal(await fixture.ws.exists('made-by-gemini.txt'), false, run.stderr);
      assert.match(JSON.stringify(model.requests.at(-1)?.body.contents), /toolbelt is not on PATH/);

      // A stand-in toolbelt that allows and keeps what it was given.
      const bin = path.join(fixture.ws.parent, 'bin');
      await fs.mkdir(bin);
      const seen = path.join(fixture.ws.parent, 'seen');
      await fs.writeFile(path.join(bin, 'toolbelt'), `#!/bin/sh\necho "$*" > '${seen}.args'\ncat > '${seen}.event'\necho '{}'\n`, { mode: 0o755 });
      run = await gemini(`${bin}:/usr/bin:/bin`);
      assert.equal(run.code, 0, run.stderr);
      assert.equal(await fixture.ws.exists('made-by-gemini.txt'), true);
      assert.equal(await fs.readFile(`${seen}.args`, 'utf8'), 'hook gemini-cli\n');
      const event = JSON.parse(await fs.readFile(`${seen}.event`, 'utf8')) as { hook_event_name: string; tool_name: string; tool_input: { command: string } };
      assert.deepEqual([event.hook_event_name, event.tool_name, event.tool_input.command], ['BeforeTool', 'run_shell_command', 'touch made-by-gemini.txt']);
    });
  });

  describe("Codex's own checker on the compiled rules (codex execpolicy check)", () => {
    /** Codex's entry script: TOOLBELT_CODEX_CLI names the @openai/codex package folder, else the project's node_modules. */
    function codexCli(): string | undefined {
      const folder = process.env.TOOLBELT_CODEX_CLI || path.join(REPO_ROOT, 'node_modules', '@openai', 'codex');
      const entry = path.join(folder, 'bin', 'codex.js');
      return existsSync(entry) ? entry : undefined;
    }

    it('loads the rules (the team\'s examples pass as its match/not_match) and forbids what the policy denies, nothing else', async function () {
      const cli = codexCli();
      // Environment guard: @openai/codex is not a devDependency yet; set TOOLBELT_CODEX_CLI to its package folder to run this.
      if (!cli) this.skip();
      // An example the rule cannot tell apart ("rm -i x" expects ask, but the prefix rule forbids it) is left out, so Codex still loads the file.
      await fixture.writeSettings(POLICY.replace('"expect": "ask" }', '"expect": "ask" },\n    { "tool": "run_bash", "args": { "command": "rm -i x" }, "expect": "ask" }'));
      assert.equal((await agents(fixture, 'install', 'codex')).code, 0);
      const rules = fixture.ws.path('.codex/rules/toolbelt.rules');
      const check = (...command: string[]) => {
        const run = spawnSync(process.execPath, [cli!, 'execpolicy', 'check', '--rules', rules, ...command], { encoding: 'utf8', env: { ...process.env, HOME: fixture.ws.parent, CODEX_HOME: path.join(fixture.ws.parent, 'codex-home') } });
        assert.equal(run.status, 0, run.stderr);
        return JSON.parse(run.stdout) as { decision?: string; matchedRules: unknown[] };
      };
      assert.equal(check('rm', '-rf', 'data').decision, 'forbidden');
      assert.deepEqual(check('rmdir', 'empty').matchedRules, []);
      assert.deepEqual(check('ls', '-la').matchedRules, []);
      // And a broken example would have stopped Codex from loading the file: the checker does check them.
      await fs.writeFile(rules, 'prefix_rule(pattern = ["rm"], decision = "forbidden", match = [["ls"]])\n');
      const broken = spawnSync(process.execPath, [cli!, 'execpolicy', 'check', '--rules', rules, 'ls'], { encoding: 'utf8' });
      assert.notEqual(broken.status, 0);
    });
  });
});

