import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { builtCli, REPO_ROOT, runProcess as run } from '../support/cliProcess';

const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;


// Line numbers matter: the explanation names the rule's line.
const SETTINGS = `{
  "toolbelt.tools.registry": [{ "name": "run_bash" }, { "name": "search_files" }, { "name": "read_file" }],
  "toolbelt.runBash.deniedCommands": ["rm"]
}
`;

/**
 * `npm run pack:cli` (scripts/pack-cli.js) makes toolbelt-<version>.tgz, and `npm install -g` of
 * it works offline, with an empty npm cache, on a machine with only Node: no dependency is fetched.
 */
describe('The toolbelt npm package (scripts/pack-cli.js)', function () {
  this.timeout(120_000);
  let tmp: string;
  let prefix: string;
  let workspace: string;
  let bin: string;
  /** Node alone on PATH (no rg, no toolbelt, no npm): the machine a teammate installs on. */
  let onlyNode: NodeJS.ProcessEnv;

  before(async () => {
    builtCli();
    tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-cli-package-')));
    const packed = await run(process.execPath, [path.join(REPO_ROOT, 'scripts', 'pack-cli.js'), '--out', path.join(tmp, 'out')]);
    assert.equal(packed.code, 0, packed.stderr);
    const tgz = packed.stdout.trim().split('\n').at(-1)!;
    assert.equal(tgz, path.join(tmp, 'out', `toolbelt-${VERSION}.tgz`));
    prefix = path.join(tmp, 'prefix');
    const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
    const installed = await run(npm, ['install', '-g', '--prefix', prefix, '--offline', '--cache', path.join(tmp, 'empty-cache'), '--no-audit', '--no-fund', tgz]);
    assert.equal(installed.code, 0, `${installed.stdout}\n${installed.stderr}`);
    bin = path.join(prefix, 'bin', 'toolbelt');
    workspace = path.join(tmp, 'project');
    await fs.mkdir(path.join(workspace, '.vscode'), { recursive: true });
    await fs.writeFile(path.join(workspace, '.vscode', 'settings.json'), SETTINGS);
    await fs.mkdir(path.join(workspace, 'src'));
    await fs.writeFile(path.join(workspace, 'src', 'a.txt'), 'alpha\n');
    const nodeOnly = path.join(tmp, 'node-only');
    await fs.mkdir(nodeOnly);
    await fs.symlink(process.execPath, path.join(nodeOnly, 'node'));
    onlyNode = { PATH: nodeOnly, HOME: tmp, XDG_STATE_HOME: path.join(tmp, 'state') };
  });
  after(() => fs.rm(tmp, { recursive: true, force: true }));

  it("installs the bin `toolbelt`: the CLI and the chunks it loads, no dependencies", async () => {
    const pkgDir = path.join(prefix, 'lib', 'node_modules', 'toolbelt');
    assert.equal(await fs.realpath(bin), path.join(pkgDir, 'dist', 'cli.js'));
    const pkg = JSON.parse(await fs.readFile(path.join(pkgDir, 'package.json'), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(pkg.bin, { toolbelt: 'dist/cli.js' });
    assert.equal(pkg.dependencies, undefined);
    assert.deepEqual((await fs.readdir(pkgDir)).sort(), ['LICENSE', 'README.md', 'dist', 'package.json'], 'no node_modules');
    assert.deepEqual((await fs.readdir(path.join(pkgDir, 'dist'))).sort(), ['cli.js', 'cliMain.js', 'hook.js', 'lib-unbash.js', 'mcpSdk.js', 'searchWorker.js']);
    const version = await run(bin, ['--version'], { env: onlyNode });
    assert.equal(version.stdout, `${VERSION}\n`, version.stderr);
  });

  it('runs `toolbelt policy explain` for real: the denied command, with the rule\'s line', async () => {
    const denied = await run(bin, ['policy', 'explain', 'run_bash', '{"command":"rm -rf src"}', '--workspace', workspace], { env: onlyNode });
    assert.equal(denied.code, 0, denied.stderr);
    assert.match(denied.stdout, /^deny {2}run_bash/);
    assert.match(denied.stdout, /where: {2}\.vscode\/settings\.json:3 \(toolbelt\.runBash\.deniedCommands "rm"\)/);
    const ls = await run(bin, ['policy', 'explain', 'run_bash', '{"command":"ls"}', '--workspace', workspace, '--json'], { env: onlyNode });
    assert.equal(ls.code, 0, ls.stderr);
    const decision = JSON.parse(ls.stdout) as { verdict: string; reason: string };
    assert.deepEqual([decision.verdict, decision.reason], ['ask', 'Run `ls` — no rule allows `ls` (command)']);
  });

  it('answers `toolbelt hook claude-code` from the installed package (the hook chunk): a denied command is denied with its rule', async () => {
    const event = JSON.stringify({ session_id: 's1', cwd: workspace, hook_event_name: 'PreToolUse', permission_mode: 'default', tool_name: 'Bash', tool_input: { command: 'rm -rf src' } });
    const answer = await run(bin, ['hook', 'claude-code', '--workspace', workspace, '--state-dir', path.join(tmp, 'state')], { env: onlyNode, input: event });
    const output = JSON.parse(answer.stdout) as { hookSpecificOutput: { permissionDecision: string; permissionDecisionReason: string } };
    assert.equal(output.hookSpecificOutput.permissionDecision, 'deny', answer.stderr);
    assert.match(output.hookSpecificOutput.permissionDecisionReason, /\.vscode\/settings\.json:3/);
  });

  it('serves `toolbelt mcp` (the MCP SDK chunk) and searches without rg on PATH (the search worker chunk)', async () => {
    const transport = new StdioClientTransport({ command: bin, args: ['mcp'], cwd: workspace, env: onlyNode as Record<string, string>, stderr: 'pipe' });
    const client = new Client({ name: 'package-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      assert.ok(tools.some((t) => t.name === 'search_files'), JSON.stringify(tools.map((t) => t.name)));
      const found = (await client.callTool({ name: 'search_files', arguments: { pattern: '**/*.txt' } })) as { content: { text: string }[]; isError?: boolean };
      assert.equal(found.isError, undefined, JSON.stringify(found));
      assert.equal(found.content[0].text, 'src/a.txt');
    } finally {
      await client.close();
    }
  });
});
