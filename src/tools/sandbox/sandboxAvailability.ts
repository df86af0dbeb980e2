import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Writable } from 'node:stream';
import { SECCOMP_ARCHITECTURES, seccompProgram } from './sandboxSeccomp';
import type { SandboxSetting } from '../types';

/** Set to `1` to make detection report "unavailable" (tests of the fallbacks). */
export const SANDBOX_UNAVAILABLE_VARIABLE = 'TOOLBELT_SANDBOX_UNAVAILABLE';

export const DEFAULT_SANDBOX: Readonly<SandboxSetting> = Object.freeze({ mode: 'auto', network: 'off' });

export interface SandboxAvailability {
  available: boolean;
  /** The engine and its version, e.g. `bubblewrap 0.8.0`; `none` where there is none. */
  engine: string;
  /** One sentence for the log and for the person: what works, or why not and what to do. */
  detail: string;
}

/** What the launcher needs of the engine found on this machine. */
export interface SandboxEngine {
  bwrap: string;
  /** The network allow-list's relay (see NetworkRelay); without both, `allowlist` cannot run. */
  socat?: string;
  nsenter?: string;
  /** bwrap options this version understands beyond the base set (`--disable-userns` since 0.8). */
  extraArgs: readonly string[];
}

/** The namespaces and hardening every sandbox gets; mounts and the network come after. */
export const BASE_BWRAP_ARGS: readonly string[] = Object.freeze([
  '--unshare-user', '--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try',
  '--cap-drop', 'ALL', '--die-with-parent', '--new-session',
]);

const PROBE_TIMEOUT_MS = 5000;
let detected: Promise<{ availability: SandboxAvailability; engine?: SandboxEngine }> | undefined;

/**
 * Whether commands can run in the OS sandbox here: Linux on x86_64 or aarch64 (the system-call
 * filter knows those) with Debian's bubblewrap, whose user, mount, PID and network namespaces and
 * seccomp filter really apply (tried once, then cached). macOS and Windows have no engine yet.
 * `TOOLBELT_SANDBOX_UNAVAILABLE=1` forces "unavailable".
 */
export async function sandboxAvailability(): Promise<SandboxAvailability> {
  if (process.env[SANDBOX_UNAVAILABLE_VARIABLE] === '1') {
    return { available: false, engine: 'bubblewrap', detail: `${SANDBOX_UNAVAILABLE_VARIABLE}=1 says to act as if no sandbox were available.` };
  }
  return (await detect()).availability;
}

/** The engine, when available (undefined otherwise, or when forced unavailable). */
export async function sandboxEngine(): Promise<SandboxEngine | undefined> {
  if (process.env[SANDBOX_UNAVAILABLE_VARIABLE] === '1') return undefined;
  return (await detect()).engine;
}

function detect(): Promise<{ availability: SandboxAvailability; engine?: SandboxEngine }> {
  detected ??= detectOnce();
  return detected;
}

async function detectOnce(): Promise<{ availability: SandboxAvailability; engine?: SandboxEngine }> {
  if (process.platform !== 'linux') {
    const detail = `Toolbelt has no sandbox engine for ${process.platform === 'darwin' ? 'macOS' : process.platform} yet: commands and MCP servers run with your account's full powers.`;
    return { availability: { available: false, engine: 'none', detail } };
  }
  const filter = seccompProgram();
  if (!filter) {
    const detail = `Toolbelt's sandbox filters system calls on ${SECCOMP_ARCHITECTURES.join(' and ')} only, and this machine is ${process.arch}: commands and MCP servers cannot run sandboxed here.`;
    return { availability: { available: false, engine: 'none', detail } };
  }
  const bwrap = await findExecutable('bwrap');
  if (!bwrap) {
    return { availability: { available: false, engine: 'bubblewrap', detail: 'bubblewrap is not installed (Debian/Ubuntu: sudo apt-get install bubblewrap socat).' } };
  }
  const [socat, nsenter] = await Promise.all([findExecutable('socat'), findExecutable('nsenter')]);
  const version = (await runProbe(bwrap, ['--version'])).output.trim() || 'bubblewrap';
  const tryArgs = async (extra: readonly string[]) => runProbe(bwrap, [...BASE_BWRAP_ARGS, ...extra, '--unshare-net', '--seccomp', '3', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', '--', 'true'], filter);
  let extraArgs: readonly string[] = ['--disable-userns'];
  let probe = await tryArgs(extraArgs);
  // bubblewrap before 0.8 lacks --disable-userns: nested user namespaces stay possible (their mounts are locked).
  if (!probe.ok && /unknown option/i.test(probe.output)) probe = await tryArgs((extraArgs = []));
  if (!probe.ok) {
    return { availability: { available: false, engine: version, detail: `${version} is installed but cannot create a sandbox here: ${probe.output.trim() || 'it failed'}.${namespaceHint(probe.output)}` } };
  }
  const network = socat && nsenter ? 'network allow-lists go through socat' : `${socat ? 'nsenter' : 'socat'} is missing, so toolbelt.sandbox.network "allowlist" cannot run (sudo apt-get install socat util-linux)`;
  const detail = `${version}: each command gets its own user, mount, PID and network namespaces and no Unix socket; ${network}.`;
  return { availability: { available: true, engine: version, detail }, engine: { bwrap, socat, nsenter, extraArgs } };
}

/** What to do when the kernel refuses the namespaces (Ubuntu 24.04's AppArmor restriction, mostly). */
function namespaceHint(output: string): string {
  if (!/uid map|permission|namespace|Operation not permitted/i.test(output)) return '';
  return " Unprivileged user namespaces are refused: on Ubuntu 24.04 AppArmor restricts them; allow bubblewrap with an AppArmor profile (Toolbelt's docs/SECURITY.md shows one) or set kernel.apparmor_restrict_unprivileged_userns=0.";
}

async function findExecutable(name: string): Promise<string | undefined> {
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter).filter(Boolean), '/usr/bin', '/bin', '/usr/local/bin'];
  for (const dir of dirs) {
    const candidate = path.join(dir, name);
    if (await fs.access(candidate, fs.constants.X_OK).then(() => true, () => false)) return candidate;
  }
  return undefined;
}

/** Runs `file`, with `input` (when given) to read on fd 3. */
function runProbe(file: string, args: string[], input?: Buffer): Promise<{ ok: boolean; output: string }> {
  return new Promise((resolve) => {
    let output = '';
    const child = spawn(file, args, { stdio: ['ignore', 'pipe', 'pipe', input ? 'pipe' : 'ignore'], env: { PATH: '/usr/bin:/bin' } });
    if (input) (child.stdio[3] as Writable).on('error', () => undefined).end(input);
    const timer = setTimeout(() => child.kill('SIGKILL'), PROBE_TIMEOUT_MS);
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.on('error', (error) => {
      clearTimeout(timer);
      resolve({ ok: false, output: error.message });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ ok: code === 0, output: output.slice(0, 500) });
    });
  });
}

/** The setting with its defaults filled in and unknown values replaced by the strict ones. */
export function effectiveSandbox(setting: SandboxSetting | undefined): SandboxSetting {
  if (!setting) return { ...DEFAULT_SANDBOX };
  const mode = (['auto', 'required', 'off'] as const).includes(setting.mode) ? setting.mode : 'auto';
  const network = (['off', 'on', 'allowlist'] as const).includes(setting.network) ? setting.network : 'off';
  return { ...setting, mode, network };
}

export type SandboxDecision =
  | { kind: 'sandboxed' }
  | { kind: 'ask'; reason: 'unsandboxed'; summary: string }
  | { kind: 'refuse'; message: string }
  | { kind: 'unsandboxed-allowed' };

/**
 * What a run_bash call does about the sandbox, before any command rule: `off` runs it as it
 * always did; with a sandbox it runs inside; without one, `required` refuses (saying why) and
 * `auto` asks the person with reason `unsandboxed`, whatever the command rules say.
 */
export function sandboxDecision(setting: SandboxSetting | undefined, availability: SandboxAvailability, summary = 'Run the command'): SandboxDecision {
  const { mode } = effectiveSandbox(setting);
  if (mode === 'off') return { kind: 'unsandboxed-allowed' };
  if (availability.available) return { kind: 'sandboxed' };
  if (mode === 'required') {
    return { kind: 'refuse', message: `toolbelt.sandbox.mode is "required" and no sandbox is available here: ${availability.detail} Nothing was run.` };
  }
  return { kind: 'ask', reason: 'unsandboxed', summary: `${summary} without a sandbox, with your account's full powers (${availability.detail})` };
}

/** How a call ran, for run_bash's result header and the call log, e.g. `sandboxed, network off`. */
export function describeContainment(setting: SandboxSetting | undefined, sandboxed: boolean): string {
  const effective = effectiveSandbox(setting);
  if (!sandboxed) return effective.mode === 'off' ? 'not sandboxed (toolbelt.sandbox.mode is "off")' : 'not sandboxed (no sandbox available)';
  if (effective.network === 'allowlist') {
    const domains = effective.allowedDomains ?? [];
    return `sandboxed, network only to ${domains.length === 0 ? 'no domain' : domains.slice(0, 3).join(', ') + (domains.length > 3 ? ` and ${domains.length - 3} more` : '')}`;
  }
  return `sandboxed, network ${effective.network}`;
}
