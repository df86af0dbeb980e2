import { isInside } from '../pathChecks';
import { BASE_BWRAP_ARGS } from './sandboxAvailability';

/** The port the allow-list relay serves the proxy on, on the sandbox's own 127.0.0.1 (see NetworkRelay). */
export const PROXY_PORT = 3128;

/** Size of the private /tmp (a tmpfs lives in memory: unbounded, it could take half of it). */
export const PRIVATE_TMP_BYTES = 1024 * 1024 * 1024;

/** The descriptor bwrap reads the system-call filter from (see seccompProgram); 3 carries its options. */
export const SECCOMP_FD = 4;

/** Everything one sandbox mounts, as absolute host paths (each one exists, except `readOnly` entries). */
export interface SandboxPlan {
  /** bwrap options of this version beyond the base set (from detection). */
  engineArgs: readonly string[];
  /** `allowlist`: the sandbox starts inside the relay's network namespace, so bwrap makes none. */
  network: 'off' | 'on' | 'allowlist';
  /** Replaced by an empty folder, read-only: `/run`, `$XDG_RUNTIME_DIR` (see runtimeDirs). */
  masked: readonly string[];
  /** Replaced by an empty folder of `bytes`, writable (what is written there is gone when the sandbox ends): the home folder. */
  privateDirs: readonly { path: string; bytes: number }[];
  /** Mounted again, read-only, inside the masked and private folders (resolver files, PATH entries, toolchains). */
  kept: readonly string[];
  /** Read-only inside the private /tmp and home: a program's own package there (see programFilesUnder). */
  programFiles: readonly string[];
  /** Writable: the workspace folders, the private caches, `writablePaths`. */
  writable: readonly string[];
  /** Bound writable onto themselves so that they are mount points, which cannot be renamed or removed (`.git`). */
  pinned: readonly string[];
  /** Read-only where they exist (`--ro-bind-try` onto themselves): `.vscode`, `.git/hooks`, `.git/config`, `*.code-workspace`. */
  readOnly: readonly string[];
  /** Replaced by an unreadable placeholder: files and folders. */
  hiddenFiles: readonly string[];
  hiddenDirs: readonly string[];
  placeholders: { file: string; dir: string };
  cwd: string;
}

/**
 * bwrap's options for a plan, in the order they must apply: the whole host read-only, a fresh
 * /dev, /proc and /tmp, empty runtime folders and home (with what name resolution, PATH and
 * toolchains need of them),
 * the program's own package in /tmp, then the writable folders, then inside them what stays
 * read-only, then what is hidden (so nothing mounted later undoes an earlier, stricter mount);
 * last the runtime folders become read-only, once every mount point in them is made. The
 * system-call filter comes on descriptor SECCOMP_FD.
 */
export function bwrapOptions(plan: SandboxPlan): string[] {
  const args = [...BASE_BWRAP_ARGS, ...plan.engineArgs];
  if (plan.network === 'off') args.push('--unshare-net');
  args.push('--seccomp', String(SECCOMP_FD));
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--size', String(PRIVATE_TMP_BYTES), '--tmpfs', '/tmp');
  const sizes = new Map(plan.privateDirs.map((dir) => [dir.path, dir.bytes]));
  for (const dir of parentsFirst([...plan.masked, ...sizes.keys()])) args.push(...(sizes.has(dir) ? ['--size', String(sizes.get(dir))] : []), '--tmpfs', dir);
  for (const entry of parentsFirst(plan.kept)) args.push('--ro-bind', entry, entry);
  for (const entry of parentsFirst(plan.programFiles)) args.push('--ro-bind', entry, entry);
  for (const dir of parentsFirst(plan.writable)) args.push('--bind', dir, dir);
  for (const dir of parentsFirst(plan.pinned)) args.push('--bind', dir, dir);
  for (const entry of parentsFirst(plan.readOnly)) args.push('--ro-bind-try', entry, entry);
  for (const file of plan.hiddenFiles) args.push('--ro-bind', plan.placeholders.file, file);
  for (const dir of outermost(plan.hiddenDirs)) args.push('--ro-bind', plan.placeholders.dir, dir);
  for (const dir of parentsFirst(plan.masked)) args.push('--remount-ro', dir);
  args.push('--chdir', plan.cwd);
  return args;
}

/** The proxy variables a sandbox with the allow-list gets (NODE_USE_ENV_PROXY: Node 24's fetch and http follow them). */
export function proxyEnvironment(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NODE_USE_ENV_PROXY: '1' };
}

/** Shorter paths first, so a folder is mounted before anything mounted inside it. */
function parentsFirst(paths: readonly string[]): string[] {
  return [...new Set(paths)].sort((a, b) => a.length - b.length || (a < b ? -1 : 1));
}

/** Drops folders inside another listed folder: the outer one's placeholder already hides them (and cannot be entered). */
function outermost(dirs: readonly string[]): string[] {
  const sorted = parentsFirst(dirs);
  return sorted.filter((dir, i) => !sorted.slice(0, i).some((outer) => isInside(outer, dir)));
}
