import * as assert from 'node:assert/strict';
import { promises as fs, readFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as InstallCliModule from '../../src/vscode/installCli';
import { builtCli, REPO_ROOT, runProcess, type CliResult } from '../support/cliProcess';
import { waitFor } from '../support/waitFor';
import { requireWithVscode } from '../support/withFakeVscode';

type Installed = InstallCliModule.InstalledLauncher;

const VERSION = (JSON.parse(readFileSync(path.join(REPO_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

function run(file: string, args: string[], env: NodeJS.ProcessEnv): Promise<CliResult> {
  return runProcess(file, args, { env });
}

/** "Install 'toolbelt' Command in PATH" as VS Code runs it, against a fake of the part of the API it uses, with the extension at the repository (its built dist/cli.js). */
function installCommand(userFolder: string, repair = false): { run: () => Promise<Installed | undefined>; messages: { kind: string; text: string }[]; module: typeof InstallCliModule } {
  const messages: { kind: string; text: string }[] = [];
  let command: (() => Promise<Installed | undefined>) | undefined;
  const say = (kind: string) => (text: string) => (messages.push({ kind, text }), Promise.resolve(undefined));
  const vscode = {
    commands: { registerCommand: (_id: string, handler: () => Promise<Installed | undefined>) => ((command = handler), { dispose() {} }) },
    window: { showErrorMessage: say('error'), showWarningMessage: say('warning'), showInformationMessage: say('info') },
  };
  const module = requireWithVscode<typeof InstallCliModule>(vscode, [require.resolve('../../src/vscode/installCli')]);
  const context = { extensionPath: REPO_ROOT, globalStorageUri: { scheme: 'file', fsPath: path.join(userFolder, 'globalStorage', 'toolbelt.toolbelt') } };
  // Repairing a launcher at registration runs on its own: only the test of it turns it on.
  module.registerInstallCli(context as never, { info() {}, warn() {} } as never, { repair });
  return { run: () => command!(), messages, module };
}

describe("Install 'toolbelt' Command in PATH", function () {
  this.timeout(60_000);
  let tmp: string;
  let home: string;
  let userFolder: string;
  let launcher: string;
  const saved = { HOME: process.env.HOME, PATH: process.env.PATH };

  before(() => builtCli());
  beforeEach(async () => {
    tmp = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-install-cli-')));
    home = path.join(tmp, 'home');
    userFolder = path.join(tmp, 'Code', 'User');
    await fs.mkdir(home);
    await fs.mkdir(userFolder, { recursive: true });
    launcher = path.join(home, '.local', 'bin', 'toolbelt');
    process.env.HOME = home;
  });
  afterEach(async () => {
    process.env.HOME = saved.HOME;
    process.env.PATH = saved.PATH;
    await fs.rm(tmp, { recursive: true, force: true });
  });

  /** A `node` on PATH that leaves a trace, then runs the real one. */
  async function tracingNode(): Promise<{ dir: string; trace: string }> {
    const dir = path.join(tmp, 'node-bin');
    const trace = path.join(tmp, 'node-ran');
    await fs.mkdir(dir);
    await fs.writeFile(path.join(dir, 'node'), `#!/bin/sh\necho "$@" > '${trace}'\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
    return { dir, trace };
  }

  it('writes an executable launcher into ~/.local/bin (creating it), says the folder is not on PATH, and the launcher runs the CLI with node from PATH', async () => {
    process.env.PATH = '/usr/bin:/bin';
    const { run: install, messages } = installCommand(userFolder);
    const installed = await install();
    assert.ok(installed, JSON.stringify(messages));
    assert.equal(installed.file, launcher);
    assert.equal(installed.onPath, false);
    assert.equal(installed.replaced, false);
    assert.equal((await fs.stat(launcher)).mode & 0o111, 0o111, 'executable by everyone who may run it');
    assert.deepEqual(messages.map((m) => m.kind), ['warning']);
    assert.match(messages[0].text, /\.local\/bin is not on your PATH: add it \(export PATH=/);

    const { dir, trace } = await tracingNode();
    const result = await run(launcher, ['--version'], { PATH: `${dir}:/usr/bin:/bin`, HOME: home });
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, `${VERSION}\n`);
    assert.equal((await fs.readFile(trace, 'utf8')).trim(), `${builtCli()} --version`, 'node from PATH ran the extension\'s dist/cli.js');
  });

  it("without node on PATH, runs the CLI with VS Code's own runtime as Node (ELECTRON_RUN_AS_NODE=1), from a folder with quotes and $ in its name", async () => {
    const { module } = installCommand(userFolder);
    // VS Code's runtime, as a stand-in that says how it was run, then runs Node.
    const runtime = path.join(tmp, 'code');
    await fs.writeFile(runtime, `#!/bin/sh\necho "ELECTRON_RUN_AS_NODE=$ELECTRON_RUN_AS_NODE" >&2\nexec '${process.execPath}' "$@"\n`, { mode: 0o755 });
    // An extension folder whose name a shell would split or unquote.
    const extension = path.join(tmp, `it's "$HOME" $(x)`);
    await fs.mkdir(extension);
    await fs.symlink(path.dirname(builtCli()), path.join(extension, 'dist'));
    await module.installLauncher({ home, platform: 'linux', env: { PATH: '/nowhere' }, cliPath: path.join(extension, 'dist', 'cli.js'), execPath: runtime });
    const empty = path.join(tmp, 'empty');
    await fs.mkdir(empty);
    const result = await run(launcher, ['--help'], { PATH: empty, HOME: home });
    assert.equal(result.code, 0, result.stderr);
    assert.match(result.stdout, /^Usage: toolbelt <command>/);
    assert.equal(result.stderr, 'ELECTRON_RUN_AS_NODE=1\n');
  });

  it("gives the CLI the person's VS Code user settings as their own (unless TOOLBELT_USER_SETTINGS names another file)", async () => {
    const settings = path.join(userFolder, 'settings.json');
    await fs.writeFile(settings, '{ "broken');
    const { run: install } = installCommand(userFolder);
    await install();
    const { dir } = await tracingNode();
    const workspace = path.join(tmp, 'project');
    await fs.mkdir(workspace);
    const explain = ['policy', 'explain', 'run_bash', '{"command":"ls"}', '--workspace', workspace];
    const withTheirs = await run(launcher, explain, { PATH: `${dir}:/usr/bin:/bin`, HOME: home });
    assert.match(withTheirs.stderr, new RegExp(`warning: ${settings.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}:1`), 'the CLI read the user settings file');
    const other = path.join(tmp, 'mine.json');
    await fs.writeFile(other, '{}');
    const withOther = await run(launcher, explain, { PATH: `${dir}:/usr/bin:/bin`, HOME: home, TOOLBELT_USER_SETTINGS: other });
    assert.equal(withOther.code, 0, withOther.stderr);
    assert.equal(withOther.stderr, '');
    assert.match(withOther.stdout, /^deny {2}run_bash/);
  });

  it('overwrites its own launcher, and says so when the folder is on PATH', async () => {
    process.env.PATH = `${path.join(home, '.local', 'bin')}:/usr/bin:/bin`;
    const { run: install, messages } = installCommand(userFolder);
    await install();
    await fs.appendFile(launcher, '# an older launcher of its own\n');
    const again = await install();
    assert.equal(again?.replaced, true);
    assert.equal(again?.onPath, true);
    assert.doesNotMatch(await fs.readFile(launcher, 'utf8'), /an older launcher/);
    assert.deepEqual(messages.map((m) => m.kind), ['info', 'info']);
    assert.equal((await fs.readdir(path.dirname(launcher))).length, 1, 'no temporary file left behind');
  });

  it("refuses a `toolbelt` it did not write (a script, a link) and leaves it as it was", async () => {
    await fs.mkdir(path.dirname(launcher), { recursive: true });
    const theirs = '#!/bin/sh\necho "my own toolbelt"\n';
    await fs.writeFile(launcher, theirs, { mode: 0o755 });
    const { run: install, messages } = installCommand(userFolder);
    assert.equal(await install(), undefined);
    assert.deepEqual(messages.map((m) => m.kind), ['error']);
    assert.match(messages[0].text, /is there already and Toolbelt did not write it: it is left as it is/);
    assert.equal(await fs.readFile(launcher, 'utf8'), theirs);

    await fs.rm(launcher);
    const npmBin = path.join(tmp, 'lib', 'node_modules', 'toolbelt', 'dist', 'cli.js');
    await fs.mkdir(path.dirname(npmBin), { recursive: true });
    await fs.writeFile(npmBin, theirs);
    await fs.symlink(npmBin, launcher);
    assert.equal(await install(), undefined);
    assert.match(messages[1].text, /did not write it \(a link to .*cli\.js\)/);
    assert.equal(await fs.readlink(launcher), npmBin);
    assert.equal(await fs.readFile(npmBin, 'utf8'), theirs, 'the link was not followed');
  });

  it('a launcher whose extension is gone fails with exit 2 and says what to do', async () => {
    const { module } = installCommand(userFolder);
    const gone = path.join(tmp, 'extensions', 'toolbelt.toolbelt-0.0.1', 'dist', 'cli.js');
    await module.installLauncher({ home, platform: 'linux', env: {}, cliPath: gone, execPath: process.execPath });
    const result = await run(launcher, ['--version'], { PATH: '/usr/bin:/bin', HOME: home });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /toolbelt-0\.0\.1\/dist\/cli\.js is gone .*run "Toolbelt: Install 'toolbelt' Command in PATH" again/);
  });

  it("when the host loads, a launcher of its own whose extension is gone (an update) runs this extension's CLI again; a working one and anyone else's are left alone", async () => {
    const { module } = installCommand(userFolder);
    const old = path.join(tmp, 'extensions', "toolbelt.toolbelt-0.0.1 it's", 'dist', 'cli.js');
    await module.installLauncher({ home, platform: 'linux', env: {}, cliPath: old, execPath: process.execPath });
    installCommand(userFolder, true);
    await waitFor(async () => (await fs.readFile(launcher, 'utf8')).includes(`cli='${builtCli()}'`), 'the launcher rewritten');
    const { dir } = await tracingNode();
    assert.equal((await run(launcher, ['--version'], { PATH: `${dir}:/usr/bin:/bin`, HOME: home })).stdout, `${VERSION}\n`);

    // Another extension folder's CLI that exists (VS Code Insiders' beside VS Code's): left alone.
    const other = path.join(tmp, 'insiders', 'dist', 'cli.js');
    await fs.mkdir(path.dirname(other), { recursive: true });
    await fs.writeFile(other, '');
    await module.installLauncher({ home, platform: 'linux', env: {}, cliPath: other, execPath: process.execPath });
    const target = { home, platform: 'linux' as const, env: {}, cliPath: builtCli(), execPath: process.execPath };
    assert.equal(await module.repairLauncher(target), undefined);
    assert.match(await fs.readFile(launcher, 'utf8'), /insiders/);
    // Anyone else's toolbelt: left alone.
    await fs.writeFile(launcher, '#!/bin/sh\nexit 0\n');
    assert.equal(await module.repairLauncher(target), undefined);
    assert.equal(await fs.readFile(launcher, 'utf8'), '#!/bin/sh\nexit 0\n');
  });

  it("Windows: a toolbelt.cmd in %LOCALAPPDATA%\\Toolbelt\\bin that runs node, else VS Code's runtime ('%' kept literal)", () => {
    const { module } = installCommand(userFolder);
    const target = { home: 'C:\\Users\\me', platform: 'win32' as const, env: { LOCALAPPDATA: 'C:\\Users\\me\\AppData\\Local' }, cliPath: 'C:\\Users\\me\\.vscode\\extensions\\toolbelt-0.1.0\\dist\\cli.js', execPath: 'C:\\Program Files (x86)\\100% Code\\Code.exe' };
    assert.equal(module.launcherFile(target), 'C:\\Users\\me\\AppData\\Local\\Toolbelt\\bin\\toolbelt.cmd');
    const text = module.launcherText(target);
    assert.match(text, /^@echo off\r\n/);
    assert.match(text, /\r\nwhere node >nul 2>nul\r\nif errorlevel 1 goto vscode\r\nnode "%TOOLBELT_CLI%" %\*\r\n/);
    assert.match(text, /\r\nset ELECTRON_RUN_AS_NODE=1\r\n"C:\\Program Files \(x86\)\\100%% Code\\Code\.exe" "%TOOLBELT_CLI%" %\*\r\n/);
    assert.ok(text.includes(module.LAUNCHER_MARK));
  });
});
