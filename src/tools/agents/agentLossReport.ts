import { agentFileSpecs, isOwnedText, prefixWords, type AgentFileSpec, type AgentId, type AgentPolicy } from './agentHookFiles';
import { hookInstalled, installJson } from './agentJsonEdits';

/*
 * What each agent does with the workspace's policy once `toolbelt agents install` ran: per rule,
 * whether the agent's own sandbox or permissions carry it, whether the hook judges it, and what
 * neither can enforce there. And whether the agent's files still say what install would write
 * from the policy as it is now (drift). Pure, for `toolbelt agents status` and the extension.
 */

/** Who enforces a rule for an agent: its own sandbox, its own permission rules (or Codex's rules file), Toolbelt's hook. */
export type Enforcer = 'sandbox' | 'permissions' | 'hook';

export interface LossEntry {
  /** The rule in words, with its setting: `toolbelt.runBash.deniedCommands "rm"`. */
  rule: string;
  setting: string;
  enforcedBy: Enforcer[];
  /** What of the agent's own files carries it, when one does. */
  agentSetting?: string;
  /** What neither the agent nor the hook can enforce there. */
  notEnforceable?: string;
}

const SHELL_SIDE_WAYS = 'the hook sees a shell command, not what it does inside (a script, an interpreter, a program it starts)';

/** The loss report of `agent` for `policy`: one entry per rule. */
export function lossReport(agent: AgentId, policy: AgentPolicy): LossEntry[] {
  const entries: LossEntry[] = [];
  for (const entry of policy.deniedCommands) {
    const words = prefixWords(entry);
    const rule = `toolbelt.runBash.deniedCommands ${JSON.stringify(entry)}: never runs`;
    const setting = 'toolbelt.runBash.deniedCommands';
    if (agent === 'claude-code' && words) entries.push({ rule, setting, enforcedBy: ['permissions', 'hook'], agentSetting: `.claude/settings.json permissions.deny "Bash(${words.join(' ')}:*)"` });
    else if (agent === 'codex' && words) entries.push({ rule, setting, enforcedBy: ['permissions', 'hook'], agentSetting: `.codex/rules/toolbelt.rules prefix_rule(${JSON.stringify(words)}, "forbidden") (the same program by another path, e.g. /bin/${words[0]}, only the hook catches)` });
    else entries.push({ rule, setting, enforcedBy: ['hook'], ...(words ? {} : { agentSetting: 'a /regex/ rule has no counterpart in the agent\'s own rules: the hook alone judges it' }) });
  }
  const sensitive = { rule: `sensitive files (${policy.sensitiveGlobs.length} globs, built-in and toolbelt.tools.sensitiveFiles): a read asks`, setting: 'toolbelt.tools.sensitiveFiles' };
  if (agent === 'claude-code') entries.push({ ...sensitive, enforcedBy: ['sandbox', 'hook'], agentSetting: '.claude/settings.json sandbox.filesystem.denyRead (shell commands cannot read them at all; the Read tool asks through the hook)', notEnforceable: 'on Linux Claude Code\'s sandbox expands a glob to the files there when it starts: a file made later is left to the hook' });
  else entries.push({ ...sensitive, enforcedBy: ['hook'], notEnforceable: `${SHELL_SIDE_WAYS}; the agent's own sandbox cannot hide files` });
  const home = { rule: 'home credentials (~/.ssh, ~/.aws and others): never read', setting: 'built in' };
  if (agent === 'claude-code') entries.push({ ...home, enforcedBy: ['sandbox', 'hook'], agentSetting: '.claude/settings.json sandbox.filesystem.denyRead "~/…"' });
  else entries.push({ ...home, enforcedBy: ['hook'], notEnforceable: SHELL_SIDE_WAYS });
  const protectedPaths = { rule: 'protected paths (.vscode/, .git/, every agent\'s configuration): a write asks', setting: 'built in' };
  if (agent === 'claude-code') entries.push({ ...protectedPaths, enforcedBy: ['sandbox', 'hook'], agentSetting: '.claude/settings.json sandbox.filesystem.denyWrite (shell commands cannot write them; Edit/Write ask through the hook, answered deny where nobody can be asked)' });
  else entries.push({ ...protectedPaths, enforcedBy: ['hook'], notEnforceable: SHELL_SIDE_WAYS });
  const outside = { rule: 'reads and writes outside the workspace: denied', setting: 'built in' };
  if (agent === 'claude-code') {
    entries.push({
      ...outside,
      enforcedBy: ['sandbox', 'hook'],
      agentSetting: 'Claude Code\'s sandbox (enabled, allowUnsandboxedCommands false) lets shell commands write only in the project; reads outside stay possible except denyRead',
      ...(policy.sandboxMode === 'required'
        ? {}
        : { notEnforceable: 'where Claude Code\'s sandbox cannot start (no bubblewrap), its commands run outside it with a warning and only the hook stands (toolbelt.sandbox.mode "required" writes failIfUnavailable)' }),
    });
  }
  else if (agent === 'codex') entries.push({ ...outside, enforcedBy: ['sandbox', 'hook'], agentSetting: '.codex/config.toml sandbox_mode "workspace-write" (writes only in the workspace; reads outside stay possible)' });
  else entries.push({ ...outside, enforcedBy: ['hook'], notEnforceable: SHELL_SIDE_WAYS });
  const network = { rule: `network: toolbelt.sandbox.network "${policy.network}"${policy.network === 'allowlist' ? ` (${policy.allowedDomains.join(', ') || 'no domains'})` : ''}`, setting: 'toolbelt.sandbox.network' };
  if (agent === 'claude-code' && policy.network !== 'on') {
    entries.push({ ...network, enforcedBy: ['sandbox', 'hook'], agentSetting: '.claude/settings.json sandbox.network.allowedDomains', notEnforceable: 'a domain outside the list makes Claude Code ask the person (only managed settings refuse it outright)' });
  } else if (agent === 'codex' && policy.network !== 'on') {
    entries.push({ ...network, enforcedBy: ['sandbox', 'hook'], agentSetting: '.codex/config.toml [sandbox_workspace_write] network_access = false', ...(policy.network === 'allowlist' ? { notEnforceable: 'Codex has no per-domain list: its shell commands get no network at all (stricter than the policy)' } : {}) });
  } else if (policy.network === 'on') {
    entries.push({ ...network, enforcedBy: ['hook'] });
  } else {
    entries.push({ ...network, enforcedBy: ['hook'], notEnforceable: `the hook judges the agent's fetch tools; ${SHELL_SIDE_WAYS}` });
  }
  entries.push({ rule: 'the agent\'s MCP tools: the external-tool rules', setting: 'toolbelt.tools.registry', enforcedBy: ['hook'] });
  return entries;
}

/** One of the agent's files as it is on disk. */
export interface AgentFileState {
  file: string;
  /** Its text; undefined when there is none. */
  text: string | undefined;
  /** Its text before the first install (`<file>.toolbelt-backup`), when there is one. */
  backup?: string;
}

export interface AgentInspection {
  /** Every hook entry install writes is there, as it writes it. */
  protected: boolean;
  /** Files that no longer say what install would write from the policy now (only once something was installed). */
  drift: string[];
}

/** Whether the agent is protected, and where its files drifted from `policy`. */
export function inspectAgent(agent: AgentId, policy: AgentPolicy, files: readonly AgentFileState[]): AgentInspection {
  const specs = agentFileSpecs(agent, policy);
  const state = (spec: AgentFileSpec) => files.find((f) => f.file === spec.file) ?? { file: spec.file, text: undefined };
  const jsonSpecs = specs.filter((s) => s.kind === 'json');
  const isProtected = jsonSpecs.every((spec) => hookInstalled(spec, state(spec).text));
  const installed = jsonSpecs.some((spec) => state(spec).text?.includes(`toolbelt hook ${agent}`)) || specs.some((spec) => spec.kind === 'whole' && isOwnedText(state(spec).text ?? ''));
  const drift: string[] = [];
  if (!installed) return { protected: isProtected, drift };
  for (const spec of specs) {
    const { text, backup } = state(spec);
    if (spec.kind === 'whole') {
      if (text !== undefined && !isOwnedText(text)) continue;
      if ((text ?? undefined) !== spec.text) drift.push(`${spec.file}: ${text === undefined ? 'missing' : spec.text === undefined ? 'the policy no longer gives anything to write here' : 'differs from what the policy gives now'}`);
      continue;
    }
    try {
      if (installJson(agent, spec, text, backup) !== text) drift.push(`${spec.file}: ${text === undefined ? 'missing' : 'differs from what the policy gives now'}`);
    } catch (error) {
      drift.push(`${spec.file}: ${(error as Error).message}`);
    }
  }
  return { protected: isProtected, drift };
}
