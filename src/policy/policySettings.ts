import type { SandboxSettingValues } from '../tools/sandbox';
import type { TrustRuleValues } from '../tools/trustRules';

/** A setting's value at the person's own level and at the workspace's (undefined where unset). */
export interface SettingLevels {
  user: unknown;
  workspace: unknown;
}

/**
 * Where the settings come from — the one thing VS Code and the CLI each supply. `key` is the full
 * name (`toolbelt.runBash.allowedCommands`); `workspace` is undefined where the workspace may not
 * speak (VS Code's untrusted workspace).
 */
export interface PolicySource {
  levels(key: string): SettingLevels;
}

/** Every setting the policy reads, by the name a person writes. */
export const POLICY_SETTINGS = {
  sensitiveFiles: 'toolbelt.tools.sensitiveFiles',
  allowedCommands: 'toolbelt.runBash.allowedCommands',
  deniedCommands: 'toolbelt.runBash.deniedCommands',
  writeApprovals: 'toolbelt.approvals.writes',
  sandbox: {
    mode: 'toolbelt.sandbox.mode',
    network: 'toolbelt.sandbox.network',
    allowedDomains: 'toolbelt.sandbox.allowedDomains',
    hiddenPaths: 'toolbelt.sandbox.hiddenPaths',
    env: 'toolbelt.sandbox.env',
    readablePaths: 'toolbelt.sandbox.readablePaths',
    writablePaths: 'toolbelt.sandbox.writablePaths',
    readOnlyPaths: 'toolbelt.sandbox.readOnlyPaths',
  },
} as const;

/** The policy's settings as one source has them, level by level; nothing judged yet. */
export interface PolicyValues {
  trust: TrustRuleValues;
  sandbox: SandboxSettingValues;
  writeApprovals: SettingLevels;
}

export function readPolicyValues(source: PolicySource): PolicyValues {
  const sandbox = Object.fromEntries(Object.entries(POLICY_SETTINGS.sandbox).map(([name, key]) => [name, source.levels(key)])) as unknown as SandboxSettingValues;
  return {
    trust: {
      sensitiveFiles: source.levels(POLICY_SETTINGS.sensitiveFiles),
      allowedCommands: source.levels(POLICY_SETTINGS.allowedCommands),
      deniedCommands: source.levels(POLICY_SETTINGS.deniedCommands),
    },
    sandbox,
    writeApprovals: source.levels(POLICY_SETTINGS.writeApprovals),
  };
}

/** A source of one level only: the workspace's values as written (what `agents install` compiles for everyone). */
export function workspaceOnly(values: Readonly<Record<string, unknown>>): PolicySource {
  return { levels: (key) => ({ user: undefined, workspace: Object.prototype.hasOwnProperty.call(values, key) ? values[key] : undefined }) };
}
