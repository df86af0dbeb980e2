import { createHash } from 'node:crypto';
import { mkdirSync, promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { effectiveSandbox, type SandboxEngine } from './sandboxAvailability';
import { gitProtection } from './sandboxGit';
import { homeView, PRIVATE_HOME_BYTES } from './sandboxHome';
import { programFilesUnder } from './sandboxProgramFiles';
import { readOnlyPathsIn } from './sandboxReadOnly';
import { sandboxEnvironment } from './sandboxEnvironment';
import { isGlob } from './sandboxSettings';
import { bwrapOptions, proxyEnvironment, type SandboxPlan } from './sandboxInvocation';
import { MountPointLease, type Uncreatable } from './sandboxMountPoints';
import { acquireNetwork, type NetworkLease } from './sandboxNetworks';
import { runtimeDirs } from './sandboxRuntimeDirs';
import { WorkspaceScanner } from './sandboxScan';
import { DEFAULT_SENSITIVE_GLOBS, HOME_CREDENTIAL_PATHS } from '../sensitiveFiles';
import type { SandboxSetting, ToolContext } from '../types';

/** Credential locations in the home folder that no sandboxed process can read (the sensitive-file defaults cover them too), and the CLI's default state folder. */
export const HIDDEN_HOME_PATHS: readonly string[] = Object.freeze([...HOME_CREDENTIAL_PATHS, '.local/state/toolbelt']);

/** Toolbelt's own state folders of this process: undo's copies of earlier file contents, call logs, chat history. */
const stateFolders = new Set<string>();

/**
 * Hides one of Toolbelt's state folders from every sandboxed process started from now on. The
 * folder is made now (mode 700), so that a process started before its first use cannot see it appear.
 */
export function hideFromSandboxes(folder: string): void {
  const resolved = path.resolve(folder);
  if (stateFolders.has(resolved)) return;
  stateFolders.add(resolved);
  try {
    mkdirSync(resolved, { recursive: true, mode: 0o700 });
  } catch {
    // A folder that cannot be made holds nothing to hide; it is hidden once it exists.
  }
}

/** What one sandboxed process needs to know; sandboxRequestFor builds it from a ToolContext. */
export interface SandboxRequest {
  setting: SandboxSetting;
  /** The workspace folders, absolute. The first names the private caches. */
  roots: readonly string[];
  /** Workspace-relative globs of files made unreadable (`toolbelt.tools.sensitiveFiles`). */
  sensitiveGlobs: readonly string[];
  /** Where the process starts; inside a root. */
  cwd: string;
  /** The home folder whose credentials are hidden; `os.homedir()` by default. */
  home?: string;
  /** Where allow-listed variables come from; `process.env` by default. */
  sourceEnv?: Readonly<Record<string, string | undefined>>;
  /** Variables passed besides the allow-list and `setting.env` (an MCP server's own `env`). */
  extraEnvNames?: readonly string[];
  /** The program's command line (an MCP server's): its own files under /tmp stay visible, read-only. */
  programWords?: readonly string[];
  /** Set whatever the source says (run_bash's TERM=dumb, PAGER=cat, …). */
  fixedEnv?: Readonly<Record<string, string>>;
  signal?: AbortSignal;
  /**
   * An MCP server's: asked, with why, when it would start without the OS sandbox (mode "auto",
   * none here) — as run_bash asks for each such command. Absent, or false: it does not start.
   */
  confirmUnsandboxed?: (detail: string) => Promise<boolean>;
}

/** A sandbox ready to start: spawn `command(program)`, environment `env`, `options` on fd 3 (see spawnSandboxed). */
export interface PreparedSandbox {
  /** bwrap's options, NUL-separated, for `--args 3`: kept off the command line however many paths there are. */
  options: Buffer;
  /** The whole command line: bwrap (with the allow-list, nsenter into the relay's namespaces first). */
  command(program: readonly string[]): string[];
  env: Record<string, string>;
  network: SandboxSetting['network'];
  /** Stops the proxy and removes the mount points made for this sandbox; call once it has exited. */
  dispose(): Promise<void>;
}

export function sandboxRequestFor(ctx: ToolContext, cwd: string): SandboxRequest {
  const roots = ctx.workspaceRoots && Object.keys(ctx.workspaceRoots).length > 0 ? Object.values(ctx.workspaceRoots) : [ctx.workspaceRoot];
  return { setting: effectiveSandbox(ctx.sandbox), roots: [...new Set([ctx.workspaceRoot, ...roots])].filter(Boolean), sensitiveGlobs: ctx.sensitiveGlobs ?? DEFAULT_SENSITIVE_GLOBS, cwd };
}

const scanner = new WorkspaceScanner();

/**
 * Works out the sandbox for one process: scans each workspace folder for sensitive files and
 * repositories (cached, see WorkspaceScanner), makes the read-only places that do not exist yet,
 * starts the allow-list proxy if the network needs one, and builds bwrap's options.
 */
export async function prepareSandbox(request: SandboxRequest, engine: SandboxEngine): Promise<PreparedSandbox> {
  const setting = effectiveSandbox(request.setting);
  if (setting.network === 'allowlist' && !(engine.socat && engine.nsenter)) throw new Error('toolbelt.sandbox.network is "allowlist", which needs socat and nsenter (sudo apt-get install socat util-linux); nothing was run.');
  const home = request.home ?? os.homedir();
  const roots = await Promise.all(request.roots.map((root) => fs.realpath(root).catch(() => root)));
  const store = await privateStore(home, roots[0] ?? request.cwd);
  const readable = (setting.readablePaths ?? []).flatMap((p) => resolveSettingPath(p, home, roots.slice(0, 1)));
  const homeFolder = await homeView(home, roots, request.sourceEnv?.PATH ?? process.env.PATH, readable);
  // hiddenPaths patterns are found in each workspace folder as the sensitive files are; the others are paths.
  const hiddenPatterns = (setting.hiddenPaths ?? []).filter(isGlob);
  const scanGlobs = [...request.sensitiveGlobs, ...hiddenPatterns];
  const scans = await Promise.all(roots.map((root) => scanner.scan(root, scanGlobs, request.signal)));
  // A repository a workspace folder lies in is shown whole: its sensitive files are hidden as the workspace's are.
  const repositoryScans = await Promise.all(homeFolder.repositories.map((top) => scanner.scan(top, scanGlobs, request.signal)));

  const git = await gitProtection(scans.flatMap((scan) => scan.gitEntries), roots);
  const uncreatable: Uncreatable[] = [...roots.map((root) => ({ path: path.join(root, '.vscode'), kind: 'dir' as const })), ...git.uncreatable];
  const readOnly = [
    ...roots.map((root) => path.join(root, '.vscode')),
    ...scans.flatMap((scan) => [...scan.workspaceFiles, ...scan.settingsFolders]),
    ...git.readOnly,
    ...readOnlyPathsIn(roots, setting.readOnlyPaths ?? []),
  ];
  const hiddenCandidates = [
    ...HIDDEN_HOME_PATHS.map((p) => path.join(home, p)),
    ...stateFolders,
    ...(setting.hiddenPaths ?? []).filter((p) => !isGlob(p)).flatMap((p) => resolveSettingPath(p, home, roots)),
    ...[...scans, ...repositoryScans].flatMap((scan) => scan.sensitive.map((s) => s.path)),
  ];
  const hidden = await existing(hiddenCandidates);
  const writable = [...roots, store.folder, ...(await existing((setting.writablePaths ?? []).flatMap((p) => resolveSettingPath(p, home, roots.slice(0, 1))))).map((e) => e.path)];

  const programFiles = await programFilesUnder(['/tmp', ...(homeFolder.privateHome ? [homeFolder.privateHome] : [])], request.programWords ?? [], writable);
  const fixed = { TMPDIR: '/tmp', XDG_CACHE_HOME: path.join(store.folder, 'cache'), npm_config_cache: path.join(store.folder, 'npm'), ...request.fixedEnv, ...(setting.network === 'allowlist' ? proxyEnvironment() : {}) };
  const env = sandboxEnvironment(request.sourceEnv ?? process.env, [...(setting.env ?? []), ...(request.extraEnvNames ?? [])], fixed);
  // The host's runtime folder, and the one a server's own definition may name.
  const runtime = await runtimeDirs([process.env.XDG_RUNTIME_DIR, request.sourceEnv?.XDG_RUNTIME_DIR], env.PATH, home, roots);

  const lease = await MountPointLease.acquire(uncreatable);
  let network: NetworkLease | undefined;
  try {
    if (setting.network === 'allowlist') {
      network = await acquireNetwork(roots[0] ?? request.cwd, setting.allowedDomains ?? [], { bwrap: engine.bwrap, socat: engine.socat!, nsenter: engine.nsenter! }, runtime.masked);
    }
  } catch (error) {
    await lease.release();
    throw error;
  }
  const plan: SandboxPlan = {
    engineArgs: engine.extraArgs,
    network: setting.network,
    masked: runtime.masked,
    privateDirs: homeFolder.privateHome ? [{ path: homeFolder.privateHome, bytes: PRIVATE_HOME_BYTES }] : [],
    kept: [...runtime.kept, ...homeFolder.kept, ...homeFolder.repositories],
    programFiles,
    writable,
    pinned: git.pinned,
    readOnly,
    hiddenFiles: hidden.filter((h) => h.kind === 'file').map((h) => h.path),
    hiddenDirs: hidden.filter((h) => h.kind === 'dir').map((h) => h.path),
    placeholders: store.placeholders,
    cwd: request.cwd,
  };
  let disposed = false;
  return {
    options: Buffer.from(bwrapOptions(plan).map((a) => `${a}\0`).join('')),
    command: (program) => [...(network ? network.enter() : []), engine.bwrap, '--args', '3', '--', ...program],
    env,
    network: setting.network,
    dispose: async () => {
      if (disposed) return;
      disposed = true;
      await Promise.all([network?.release(), lease.release()]);
    },
  };
}

/** `~/x` and absolute paths as they are; relative ones inside each of `roots`. */
function resolveSettingPath(entry: string, home: string, roots: readonly string[]): string[] {
  const trimmed = entry.trim();
  if (!trimmed) return [];
  if (trimmed === '~' || trimmed.startsWith('~/')) return [path.join(home, trimmed.slice(1))];
  if (path.isAbsolute(trimmed)) return [path.normalize(trimmed)];
  return roots.map((root) => path.join(root, trimmed));
}

/** The paths that exist, each as a file or a folder (a link counts as what it leads to). */
async function existing(paths: readonly string[]): Promise<{ path: string; kind: 'file' | 'dir' }[]> {
  const unique = [...new Set(paths)];
  const stats = await Promise.all(unique.map((p) => fs.stat(p).catch(() => undefined)));
  return unique.flatMap((p, i) => (stats[i] ? [{ path: p, kind: stats[i]!.isDirectory() ? ('dir' as const) : ('file' as const) }] : []));
}

interface Store {
  /** Writable inside: the per-workspace caches (XDG_CACHE_HOME, npm's cache). */
  folder: string;
  placeholders: { file: string; dir: string };
}

const stores = new Map<string, Promise<Store>>();

/**
 * The per-workspace caches and the unreadable placeholders, under `~/.cache/toolbelt/sandbox`
 * (or a private folder in the temp dir when the home folder cannot be written).
 */
function privateStore(home: string, firstRoot: string): Promise<Store> {
  const key = `${home}\0${firstRoot}`;
  let store = stores.get(key);
  if (!store) {
    store = makeStore(home, firstRoot);
    stores.set(key, store);
    store.catch(() => stores.delete(key));
  }
  return store;
}

async function makeStore(home: string, firstRoot: string): Promise<Store> {
  const base = await firstWritable([path.join(process.env.XDG_CACHE_HOME || path.join(home, '.cache'), 'toolbelt', 'sandbox'), path.join(os.tmpdir(), `toolbelt-sandbox-${process.getuid?.() ?? 'user'}`)]);
  const folder = path.join(base, createHash('sha256').update(firstRoot).digest('hex').slice(0, 16));
  await fs.mkdir(path.join(folder, 'cache'), { recursive: true });
  await fs.mkdir(path.join(folder, 'npm'), { recursive: true });
  await fs.writeFile(path.join(folder, WORKSPACE_FILE), firstRoot);
  sweptBases ??= new Set();
  if (!sweptBases.has(base)) {
    sweptBases.add(base);
    void sweepStores(base).catch(() => undefined);
  }
  const file = path.join(base, 'unreadable-file');
  const dir = path.join(base, 'unreadable-folder');
  // Made once; opening it again would fail for anyone but root (mode 000).
  await fs.writeFile(file, '', { flag: 'wx' }).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'EEXIST') throw error;
  });
  await fs.mkdir(dir, { recursive: true });
  await fs.chmod(file, 0o000);
  await fs.chmod(dir, 0o000);
  return { folder, placeholders: { file, dir } };
}

/** Names the workspace a cache folder belongs to, so the caches of deleted workspaces can go. */
const WORKSPACE_FILE = 'workspace.txt';
let sweptBases: Set<string> | undefined;

/** Once per process and base: removes the cache folders whose workspace folder no longer exists. */
async function sweepStores(base: string): Promise<void> {
  for (const entry of await fs.readdir(base, { withFileTypes: true })) {
    if (!entry.isDirectory() || !/^[0-9a-f]{16}$/.test(entry.name)) continue;
    const folder = path.join(base, entry.name);
    const workspace = await fs.readFile(path.join(folder, WORKSPACE_FILE), 'utf8').catch(() => undefined);
    if (workspace !== undefined && !(await fs.stat(workspace).then(() => true, () => false))) await fs.rm(folder, { recursive: true, force: true });
  }
}

async function firstWritable(candidates: readonly string[]): Promise<string> {
  for (const candidate of candidates) {
    try {
      await fs.mkdir(candidate, { recursive: true, mode: 0o700 });
      await fs.access(candidate, fs.constants.W_OK);
      // In a shared temp dir someone else could have made it first (or put a link there).
      const stat = await fs.lstat(candidate);
      if (!stat.isDirectory() || (process.getuid && stat.uid !== process.getuid())) continue;
      return candidate;
    } catch {
      // the next one
    }
  }
  throw new Error(`no folder for the sandbox's caches could be made (tried ${candidates.join(', ')}).`);
}
