import { promises as fs, readFileSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { applyEdits, modify } from 'jsonc-parser';
import { AGENT_LABELS, AGENT_PRESENCE, agentFileSpecs, isOwnedText, prefixWords, type AgentId, type AgentPolicy } from './agentHookFiles';
import { installJson, uninstallJson } from './agentJsonEdits';
import { inspectAgent, lossReport, type AgentFileState, type LossEntry } from './agentLossReport';
import { editableJsonTree, UneditableJsonError } from '../editableJson';
import { AGENT_CONFIG_PATHS } from '../protectedPaths';
import { readFolderFile, resolveFolderFile, writeFolderFile } from '../folderFiles';
import { PathRefusedError, type ResolvedPath } from '../workspacePaths';
import { findOnPath } from '../programPath';

/*
 * Installing, checking and taking out the agents' own hook and sandbox files for one workspace,
 * for both callers: `toolbelt agents …` (src/cli/agentsCommand.ts) and the extension's "Protect
 * Other Agents on This Workspace…" and Agents rows (src/vscode). Every file is resolved inside the
 * workspace (a link out of it is refused) and checked before anything is written, so a refusal
 * leaves every file as it was. No printing here: each caller says it in its own way.
 */

/** The backup of a file, written once before Toolbelt's first change to it. */
export const BACKUP_SUFFIX = '.toolbelt-backup';

/** The workspace's settings file, relative to its root. */
export const WORKSPACE_SETTINGS_FILE = '.vscode/settings.json';

/** A file refused before anything was written: a link out of the workspace, text that is not JSON, a key named twice. */
export class RefusedFile extends Error {
  override name = 'RefusedFile';
}

export const CODEX_TRUST_NOTE = 'Codex runs project hooks (and reads .codex/config.toml and .codex/rules) only once you trust the project and the hook: start codex in the workspace and trust it (/hooks lists the hook).';

export const VSCODE_NOTE = "VS Code's own agent reads .github/hooks/toolbelt.json (Copilot CLI's preToolUse and bash, mapped to its PreToolUse on Linux and macOS; there is no powershell line for Windows) and also runs the Claude Code entry of .claude/settings.json when there is one.";

export const GEMINI_TRUST_NOTE = 'Gemini CLI fingerprints project hooks: it warns before a new or changed hook first runs, and with folder trust on it reads .gemini/settings.json only in a trusted folder.';

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

/** What install or uninstall did to one file. */
export interface FileChange {
  agent: AgentId;
  file: string;
  action: 'written' | 'removed' | 'unchanged' | 'left';
  /** The backup written now (the file as it was), relative to the workspace. */
  backup?: string;
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

/**
 * Installs (or takes out) the agents' files in `root` from `policy`. Every file is read and checked
 * first: a RefusedFile is thrown before anything is written.
 */
export async function changeAgents(sub: 'install' | 'uninstall', root: string, agents: readonly AgentId[], policy: AgentPolicy): Promise<FileChange[]> {
  const planned = await plan(sub, root, agents, policy);
  const done: FileChange[] = [];
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
  return done;
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

export interface AgentStatus {
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

/** Each agent's state in `root`: found, protected, drifted, its notes and its loss report. Throws RefusedFile for a file that cannot be read. */
export async function agentStatuses(root: string, agents: readonly AgentId[], policy: AgentPolicy, env: NodeJS.ProcessEnv): Promise<AgentStatus[]> {
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
    const foundBy = agentFoundBy(root, agent, env);
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
  return statuses;
}

/** How the agent shows it is used here: its folder in the workspace, its program on PATH. */
export function agentFoundBy(root: string, agent: AgentId, env: NodeJS.ProcessEnv): string[] {
  const presence = AGENT_PRESENCE[agent];
  return [
    ...(isFolder(path.join(root, presence.folder)) ? [`${presence.folder}/`] : []),
    ...presence.binaries.filter((binary) => onPath(binary, env)).map((binary) => `${binary} on PATH`),
  ];
}

function isFolder(dir: string): boolean {
  try {
    return statSync(dir).isDirectory();
  } catch {
    return false;
  }
}

/** Whether an executable file `binary` is in one of PATH's folders. */
export function onPath(binary: string, env: NodeJS.ProcessEnv): boolean {
  return findOnPath(binary, env) !== undefined;
}

/**
 * Whether Codex will run the workspace's hook: the person's ~/.codex/config.toml (or
 * $CODEX_HOME/config.toml) records a trusted hash under `[hooks.state."<workspace>/.codex/hooks.json:pre_tool_use:…"]`.
 * Read as text, best effort: Codex itself is the judge.
 */
export function codexTrust(root: string, env: NodeJS.ProcessEnv): string {
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

/** protected / not protected / drifted. */
export function protectionState(s: Pick<AgentStatus, 'protected' | 'drift'>): 'protected' | 'not protected' | 'drifted' {
  return s.drift.length > 0 ? 'drifted' : s.protected ? 'protected' : 'not protected';
}

/** A rule of the loss report in a few words: `sensitive files`, `toolbelt.runBash.deniedCommands "rm"`. */
export function lossRuleName(entry: Pick<LossEntry, 'rule'>): string {
  return entry.rule.split(': ')[0].replace(/\s*\(.*$/, '').trim();
}

// ---------------------------------------------------------------------------------------------
// VS Code's own agent: its approval settings from the policy

/** VS Code's setting: command prefixes or /regex/ → true (runs without asking) / false (always asks). Restricted: VS Code reads it only in a trusted workspace. */
export const VSCODE_TERMINAL_AUTO_APPROVE = 'chat.tools.terminal.autoApprove';
/** VS Code's setting: globs → true / false (an edit of a matching file always asks). */
export const VSCODE_EDITS_AUTO_APPROVE = 'chat.tools.edits.autoApprove';

/**
 * The entries VS Code's own agent gets from the policy: every denied command (a plain prefix or a
 * /regex/) and every sensitive and protected path set to `false`, so VS Code asks before them even
 * where its auto-approval would not. VS Code can only ask, not refuse: the deny is the hook's.
 */
export function vscodeChatEntries(policy: AgentPolicy): { terminal: string[]; edits: string[] } {
  const terminal = policy.deniedCommands.flatMap((entry) => {
    if (entry.startsWith('/') && entry.length > 2 && entry.endsWith('/')) return [entry];
    const words = prefixWords(entry);
    return words ? [words.join(' ')] : [];
  });
  const anywhere = (glob: string) => (glob.startsWith('**/') || glob.startsWith('/') ? glob : `**/${glob}`);
  const folders = ['.vscode/', '.git/', ...AGENT_CONFIG_PATHS];
  const edits = [
    ...policy.sensitiveGlobs.map(anywhere),
    ...folders.map((entry) => (entry.endsWith('/') ? `**/${entry}**` : `**/${entry}`)),
    '**/*.code-workspace',
  ];
  return { terminal: [...new Set(terminal)], edits: [...new Set(edits)] };
}

/**
 * The settings text with VS Code's approval entries from the policy merged in (comments and the
 * person's other entries kept; an entry of theirs under the same key is set to false). Throws
 * UneditableJsonError for text that is not one JSON object or names a key twice.
 */
export function mergeVscodeChatSettings(text: string, policy: AgentPolicy, label = WORKSPACE_SETTINGS_FILE): string {
  let next = text.trim() === '' ? '{}\n' : text;
  editableJsonTree(next, label);
  const { terminal, edits } = vscodeChatEntries(policy);
  const format = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };
  for (const [setting, keys] of [[VSCODE_TERMINAL_AUTO_APPROVE, terminal], [VSCODE_EDITS_AUTO_APPROVE, edits]] as const) {
    for (const key of keys) next = applyEdits(next, modify(next, [setting, key], false, format));
  }
  return next;
}
