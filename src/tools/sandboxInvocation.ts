import { isInside } from './pathChecks';
import { BASE_BWRAP_ARGS } from './sandbox';

/** Where the allow-list proxy's socket appears inside, and the port socat serves it on. */
export const PROXY_SOCKET_INSIDE = '/tmp/.toolbelt-proxy.sock';
export const PROXY_PORT = 3128;

/** Everything one sandbox mounts, as absolute host paths (each one exists, except `readOnly` entries). */
export interface SandboxPlan {
  /** bwrap options of this version beyond the base set (from detection). */
  engineArgs: readonly string[];
  network: 'off' | 'on' | 'allowlist';
  /** Read-only inside the private /tmp: a program's own package there (see programFilesUnderTmp). */
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
  /** For `allowlist`: the proxy's Unix socket on the host. */
  proxySocket?: string;
  cwd: string;
}

/**
 * bwrap's options for a plan, in the order they must apply: the whole host read-only, a fresh
 * /dev, /proc and /tmp (with the program's own package in it), then the writable folders, then
 * inside them what stays read-only, then what is hidden (so nothing mounted later undoes an
 * earlier, stricter mount).
 */
export function bwrapOptions(plan: SandboxPlan): string[] {
  const args = [...BASE_BWRAP_ARGS, ...plan.engineArgs];
  if (plan.network !== 'on') args.push('--unshare-net');
  args.push('--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', '--tmpfs', '/tmp');
  for (const entry of parentsFirst(plan.programFiles)) args.push('--ro-bind', entry, entry);
  for (const dir of parentsFirst(plan.writable)) args.push('--bind', dir, dir);
  for (const dir of parentsFirst(plan.pinned)) args.push('--bind', dir, dir);
  for (const entry of parentsFirst(plan.readOnly)) args.push('--ro-bind-try', entry, entry);
  for (const file of plan.hiddenFiles) args.push('--ro-bind', plan.placeholders.file, file);
  for (const dir of outermost(plan.hiddenDirs)) args.push('--ro-bind', plan.placeholders.dir, dir);
  if (plan.proxySocket) args.push('--bind', plan.proxySocket, PROXY_SOCKET_INSIDE);
  args.push('--chdir', plan.cwd);
  return args;
}

/**
 * The program bwrap runs: `bash -c command`; with the allow-list, first a socat relay from the
 * sandbox's own 127.0.0.1:3128 to the proxy socket, waiting until it listens (0C38 = 3128,
 * 0A = LISTEN in /proc/net/tcp), then the command in place of that shell.
 */
export function sandboxedBash(command: string, network: SandboxPlan['network'], socat: string | undefined): string[] {
  if (network !== 'allowlist') return ['bash', '-c', command];
  const relay = [
    `${quote(socat ?? 'socat')} TCP-LISTEN:${PROXY_PORT},bind=127.0.0.1,fork,reuseaddr UNIX-CONNECT:${PROXY_SOCKET_INSIDE} </dev/null >/dev/null 2>&1 &`,
    `i=0; until [[ $(</proc/net/tcp) == *"0100007F:${PROXY_PORT.toString(16).toUpperCase().padStart(4, '0')} 00000000:0000 0A"* ]]; do (( ++i > 500 )) && break; sleep 0.01; done`,
    'exec bash -c "$1"',
  ].join('\n');
  return ['bash', '-c', relay, 'bash', command];
}

/** Wraps any program (an MCP server) the same way: with the allow-list, the relay starts first. */
export function sandboxedProgram(argv: readonly string[], network: SandboxPlan['network'], socat: string | undefined): string[] {
  if (network !== 'allowlist') return [...argv];
  return sandboxedBash(`exec ${argv.map(quote).join(' ')}`, network, socat);
}

/** The proxy variables a sandbox with the allow-list gets (NODE_USE_ENV_PROXY: Node 24's fetch and http follow them). */
export function proxyEnvironment(): Record<string, string> {
  const url = `http://127.0.0.1:${PROXY_PORT}`;
  return { HTTP_PROXY: url, HTTPS_PROXY: url, http_proxy: url, https_proxy: url, ALL_PROXY: url, all_proxy: url, NODE_USE_ENV_PROXY: '1' };
}

function quote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
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
