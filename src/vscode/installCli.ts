import { existsSync, promises as fs, realpathSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { findOnPath, pathEntries } from '../tools/programPath';

export const INSTALL_CLI = 'toolbelt.installCommand';

/** The line that marks a launcher as this command's own: one without it is never overwritten. */
export const LAUNCHER_MARK = "toolbelt-launcher: written by the Toolbelt extension (\"Install 'toolbelt' Command in PATH\")";

export interface LauncherTarget {
  /** The person's home folder. */
  home: string;
  platform: NodeJS.Platform;
  /** The environment whose PATH is checked (and LOCALAPPDATA on Windows). */
  env: NodeJS.ProcessEnv;
  /** The extension's dist/cli.js. */
  cliPath: string;
  /** VS Code's own runtime (the extension host's process.execPath), run with ELECTRON_RUN_AS_NODE=1 when there is no `node`. */
  execPath: string;
  /** The person's VS Code user settings.json: the launcher's TOOLBELT_USER_SETTINGS unless one is set. */
  userSettings?: string;
}

export interface InstalledLauncher {
  file: string;
  folder: string;
  /** Whether `folder` is on the PATH of `env`. */
  onPath: boolean;
  /** An earlier launcher of this command was replaced. */
  replaced: boolean;
  /** Another `toolbelt` that PATH finds first, if any. */
  shadowedBy?: string;
}

/** Refused: the file is not one this command wrote, or cannot be written. */
export class LauncherRefusedError extends Error {
  override name = 'LauncherRefusedError';
}

/** Where the launcher goes: ~/.local/bin/toolbelt (Linux, macOS); %LOCALAPPDATA%\Toolbelt\bin\toolbelt.cmd (Windows). */
export function launcherFile(target: Pick<LauncherTarget, 'home' | 'platform' | 'env'>): string {
  if (target.platform === 'win32') {
    const local = target.env.LOCALAPPDATA || path.win32.join(target.home, 'AppData', 'Local');
    return path.win32.join(local, 'Toolbelt', 'bin', 'toolbelt.cmd');
  }
  return path.posix.join(target.home, '.local', 'bin', 'toolbelt');
}

/**
 * Writes the launcher (creating its folder), executable, replacing only a launcher of its own: a
 * `toolbelt` this command did not write (npm's, a link, the person's own script) is left as it is
 * and refused with a LauncherRefusedError that says so.
 */
export async function installLauncher(target: LauncherTarget): Promise<InstalledLauncher> {
  const file = launcherFile(target);
  const folder = path.dirname(file);
  const replaced = await ownLauncherAt(file);
  const text = launcherText(target);
  try {
    await fs.mkdir(folder, { recursive: true });
    // Written beside it and renamed over it: a half-written launcher is never run, and a link put there meanwhile is replaced, not followed.
    const temp = path.join(folder, `.toolbelt-${process.pid}-${Date.now()}.tmp`);
    await fs.writeFile(temp, text, { mode: 0o755, flag: 'wx' });
    await fs.chmod(temp, 0o755);
    await fs.rename(temp, file).catch(async (error: unknown) => {
      await fs.rm(temp, { force: true });
      throw error;
    });
  } catch (error) {
    throw new LauncherRefusedError(`${file} could not be written: ${error instanceof Error ? error.message : String(error)}`);
  }
  const onPath = pathEntries(target.env, target.platform).some((entry) => samePath(entry, folder));
  const first = findOnPath(target.platform === 'win32' ? 'toolbelt.cmd' : 'toolbelt', target.env, target.platform);
  return { file, folder, onPath, replaced, ...(first && !samePath(first, file) ? { shadowedBy: first } : {}) };
}

/**
 * After an update the extension's folder has another name and an installed launcher runs a CLI that
 * is gone: a launcher of this command whose CLI is gone is rewritten for this extension (a working
 * one, e.g. VS Code Insiders' beside VS Code's, and anyone else's file are left alone). Resolves to
 * the file rewritten, or undefined.
 */
export async function repairLauncher(target: LauncherTarget): Promise<string | undefined> {
  const file = launcherFile(target);
  try {
    if (!(await ownLauncherAt(file))) return undefined;
  } catch {
    return undefined;
  }
  const named = cliNamedIn(await fs.readFile(file, 'utf8'));
  if (named === undefined || named === target.cliPath || existsSync(named)) return undefined;
  await installLauncher(target);
  return file;
}

/** The CLI a launcher of this command runs. */
function cliNamedIn(text: string): string | undefined {
  const posix = /^cli='((?:[^']|'\\'')*)'$/m.exec(text);
  if (posix) return posix[1].replace(/'\\''/g, "'");
  const windows = /^set "TOOLBELT_CLI=(.*)"\r?$/m.exec(text);
  return windows ? windows[1].replace(/%%/g, '%') : undefined;
}

/** The launcher's text: a POSIX shell script, or a .cmd on Windows. */
export function launcherText(target: LauncherTarget): string {
  return target.platform === 'win32' ? windowsLauncher(target) : posixLauncher(target);
}

/** false: nothing there. true: a launcher of this command. Throws when something else is there. */
async function ownLauncherAt(file: string): Promise<boolean> {
  let stat;
  try {
    stat = await fs.lstat(file);
  } catch {
    return false;
  }
  const notOurs = `${file} is there already and Toolbelt did not write it`;
  if (stat.isSymbolicLink()) throw new LauncherRefusedError(`${notOurs} (a link to ${await fs.readlink(file).catch(() => '?')}): it is left as it is. Remove it to install Toolbelt's launcher there.`);
  if (!stat.isFile()) throw new LauncherRefusedError(`${notOurs} (not a file): it is left as it is.`);
  const head = (await fs.readFile(file)).subarray(0, 1024).toString('utf8');
  if (!head.includes(LAUNCHER_MARK)) throw new LauncherRefusedError(`${notOurs}: it is left as it is. Remove it (or rename it) to install Toolbelt's launcher there.`);
  return true;
}

/** A POSIX shell string: single quotes, a quote inside as '\''. */
const shQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

function posixLauncher(target: LauncherTarget): string {
  return [
    '#!/bin/sh',
    `# ${LAUNCHER_MARK}.`,
    "# Runs the toolbelt CLI of the installed Toolbelt extension: with `node` when it is on PATH, else with VS Code's own runtime.",
    '# Running that command again rewrites this file; delete the file to remove the command.',
    `cli=${shQuote(target.cliPath)}`,
    'if [ ! -f "$cli" ]; then',
    // Exit 2: an agent's hook that runs this stops the call (exit 1 or 127 would let it run).
    `  echo "toolbelt: $cli is gone (the Toolbelt extension was updated or removed). In VS Code, run \\"Toolbelt: Install 'toolbelt' Command in PATH\\" again." >&2`,
    '  exit 2',
    'fi',
    ...(target.userSettings
      ? [`# Your own choices: VS Code's user settings, unless TOOLBELT_USER_SETTINGS names another file.`, `if [ -z "\${TOOLBELT_USER_SETTINGS+set}" ]; then TOOLBELT_USER_SETTINGS=${shQuote(target.userSettings)}; export TOOLBELT_USER_SETTINGS; fi`]
      : []),
    'if command -v node >/dev/null 2>&1; then exec node "$cli" "$@"; fi',
    `ELECTRON_RUN_AS_NODE=1 exec ${shQuote(target.execPath)} "$cli" "$@"`,
    '',
  ].join('\n');
}

/** A cmd.exe string between double quotes: `%` doubled (a Windows path holds no `"`). */
const cmdText = (text: string) => text.replace(/%/g, '%%');

function windowsLauncher(target: LauncherTarget): string {
  return [
    '@echo off',
    `rem ${LAUNCHER_MARK}.`,
    "rem Runs the toolbelt CLI of the installed Toolbelt extension: with node when it is on PATH, else with VS Code's own runtime.",
    'setlocal',
    `set "TOOLBELT_CLI=${cmdText(target.cliPath)}"`,
    'if exist "%TOOLBELT_CLI%" goto found',
    `echo toolbelt: %TOOLBELT_CLI% is gone: the Toolbelt extension was updated or removed. In VS Code, run "Toolbelt: Install 'toolbelt' Command in PATH" again. 1>&2`,
    'exit /b 2',
    ':found',
    ...(target.userSettings ? [`if not defined TOOLBELT_USER_SETTINGS set "TOOLBELT_USER_SETTINGS=${cmdText(target.userSettings)}"`] : []),
    'where node >nul 2>nul',
    'if errorlevel 1 goto vscode',
    'node "%TOOLBELT_CLI%" %*',
    'exit /b %ERRORLEVEL%',
    ':vscode',
    'set ELECTRON_RUN_AS_NODE=1',
    `"${cmdText(target.execPath)}" "%TOOLBELT_CLI%" %*`,
    'exit /b %ERRORLEVEL%',
    '',
  ].join('\r\n');
}

function samePath(a: string, b: string): boolean {
  const real = (p: string) => {
    try {
      return realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  return real(a) === real(b);
}


/** VS Code's user settings.json, found from the extension's global storage (…/User/globalStorage/<id>), when it exists. */
export function userSettingsFile(context: vscode.ExtensionContext): string | undefined {
  if (context.globalStorageUri.scheme !== 'file') return undefined;
  const file = path.resolve(context.globalStorageUri.fsPath, '..', '..', 'settings.json');
  return existsSync(file) ? file : undefined;
}

/**
 * **Toolbelt: Install 'toolbelt' Command in PATH** (as VS Code's "Install 'code' command in PATH"):
 * a launcher of the extension's CLI in a folder of the person's own, so agents' files can name
 * `toolbelt` and work on every machine that has it.
 */
export function registerInstallCli(context: vscode.ExtensionContext, log: vscode.LogOutputChannel, options: { repair?: boolean } = {}): vscode.Disposable {
  const targetNow = (): LauncherTarget => ({
    home: os.homedir(),
    platform: process.platform,
    env: process.env,
    cliPath: path.join(context.extensionPath, 'dist', 'cli.js'),
    execPath: process.execPath,
    userSettings: userSettingsFile(context),
  });
  if (options.repair !== false) {
    repairLauncher(targetNow()).then(
      (file) => file && log.info(`Rewrote ${file}: the extension it ran is gone; it runs this one now.`),
      (error: unknown) => log.warn(`Could not repair the 'toolbelt' launcher: ${error instanceof Error ? error.message : String(error)}`),
    );
  }
  return vscode.commands.registerCommand(INSTALL_CLI, async () => {
    const target = targetNow();
    let installed: InstalledLauncher;
    try {
      installed = await installLauncher(target);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      log.warn(`Install 'toolbelt' Command in PATH: ${message}`);
      void vscode.window.showErrorMessage(`Toolbelt: ${message}`);
      return undefined;
    }
    log.info(`${installed.replaced ? 'Rewrote' : 'Wrote'} ${installed.file}: it runs ${target.cliPath}.`);
    const notes = [
      installed.onPath ? '' : ` ${installed.folder} is not on your PATH: add it (${process.platform === 'win32' ? 'System Properties → Environment Variables' : `export PATH="${installed.folder}:$PATH" in your shell's profile`}), then open a new terminal.`,
      installed.shadowedBy ? ` Another toolbelt comes first on your PATH: ${installed.shadowedBy}.` : '',
      target.userSettings ? ' It reads your VS Code user settings as your own choices (unless TOOLBELT_USER_SETTINGS names another file).' : '',
    ].join('');
    const message = `Toolbelt: the 'toolbelt' command is installed at ${installed.file}.${notes}`;
    void (installed.onPath && !installed.shadowedBy ? vscode.window.showInformationMessage(message) : vscode.window.showWarningMessage(message));
    return installed;
  });
}
