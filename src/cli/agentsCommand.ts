import { realpathSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { terminalJson, terminalLine } from '../common/visibleText';
import { AGENT_IDS, AGENT_LABELS, type AgentId, type AgentPolicy } from '../tools/agents';
import { agentPolicyFromSettings } from '../policy/agentPolicy';
import { agentStatuses, changeAgents, CODEX_TRUST_NOTE, RefusedFile } from '../tools/agents';
import { flagValue, hasFlag, parseArgs, type FlagSpec } from './args';
import type { CliIo } from './cliIo';
import { WORKSPACE_SETTINGS } from './liveSettings';
import { readSettingsFile } from './settingsFiles';
import { EXIT, USAGE, UsageError } from './usage';

/*
 * `toolbelt agents install | status | uninstall [--workspace DIR] [AGENT… | --all] [--json]`:
 * the arguments and the printing. The work (planning each agent's files, checking every file
 * before writing any, backups, status with the loss report and drift) is src/tools/agents/agentInstall.ts,
 * which the extension's "Protect Other Agents on This Workspace…" uses too.
 */

export { BACKUP_SUFFIX } from '../tools/agents';

const FLAGS: Readonly<Record<string, FlagSpec>> = { workspace: { value: true }, all: {}, json: {}, help: {}, verbose: {} };
const SUBCOMMANDS = ['install', 'status', 'uninstall'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** Runs `toolbelt agents …`; resolves with the exit code. */
export async function runAgents(argv: readonly string[], io: CliIo): Promise<number> {
  const [sub, ...rest] = argv;
  const parsed = parseArgs(rest, FLAGS);
  if (sub === '--help' || sub === '-h' || hasFlag(parsed, 'help') || rest.includes('-h')) return write(io.stdout, USAGE, EXIT.ok);
  try {
    if (!SUBCOMMANDS.includes(sub as Subcommand)) throw new UsageError(`agents takes "install", "status" or "uninstall"${sub ? `; got ${sub}` : ''}.`);
    if (parsed.errors.length > 0) throw new UsageError(parsed.errors.join(' '));
    const agents = chosenAgents(sub as Subcommand, parsed.positionals, hasFlag(parsed, 'all'));
    const root = workspaceRoot(path.resolve(io.cwd, flagValue(parsed, 'workspace') ?? '.'));
    const policy = readPolicy(root);
    const json = hasFlag(parsed, 'json');
    const result = sub === 'status' ? await status(root, agents, policy, io.env, parsed.positionals.length > 0) : await change(sub as 'install' | 'uninstall', root, agents, policy);
    io.stdout.write(json ? `${terminalJson(result.report)}\n` : result.text);
    return result.code;
  } catch (error) {
    if (error instanceof UsageError) return write(io.stderr, `toolbelt: ${terminalLine(error.message)}\nRun toolbelt --help for the options.\n`, EXIT.usage);
    if (error instanceof RefusedFile) return write(io.stderr, `toolbelt: ${terminalLine(error.message)}\n${sub === 'status' ? '' : 'Nothing was written.\n'}`, EXIT.failed);
    io.stderr.write(`toolbelt: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    return EXIT.failed;
  }
}

function chosenAgents(sub: Subcommand, names: readonly string[], all: boolean): AgentId[] {
  if (all && names.length > 0) throw new UsageError('Name agents or give --all, not both.');
  const unknown = names.filter((name) => !AGENT_IDS.includes(name as AgentId));
  if (unknown.length > 0) throw new UsageError(`Unknown agent ${unknown.map((n) => JSON.stringify(n)).join(', ')}: use ${AGENT_IDS.join(', ')} or --all.`);
  if (names.length > 0) return [...new Set(names as AgentId[])];
  if (all || sub === 'status') return [...AGENT_IDS];
  throw new UsageError(`agents ${sub} needs the agents to ${sub === 'install' ? 'protect' : 'take Toolbelt out of'} (${AGENT_IDS.join(', ')}) or --all.`);
}

function workspaceRoot(given: string): string {
  let real: string;
  try {
    if (!statSync(given).isDirectory()) throw new UsageError(`--workspace ${terminalJson(given)}: not a folder.`);
    real = realpathSync(given);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`--workspace ${terminalJson(given)}: there is no such folder.`);
  }
  if (path.parse(real).root === real) throw new UsageError(`--workspace ${terminalJson(given)} is the root of the file system: name a project's folder.`);
  return real;
}

/** The workspace's policy; a settings file that cannot be read is a usage error (its rules would be lost). */
function readPolicy(root: string): AgentPolicy {
  const settings = readSettingsFile(path.join(root, WORKSPACE_SETTINGS), WORKSPACE_SETTINGS);
  const { policy, problems } = agentPolicyFromSettings(settings.text, WORKSPACE_SETTINGS);
  const first = settings.problems[0] ?? problems[0];
  if (first !== undefined) throw new UsageError(`${first} The agents' files are written from it, so nothing was written.`);
  return policy;
}

// ---------------------------------------------------------------------------------------------
// install and uninstall

async function change(sub: 'install' | 'uninstall', root: string, agents: readonly AgentId[], policy: AgentPolicy): Promise<{ report: unknown; text: string; code: number }> {
  // Everything is read and checked first: one refused file leaves every file as it was.
  const done = await changeAgents(sub, root, agents, policy);
  const lines: string[] = [];
  for (const agent of agents) {
    lines.push(`${AGENT_LABELS[agent]}:`);
    for (const item of done.filter((d) => d.agent === agent)) {
      if (item.action === 'unchanged' && sub === 'uninstall') continue;
      lines.push(`  ${item.action.padEnd(9)} ${item.file}${item.backup ? ` (the file as it was: ${item.backup})` : ''}${item.note ? ` — ${item.note}` : ''}`);
    }
    if (sub === 'install' && agent === 'codex') lines.push(`  note      ${CODEX_TRUST_NOTE}`);
  }
  if (sub === 'install' && policy.problems.length > 0) lines.push('', 'The policy has problems (those entries were left out):', ...policy.problems.map((p) => `  ${p}`));
  if (sub === 'install') lines.push('', 'Check them with: toolbelt agents status');
  return { report: { command: sub, workspace: root, files: done, problems: policy.problems }, text: `${lines.map(terminalLine).join('\n')}\n`, code: EXIT.ok };
}

// ---------------------------------------------------------------------------------------------
// status

async function status(root: string, agents: readonly AgentId[], policy: AgentPolicy, env: NodeJS.ProcessEnv, named: boolean): Promise<{ report: unknown; text: string; code: number }> {
  const statuses = await agentStatuses(root, agents, policy, env);
  const failing = statuses.filter((s) => s.drift.length > 0 || (named && !s.protected));
  const lines: string[] = [];
  for (const s of statuses) {
    lines.push(`${s.label} (${s.agent}): ${s.found ? `found (${s.foundBy.join(', ')})` : 'not found'}; ${s.protected ? 'protected' : 'not protected'}${s.drift.length > 0 ? '; DRIFT' : ''}`);
    for (const d of s.drift) lines.push(`  drift: ${d} (run toolbelt agents install ${s.agent})`);
    for (const n of s.notes) lines.push(`  note: ${n}`);
    if (s.trust) lines.push(`  ${s.agent === 'copilot' ? 'note' : 'trust'}: ${s.trust}`);
    if (!s.protected) continue;
    for (const l of s.loss) {
      lines.push(`  by ${l.enforcedBy.join(' + ')}: ${l.rule}`);
      if (l.agentSetting) lines.push(`      ${l.agentSetting}`);
      if (l.notEnforceable) lines.push(`      not enforceable: ${l.notEnforceable}`);
    }
  }
  if (policy.problems.length > 0) lines.push('', 'The policy has problems:', ...policy.problems.map((p) => `  ${p}`));
  return { report: { command: 'status', workspace: root, agents: statuses, problems: policy.problems }, text: `${lines.map(terminalLine).join('\n')}\n`, code: failing.length > 0 ? EXIT.failed : EXIT.ok };
}

function write(stream: NodeJS.WritableStream, text: string, code: number): number {
  stream.write(text);
  return code;
}
