import { createHash } from 'node:crypto';
import { checkPolicyEntries } from './command';
import { layeredSensitiveGlobs, type SensitiveFileLevels } from './sensitiveFiles';
import type { CommandPolicy } from './types';

/** The raw settings values, each level apart (undefined where unset; workspace values only when trusted). */
export interface TrustRuleValues {
  sensitiveFiles: SensitiveFileLevels;
  allowedCommands: { user: unknown; workspace: unknown };
  deniedCommands: { user: unknown; workspace: unknown };
}

export interface TrustRules {
  sensitiveGlobs: readonly string[];
  /** Undefined when no rule is set at all: run_bash asks as it always did. */
  commandPolicy: CommandPolicy | undefined;
  /** The workspace's allow-list while the person has not accepted it (it does not apply meanwhile). */
  pendingWorkspaceCommands?: { entries: string[]; hash: string };
  /** What was wrong with the settings, for the log. */
  problems: string[];
}

/**
 * The rules tools follow, from the settings: sensitive files add up over the built-in list and
 * both levels (layeredSensitiveGlobs); the person's own allowed and denied commands apply at once; a workspace may add denied commands, but its allowed commands apply only once the
 * person accepted that exact list (`acceptedHash`). Denied entries of both levels add up, so a
 * workspace cannot lift the person's own.
 */
export function buildTrustRules(values: TrustRuleValues, acceptedHash: string | undefined): TrustRules {
  const sensitive = layeredSensitiveGlobs(values.sensitiveFiles);
  const user = checkPolicyEntries({ allowed: values.allowedCommands.user, denied: values.deniedCommands.user });
  const workspace = checkPolicyEntries({ allowed: values.allowedCommands.workspace, denied: values.deniedCommands.workspace });
  const problems = [...sensitive.problems, ...user.problems.map((p) => `User settings: ${p}`), ...workspace.problems.map((p) => `Workspace settings: ${p}`)];
  const hash = workspace.allowed.length > 0 ? hashEntries(workspace.allowed) : undefined;
  const accepted = hash !== undefined && hash === acceptedHash;
  const allowed = unique([...user.allowed, ...(accepted ? workspace.allowed : [])]);
  const denied = unique([...user.denied, ...workspace.denied]);
  const commandPolicy = allowed.length + denied.length > 0 ? Object.freeze({ allowed: Object.freeze(allowed), denied: Object.freeze(denied) }) : undefined;
  return {
    sensitiveGlobs: Object.freeze(sensitive.globs),
    commandPolicy,
    ...(hash !== undefined && !accepted ? { pendingWorkspaceCommands: { entries: workspace.allowed, hash } } : {}),
    problems,
  };
}

/** Identifies one exact allow-list, so accepting it does not accept a later, longer one. */
export function hashEntries(entries: readonly string[]): string {
  return createHash('sha256').update(JSON.stringify(entries)).digest('hex');
}

function unique(entries: string[]): string[] {
  return [...new Set(entries)];
}
