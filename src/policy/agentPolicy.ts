import type { AgentPolicy } from '../tools/agents';
import { WORKSPACE_SETTINGS_FILE } from '../tools/agents';
import { readPolicyExamples } from '../tools/policyTests';
import { parseSettingsText } from '../tools/settingsText';
import { acceptAsTheyAre, buildPolicy } from './policy';
import { readPolicyValues, workspaceOnly } from './policySettings';

/**
 * The policy other agents' checked-in files are compiled from: the workspace's own settings as
 * written — the same reading as every other caller's, with the workspace's values taken as the
 * person's (whoever clones the repository gets these files; their own settings stay theirs).
 * `problems` non-empty: the text cannot be used (its rules would be lost).
 */
export function agentPolicyFromSettings(text: string, label = WORKSPACE_SETTINGS_FILE): { policy: AgentPolicy; problems: string[] } {
  const parsed = parseSettingsText(text, label);
  return { policy: agentPolicyFrom(parsed.values, text), problems: parsed.problems };
}

/** The policy of a workspace's `.vscode/settings.json` (its parsed values and its text, for the examples). */
export function agentPolicyFrom(values: Readonly<Record<string, unknown>>, text: string): AgentPolicy {
  const read = readPolicyValues(workspaceOnly(values));
  const policy = buildPolicy(read, acceptAsTheyAre(read, { commands: true, sandbox: true }));
  const { sandbox } = policy;
  const commandExamples = readPolicyExamples(text).examples.flatMap((example) => {
    const command = example.args?.command;
    return example.tool === 'run_bash' && typeof command === 'string' && example.expect && !example.problem ? [{ command, expect: example.expect }] : [];
  });
  return {
    deniedCommands: [...(policy.commandPolicy?.denied ?? [])],
    sensitiveGlobs: [...policy.sensitiveGlobs],
    sandboxMode: sandbox.mode,
    network: sandbox.network,
    allowedDomains: [...(sandbox.allowedDomains ?? [])],
    commandExamples,
    problems: [...policy.problems],
  };
}
