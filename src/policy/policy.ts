import { buildSandboxRules } from '../tools/sandbox';
import { buildTrustRules } from '../tools/trustRules';
import type { CommandPolicy, SandboxSetting } from '../tools/types';
import { strictestWriteApprovals, type WriteApprovals } from '../tools/writeApprovals';
import { readPolicyValues, type PolicySource, type PolicyValues } from './policySettings';

/**
 * The person's choices about what the workspace would loosen: the hash of the exact allow-list
 * and sandbox loosening they accepted (undefined: not accepted).
 */
export interface PolicyChoices {
  acceptedCommands?: string;
  acceptedSandbox?: string;
}

/**
 * The policy as it applies now: one reading of the layers (built-in defaults, the person's
 * settings, the workspace's, the person's choices), frozen. Lists that protect add up over the
 * layers; what the workspace would loosen waits in `pending` until the person accepts it.
 */
export interface Policy {
  /** Grows by one each time the settings or choices change what the policy says. */
  readonly version: number;
  readonly sensitiveGlobs: readonly string[];
  /** Undefined when no command rule is set at all: run_bash asks as it always did. */
  readonly commandPolicy: CommandPolicy | undefined;
  readonly sandbox: SandboxSetting;
  readonly writeApprovals: WriteApprovals;
  /** What the workspace would loosen and does not, until the person accepts that exact change. */
  readonly pending: {
    readonly commands?: { readonly entries: readonly string[]; readonly hash: string };
    readonly sandbox?: { readonly changes: readonly string[]; readonly hash: string };
  };
  /** What could not be used in the settings, each prefixed with its level. */
  readonly problems: readonly string[];
}

/** The policy from the values as read: the one place the layering rules apply. */
export function buildPolicy(values: PolicyValues, choices: PolicyChoices, version = 1): Policy {
  const trust = buildTrustRules(values.trust, choices.acceptedCommands);
  const sandbox = buildSandboxRules(values.sandbox, choices.acceptedSandbox);
  const pending = {
    ...(trust.pendingWorkspaceCommands && { commands: trust.pendingWorkspaceCommands }),
    ...(sandbox.pendingWorkspace && { sandbox: sandbox.pendingWorkspace }),
  };
  return deepFreeze({
    version,
    sensitiveGlobs: trust.sensitiveGlobs,
    commandPolicy: trust.commandPolicy,
    sandbox: sandbox.sandbox,
    writeApprovals: strictestWriteApprovals([values.writeApprovals.user, values.writeApprovals.workspace]),
    pending,
    problems: [...trust.problems, ...sandbox.problems],
  });
}

/**
 * The choices that accept what the workspace's settings loosen, exactly as they are now: for
 * `--accept-workspace-commands` / `--accept-workspace-sandbox` (taken at start, so a later, longer
 * list is not accepted), and for compiling a workspace's own policy into other agents' files.
 */
export function acceptAsTheyAre(values: PolicyValues, which: { commands: boolean; sandbox: boolean }): PolicyChoices {
  const pending = buildPolicy(values, {}).pending;
  return {
    ...(which.commands && pending.commands && { acceptedCommands: pending.commands.hash }),
    ...(which.sandbox && pending.sandbox && { acceptedSandbox: pending.sandbox.hash }),
  };
}

/**
 * The live policy of one workspace: the settings and choices are read on every `current()` (a few
 * lookups) and the policy rebuilt only when they differ, so a policy, and everything compiled from
 * it, lives as long as the settings do. `onChange` hears of each new version (its problems included).
 */
export class PolicyReader {
  private built: { key: string; policy: Policy } | undefined;
  private version = 0;

  constructor(
    private readonly source: PolicySource,
    private readonly choices: () => PolicyChoices = () => ({}),
    private readonly onChange: (policy: Policy) => void = () => undefined,
  ) {}

  current(): Policy {
    const values = readPolicyValues(this.source);
    const choices = this.choices();
    const key = JSON.stringify([values, choices.acceptedCommands ?? null, choices.acceptedSandbox ?? null]);
    if (this.built?.key !== key) {
      const policy = buildPolicy(values, choices, ++this.version);
      this.built = { key, policy };
      this.onChange(policy);
    }
    return this.built.policy;
  }

  /** The settings as the source has them now (for accepting them as they are). */
  values(): PolicyValues {
    return readPolicyValues(this.source);
  }
}

function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const member of Object.values(value)) deepFreeze(member);
  }
  return value;
}
