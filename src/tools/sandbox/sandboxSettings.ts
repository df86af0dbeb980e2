import { checkEnvNames } from './sandboxEnvironment';
import { readOnlyEntryProblem } from './sandboxReadOnly';
import { hashEntries } from '../trustRules';
import type { SandboxSetting } from '../types';

/** A setting's value at the person's own level and at the workspace's (undefined where unset). */
export interface SettingLevels {
  user: unknown;
  workspace: unknown;
}

/** The raw `toolbelt.sandbox.*` values, each level apart (workspace values only in a trusted workspace). */
export interface SandboxSettingValues {
  mode: SettingLevels;
  network: SettingLevels;
  allowedDomains: SettingLevels;
  hiddenPaths: SettingLevels;
  env: SettingLevels;
  /** Absent: unset at both levels. */
  readablePaths?: SettingLevels;
  writablePaths?: SettingLevels;
  readOnlyPaths?: SettingLevels;
}

export interface SandboxRules {
  /** What applies now. */
  sandbox: SandboxSetting;
  /** What the workspace would loosen, while the person has not accepted that exact change. */
  pendingWorkspace?: { changes: string[]; hash: string };
  problems: string[];
}

const MODE_STRICTNESS = { off: 0, auto: 1, required: 2 } as const;
const NETWORK_STRICTNESS = { on: 0, allowlist: 1, off: 2 } as const;
type Mode = keyof typeof MODE_STRICTNESS;
type Network = keyof typeof NETWORK_STRICTNESS;

interface Level {
  mode?: Mode;
  network?: Network;
  allowedDomains?: string[];
  hiddenPaths?: string[];
  env?: string[];
  readablePaths?: string[];
  writablePaths?: string[];
  readOnlyPaths?: string[];
}

/**
 * The sandbox from the settings. The person's own values apply as they are; a workspace can only
 * tighten them at once (a stricter mode, less network, fewer domains, more hidden paths). What it
 * would loosen (a laxer mode or network, domains, variables, readable or writable paths the
 * person did not list) applies
 * only once the person accepted that exact change (`acceptedHash`), as with allowed commands.
 */
export function buildSandboxRules(values: SandboxSettingValues, acceptedHash: string | undefined): SandboxRules {
  const problems: string[] = [];
  const user = readLevel(values, 'user', problems);
  const workspace = readLevel(values, 'workspace', problems);
  const base: SandboxSetting = {
    mode: user.mode ?? 'auto',
    network: user.network ?? 'off',
    allowedDomains: user.allowedDomains ?? [],
    hiddenPaths: user.hiddenPaths ?? [],
    env: user.env ?? [],
    ...(user.readablePaths && { readablePaths: user.readablePaths }),
    ...(user.writablePaths && { writablePaths: user.writablePaths }),
  };
  const hiddenPaths = unique([...(base.hiddenPaths ?? []), ...(workspace.hiddenPaths ?? [])]);
  // Read-only paths only tighten: every level's entries add up, whatever is accepted.
  const readOnly = unique([...(user.readOnlyPaths ?? []), ...(workspace.readOnlyPaths ?? [])]);
  const readOnlyPaths = readOnly.length > 0 ? { readOnlyPaths: readOnly } : {};
  const changes = loosenings(base, workspace);
  // Paths only in the hash when set, so that a workspace accepted before these settings existed stays accepted.
  const paths = workspace.readablePaths || workspace.writablePaths ? [workspace.readablePaths, workspace.writablePaths] : [];
  const hash = changes.length > 0 ? hashEntries([JSON.stringify([workspace.mode, workspace.network, workspace.allowedDomains, workspace.env, ...paths])]) : undefined;
  const basePaths = { ...(base.readablePaths && { readablePaths: base.readablePaths }), ...(base.writablePaths && { writablePaths: base.writablePaths }) };
  if (hash !== undefined && hash === acceptedHash) {
    const sandbox: SandboxSetting = {
      mode: workspace.mode ?? base.mode,
      network: workspace.network ?? base.network,
      allowedDomains: workspace.allowedDomains ?? base.allowedDomains,
      hiddenPaths,
      env: unique([...(base.env ?? []), ...(workspace.env ?? [])]),
      ...nonEmpty('readablePaths', unique([...(base.readablePaths ?? []), ...(workspace.readablePaths ?? [])])),
      ...nonEmpty('writablePaths', unique([...(base.writablePaths ?? []), ...(workspace.writablePaths ?? [])])),
      ...readOnlyPaths,
    };
    return { sandbox, problems };
  }
  const sandbox: SandboxSetting = { ...strictest(base, workspace), hiddenPaths, env: base.env, ...basePaths, ...readOnlyPaths };
  return { sandbox, problems, ...(hash !== undefined && { pendingWorkspace: { changes, hash } }) };
}

/** Mode, network and domains at their strictest between the person's values and the workspace's. */
function strictest(base: SandboxSetting, workspace: Level): Pick<SandboxSetting, 'mode' | 'network' | 'allowedDomains'> {
  const mode = workspace.mode && MODE_STRICTNESS[workspace.mode] > MODE_STRICTNESS[base.mode] ? workspace.mode : base.mode;
  const network = workspace.network && NETWORK_STRICTNESS[workspace.network] > NETWORK_STRICTNESS[base.network] ? workspace.network : base.network;
  let allowedDomains = base.allowedDomains ?? [];
  if (network === 'allowlist' && workspace.allowedDomains) {
    // The person's network was "on" (anything) or an allow-list: the workspace's list narrows it.
    allowedDomains = base.network === 'allowlist' ? workspace.allowedDomains.filter((d) => allowedDomains.includes(d)) : workspace.allowedDomains;
  }
  return { mode, network, allowedDomains };
}

/** What the workspace's values would loosen, in words (empty: they only tighten). */
function loosenings(base: SandboxSetting, workspace: Level): string[] {
  const changes: string[] = [];
  if (workspace.mode && MODE_STRICTNESS[workspace.mode] < MODE_STRICTNESS[base.mode]) changes.push(`mode "${workspace.mode}" instead of "${base.mode}"`);
  if (workspace.network && NETWORK_STRICTNESS[workspace.network] < NETWORK_STRICTNESS[base.network]) changes.push(`network "${workspace.network}" instead of "${base.network}"`);
  const network = workspace.network ?? base.network;
  if (network === 'allowlist' && base.network === 'allowlist' && workspace.allowedDomains) {
    const added = workspace.allowedDomains.filter((d) => !(base.allowedDomains ?? []).includes(d));
    if (added.length > 0) changes.push(`the domains ${added.join(', ')}`);
  } else if (network === 'allowlist' && base.network === 'off' && workspace.allowedDomains?.length) {
    changes.push(`the domains ${workspace.allowedDomains.join(', ')}`);
  }
  const env = (workspace.env ?? []).filter((name) => !(base.env ?? []).includes(name));
  if (env.length > 0) changes.push(`the environment variables ${env.join(', ')}`);
  const readable = (workspace.readablePaths ?? []).filter((p) => !(base.readablePaths ?? []).includes(p));
  if (readable.length > 0) changes.push(`the readable paths ${readable.join(', ')}`);
  const writable = (workspace.writablePaths ?? []).filter((p) => !(base.writablePaths ?? []).includes(p));
  if (writable.length > 0) changes.push(`the writable paths ${writable.join(', ')}`);
  return changes;
}

function readLevel(values: SandboxSettingValues, level: keyof SettingLevels, problems: string[]): Level {
  const where = level === 'user' ? 'User settings' : 'Workspace settings';
  const result: Level = {};
  const mode = values.mode[level];
  if (mode !== undefined) {
    if (typeof mode === 'string' && mode in MODE_STRICTNESS) result.mode = mode as Mode;
    else problems.push(`${where}: toolbelt.sandbox.mode must be "auto", "required" or "off"; it was ignored.`);
  }
  const network = values.network[level];
  if (network !== undefined) {
    if (typeof network === 'string' && network in NETWORK_STRICTNESS) result.network = network as Network;
    else problems.push(`${where}: toolbelt.sandbox.network must be "off", "allowlist" or "on"; it was ignored.`);
  }
  const domains = stringList(values.allowedDomains[level], `${where}: toolbelt.sandbox.allowedDomains`, problems);
  if (domains) result.allowedDomains = domains.map((d) => d.toLowerCase());
  const hidden = stringList(values.hiddenPaths[level], `${where}: toolbelt.sandbox.hiddenPaths`, problems);
  if (hidden) {
    // A glob is matched in the workspace folders only (as toolbelt.tools.sensitiveFiles is); elsewhere it would name nothing.
    const outsideGlobs = hidden.filter((entry) => isGlob(entry) && (entry.startsWith('/') || entry.startsWith('~')));
    for (const entry of outsideGlobs) problems.push(`${where}: toolbelt.sandbox.hiddenPaths: "${entry}" is a pattern outside the workspace; patterns work relative to the workspace folder (e.g. "secrets/**"), elsewhere name the path itself. It was ignored.`);
    result.hiddenPaths = hidden.filter((entry) => !outsideGlobs.includes(entry));
  }
  for (const key of ['readablePaths', 'writablePaths'] as const) {
    const paths = stringList(values[key]?.[level], `${where}: toolbelt.sandbox.${key}`, problems);
    if (paths) result[key] = paths;
  }
  const readOnly = stringList(values.readOnlyPaths?.[level], `${where}: toolbelt.sandbox.readOnlyPaths`, problems);
  if (readOnly) {
    for (const entry of readOnly) {
      const problem = readOnlyEntryProblem(entry);
      if (problem) problems.push(`${where}: toolbelt.sandbox.readOnlyPaths: ${problem}; it was ignored.`);
    }
    result.readOnlyPaths = readOnly.filter((entry) => readOnlyEntryProblem(entry) === undefined);
  }
  if (values.env[level] !== undefined) {
    const env = checkEnvNames(values.env[level]);
    problems.push(...env.problems.map((p) => `${where}: ${p}`));
    result.env = env.names;
  }
  return result;
}

function stringList(value: unknown, what: string, problems: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    problems.push(`${what} must be a list of strings; it was ignored.`);
    return undefined;
  }
  const strings = value.filter((v): v is string => typeof v === 'string' && v.trim() !== '').map((v) => v.trim());
  if (strings.length < value.length) problems.push(`${what}: entries that are not strings were ignored.`);
  return strings;
}

function nonEmpty<K extends string>(key: K, entries: string[]): Partial<Record<K, string[]>> {
  return entries.length > 0 ? ({ [key]: entries } as Record<K, string[]>) : {};
}

/** Whether a hiddenPaths entry is a pattern (`*`, `?`, `[…]`) rather than a path. */
export function isGlob(entry: string): boolean {
  return /[*?[]/.test(entry);
}

function unique(entries: string[]): string[] {
  return [...new Set(entries)];
}
