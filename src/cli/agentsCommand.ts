import { accessSync, constants, promises as fs, readFileSync, realpathSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { terminalJson, terminalLine } from '../common/visibleText';
import {
  AGENT_IDS,
  AGENT_LABELS,
  AGENT_PRESENCE,
  agentFileSpecs,
  agentPolicyFrom,
  installJson,
  isOwnedText,
  uninstallJson,
  type AgentId,
  type AgentPolicy,
} from '../tools/agentHookFiles';
import { inspectAgent, lossReport, type AgentFileState, type LossEntry } from '../tools/agentLossReport';
import { UneditableJsonError } from '../tools/editableJson';
import { readFolderFile, resolveFolderFile, writeFolderFile } from '../tools/folderFiles';
import { PathRefusedError, type ResolvedPath } from '../tools/workspacePaths';
import { flagValue, hasFlag, parseArgs, type FlagSpec } from './args';
import type { CliIo } from './main';
import { WORKSPACE_SETTINGS } from './liveSettings';
import { readSettingsFile } from './settingsFiles';
import { EXIT, USAGE, UsageError } from './usage';

/*
 * `toolbelt agents install | status | uninstall [--workspace DIR] [AGENT… | --all] [--json]`:
 * the agents' own hook and sandbox files written from the workspace's policy, checked, and taken
 * out again. Every file is resolved inside the workspace (a link out of it is refused) and checked
 * before anything is written, so a refusal leaves every file as it was.
 */

const FLAGS: Readonly<Record<string, FlagSpec>> = { workspace: { value: true }, all: {}, json: {}, help: {}, verbose: {} };
const SUBCOMMANDS = ['install', 'status', 'uninstall'] as const;
type Subcommand = (typeof SUBCOMMANDS)[number];

/** The backup of a file, written once before Toolbelt's first change to it. */
export const BACKUP_SUFFIX = '.toolbelt-backup';

/** A file refused before anything was written: a link out of the workspace, text that is not JSON, a key named twice. */
class RefusedFile extends Error {
  override name = 'RefusedFile';
}

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
  if (settings.problems.length > 0) throw new UsageError(`${settings.problems[0]} The agents' files are written from it, so nothing was written.`);
  return agentPolicyFrom(settings.values, settings.text);
}

// ---------------------------------------------------------------------------------------------
// install and uninstall

interface PlannedFile {
  agent: AgentId;
  file: string;
  target: ResolvedPath;
  backupTarget: ResolvedPath;
  existing: string | undefined;
  backup: string | undefined;
  /** The new text; null: remove the file; undefined: leave it as it is. */
  next: string | null | undefined;
  /** A file Toolbelt owns whole (no backup: it only ever writes its own). */
  owned: boolean;
  note?: string;
}

async function resolveInside(root: string, relative: string): Promise<ResolvedPath> {
  try {
    return await resolveFolderFile(root, relative);
  } catch (error) {
    if (error instanceof PathRefusedError) throw new RefusedFile(`${relative}: ${error.message}`);
    throw error;
  }
}

async function readInside(target: ResolvedPath, relative: string): Promise<string | undefined> {
  try {
    return await readFolderFile(target);
  } catch (error) {
    throw new RefusedFile(`${relative}: ${(error as Error).message}`);
  }
}

async function plan(sub: 'install' | 'uninstall', root: string, agents: readonly AgentId[], policy: AgentPolicy): Promise<PlannedFile[]> {
  const planned: PlannedFile[] = [];
  for (const agent of agents) {
    for (const spec of agentFileSpecs(agent, policy)) {
      const target = await resolveInside(root, spec.file);
      const backupTarget = await resolveInside(root, `${spec.file}${BACKUP_SUFFIX}`);
      const existing = await readInside(target, spec.file);
      const backup = await readInside(backupTarget, `${spec.file}${BACKUP_SUFFIX}`);
      const entry: PlannedFile = { agent, file: spec.file, target, backupTarget, existing, backup, next: undefined, owned: spec.kind === 'whole' };
      if (spec.kind === 'whole') {
        if (existing !== undefined && !isOwnedText(existing)) entry.note = `${spec.file} is not Toolbelt's (no "# Written by \`toolbelt agents install\`" line), so it was left as it is`;
        else if (sub === 'uninstall') entry.next = existing === undefined ? undefined : null;
        else entry.next = spec.text ?? (existing === undefined ? undefined : null);
      } else {
        try {
          if (sub === 'install') entry.next = installJson(agent, spec, existing, backup);
          else if (existing !== undefined) entry.next = uninstallJson(agent, spec, existing, backup) ?? null;
        } catch (error) {
          if (error instanceof UneditableJsonError) throw new RefusedFile(error.message);
          throw error;
        }
      }
      if (entry.next === existing) entry.next = undefined;
      planned.push(entry);
    }
  }
  return planned;
}

async function change(sub: 'install' | 'uninstall', root: string, agents: readonly AgentId[], policy: AgentPolicy): Promise<{ report: unknown; text: string; code: number }> {
  // Everything is read and checked first: one refused file leaves every file as it was.
  const planned = await plan(sub, root, agents, policy);
  const done: { agent: AgentId; file: string; action: 'written' | 'removed' | 'unchanged' | 'left'; backup?: string; note?: string }[] = [];
  for (const entry of planned) {
    let backup: string | undefined;
    // The backup is the file before Toolbelt's first change: a file that already holds Toolbelt's entries, or one it owns whole, has none.
    if (sub === 'install' && entry.next !== undefined && entry.existing !== undefined && entry.backup === undefined && !entry.owned && !entry.existing.includes(`toolbelt hook ${entry.agent}`)) {
      await writeFolderFile(root, entry.backupTarget, entry.existing);
      backup = `${entry.file}${BACKUP_SUFFIX}`;
    }
    if (entry.next === null) await removeInside(root, entry.target);
    else if (entry.next !== undefined) await writeFolderFile(root, entry.target, entry.next);
    if (sub === 'uninstall' && entry.backup !== undefined) await removeInside(root, entry.backupTarget);
    const action = entry.note ? 'left' : entry.next === null ? 'removed' : entry.next === undefined ? 'unchanged' : 'written';
    done.push({ agent: entry.agent, file: entry.file, action, ...(backup ? { backup } : {}), ...(entry.note ? { note: entry.note } : {}) });
  }
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

async function removeInside(root: string, target: ResolvedPath): Promise<void> {
  const again = await resolveFolderFile(root, target.input);
  if (again.absolute !== target.absolute) throw new PathRefusedError(`"${target.display}" changed on disk since it was read; it was not removed.`);
  await fs.rm(again.absolute, { force: true });
  // The folders left empty go too (.codex/rules, .codex), never the workspace itself.
  for (let dir = path.dirname(again.absolute); dir !== root && dir.startsWith(`${root}${path.sep}`); dir = path.dirname(dir)) {
    if (!(await fs.rmdir(dir).then(() => true, () => false))) break;
  }
}

// ---------------------------------------------------------------------------------------------
// status

const CODEX_TRUST_NOTE = 'Codex runs project hooks (and reads .codex/config.toml and .codex/rules) only once you trust the project and the hook: start codex in the workspace and trust it (/hooks lists the hook).';

const VSCODE_NOTE = "VS Code's own agent reads .github/hooks/toolbelt.json (Copilot CLI's preToolUse and bash, mapped to its PreToolUse on Linux and macOS; there is no powershell line for Windows) and also runs the Claude Code entry of .claude/settings.json when there is one.";

const GEMINI_TRUST_NOTE = 'Gemini CLI fingerprints project hooks: it warns before a new or changed hook first runs, and with folder trust on it reads .gemini/settings.json only in a trusted folder.';

interface AgentStatus {
  agent: AgentId;
  label: string;
  found: boolean;
  foundBy: string[];
  protected: boolean;
  drift: string[];
  notes: string[];
  files: { file: string; exists: boolean }[];
  trust?: string;
  loss: LossEntry[];
}

async function status(root: string, agents: readonly AgentId[], policy: AgentPolicy, env: NodeJS.ProcessEnv, named: boolean): Promise<{ report: unknown; text: string; code: number }> {
  const statuses: AgentStatus[] = [];
  for (const agent of agents) {
    const files: AgentFileState[] = [];
    for (const spec of agentFileSpecs(agent, policy)) {
      const target = await resolveInside(root, spec.file);
      const backupTarget = await resolveInside(root, `${spec.file}${BACKUP_SUFFIX}`);
      files.push({ file: spec.file, text: await readInside(target, spec.file), backup: await readInside(backupTarget, `${spec.file}${BACKUP_SUFFIX}`) });
    }
    const inspection = inspectAgent(agent, policy, files);
    // A whole file of that name that is the person's was left alone: what it would carry is not there.
    const notes = agentFileSpecs(agent, policy).flatMap((spec) => {
      const text = files.find((f) => f.file === spec.file)?.text;
      return spec.kind === 'whole' && text !== undefined && !isOwnedText(text) ? [`${spec.file} is yours, so Toolbelt did not write it: the loss report's entries that name it do not hold until you set them there yourself`] : [];
    });
    const presence = AGENT_PRESENCE[agent];
    const foundBy = [
      ...(isFolder(path.join(root, presence.folder)) ? [`${presence.folder}/`] : []),
      ...presence.binaries.filter((binary) => onPath(binary, env)).map((binary) => `${binary} on PATH`),
    ];
    statuses.push({
      agent,
      label: AGENT_LABELS[agent],
      found: foundBy.length > 0,
      foundBy,
      protected: inspection.protected,
      drift: inspection.drift,
      notes,
      files: files.map((f) => ({ file: f.file, exists: f.text !== undefined })),
      ...(agent === 'codex' ? { trust: codexTrust(root, env) } : agent === 'gemini-cli' ? { trust: GEMINI_TRUST_NOTE } : agent === 'copilot' ? { trust: VSCODE_NOTE } : {}),
      loss: lossReport(agent, policy),
    });
  }
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

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

function onPath(binary: string, env: NodeJS.ProcessEnv): boolean {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    try {
      accessSync(path.join(dir, binary), constants.X_OK);
      if (statSync(path.join(dir, binary)).isFile()) return true;
    } catch {
      // not here
    }
  }
  return false;
}

/**
 * Whether Codex will run the workspace's hook: the person's ~/.codex/config.toml (or
 * $CODEX_HOME/config.toml) records a trusted hash under `[hooks.state."<workspace>/.codex/hooks.json:pre_tool_use:…"]`.
 * Read as text, best effort: Codex itself is the judge.
 */
function codexTrust(root: string, env: NodeJS.ProcessEnv): string {
  const home = env.CODEX_HOME || path.join(env.HOME || os.homedir(), '.codex');
  let text: string;
  try {
    text = readFileSync(path.join(home, 'config.toml'), 'utf8');
  } catch {
    return `not trusted: ${path.join(home, 'config.toml')} does not exist yet. ${CODEX_TRUST_NOTE}`;
  }
  const hookFile = path.join(root, '.codex', 'hooks.json');
  const lines = text.split('\n');
  const start = lines.findIndex((line) => /^\s*\[hooks\.state\./.test(line) && line.includes(`${hookFile}:pre_tool_use`));
  if (start !== -1) {
    for (let i = start + 1; i < lines.length && !/^\s*\[/.test(lines[i]); i++) if (/^\s*trusted_hash\s*=/.test(lines[i])) return 'the hook is trusted in your Codex configuration (Codex asks again if the hook changes)';
  }
  return `not trusted yet. ${CODEX_TRUST_NOTE}`;
}

function write(stream: NodeJS.WritableStream, text: string, code: number): number {
  stream.write(text);
  return code;
}
