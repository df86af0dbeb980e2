import * as path from 'node:path';
import { isInside } from '../pathChecks';
import { DEFAULT_READ_ONLY_PATHS } from './sandboxReadOnly';
import type { SandboxSetting } from '../types';

/** Variables that make package managers fail at once, instead of retrying for a minute, where there is no network. */
export const NO_NETWORK_ENV: Readonly<Record<string, string>> = Object.freeze({ npm_config_offline: 'true', PIP_RETRIES: '0', PIP_TIMEOUT: '5' });

const NAME_FAILURES = [
  /request to https?:\/\/([\w.-]+)[^\n]* failed/g,
  /getaddrinfo (?:ENOTFOUND|EAI_AGAIN) ([\w.-]+)/g,
  /Could not resolve host:? '?([\w.-]+)/g,
  /Failed to resolve '([\w.-]+)'/g,
  /Temporary failure in name resolution/g,
  /Network is unreachable/gi,
  /ENOTCACHED/g,
  /ENETUNREACH/g,
];

const READ_ONLY_FAILURE = /(?:Read-only file system|Device or resource busy|EROFS|EBUSY)/;
/** A path a tool names in its error: quoted, after "file" / "open" / …, or before the error itself (bash's redirections). */
const NAMED_PATH = /(?:'([^'\n]+)'|"([^"\n]+)"|(?:file|open|lock|directory) ([^\s:'"]+)|([^\s:'"]+): (?:Read-only file system|Device or resource busy))/g;

/**
 * Lines that say why a sandboxed command failed and the one setting change that would allow it:
 * the network is off (naming the hosts it could not reach), a host is not on the allow-list, a
 * file is protected (naming which rule protects it). Empty when the output shows none of these.
 */
export function sandboxHints(output: string, setting: SandboxSetting, roots: readonly string[], cwd: string): string[] {
  const hints: string[] = [];
  if (setting.network === 'off') {
    const hosts = new Set<string>();
    let failed = false;
    for (const pattern of NAME_FAILURES) {
      for (const match of output.matchAll(pattern)) {
        failed = true;
        if (match[1] && match[1].includes('.')) hosts.add(match[1].replace(/\.$/, ''));
      }
    }
    if (failed) {
      const named = hosts.size > 0 ? ` (it tried ${[...hosts].slice(0, 5).join(', ')})` : '';
      hints.push(`The command has no network in Toolbelt's sandbox${named}: toolbelt.sandbox.network is "off". To let it reach a host, set toolbelt.sandbox.network to "allowlist" and add the host to toolbelt.sandbox.allowedDomains in your user settings.`);
    }
  }
  if (setting.network === 'allowlist') {
    const refused = new Set<string>();
    for (const match of output.matchAll(/Toolbelt's sandbox refused a connection to ([^\s:]+)/g)) refused.add(match[1]);
    for (const match of output.matchAll(/\b403\b[^\n]*?https?:\/\/([\w.-]+)/g)) if (!(setting.allowedDomains ?? []).includes(match[1])) refused.add(match[1]);
    if (refused.size > 0) hints.push(`Toolbelt's sandbox refused ${[...refused].slice(0, 5).join(', ')}: not in toolbelt.sandbox.allowedDomains. Add the host there (your user settings) to allow it.`);
  }
  const protectedPaths = new Map<string, string>();
  for (const line of output.split('\n')) {
    if (!READ_ONLY_FAILURE.test(line)) continue;
    for (const match of line.matchAll(NAMED_PATH)) {
      const named = match[1] ?? match[2] ?? match[3] ?? match[4];
      if (!named) continue;
      const absolute = path.resolve(cwd, named);
      const why = protectionOf(absolute, roots, setting);
      if (why) protectedPaths.set(displayPath(absolute, roots), why);
    }
  }
  for (const [shown, why] of [...protectedPaths].slice(0, 5)) hints.push(`Protected by Toolbelt's sandbox: ${shown} (${why}).`);
  return hints;
}

/** Why the sandbox keeps `absolute` from being changed, or undefined when it is not one of its rules. */
function protectionOf(absolute: string, roots: readonly string[], setting: SandboxSetting): string | undefined {
  const root = roots.find((r) => isInside(r, absolute));
  if (!root) return 'only the workspace folders are writable; toolbelt.sandbox.writablePaths (your user settings) adds a folder';
  const relative = path.relative(root, absolute).split(path.sep).join('/');
  if (/(^|\/)\.git\/(config|hooks|commondir|config\.worktree)(\/|$)/.test(relative) || /(^|\/)\.git$/.test(relative)) {
    return "git's config and hooks are read-only, so that git on the host never runs a program a command planted; change them outside the sandbox";
  }
  if (/(^|\/)\.vscode(\/|$)/.test(relative) || relative.endsWith('.code-workspace')) return 'workspace settings are read-only to commands; write_file can change them with your approval';
  const listed = [...DEFAULT_READ_ONLY_PATHS, ...(setting.readOnlyPaths ?? [])].find((entry) => {
    const clean = entry.replace(/\/+$/, '');
    return relative === clean || relative.startsWith(`${clean}/`);
  });
  return listed ? `toolbelt.sandbox.readOnlyPaths: "${listed}", what the editor, CI or another agent runs later` : undefined;
}

function displayPath(absolute: string, roots: readonly string[]): string {
  const root = roots.find((r) => isInside(r, absolute));
  return root ? path.relative(root, absolute) || '.' : absolute;
}
