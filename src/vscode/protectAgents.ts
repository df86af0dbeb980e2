import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { agentPolicyFromSettings } from '../policy/agentPolicy';
import { AGENT_IDS, AGENT_LABELS, type AgentId } from '../tools/agents';
import { AGENT_KINDS, TOOLBELT_COMMAND } from '../tools/agents';
import {
  agentStatuses,
  changeAgents,
  CODEX_TRUST_NOTE,
  lossRuleName,
  mergeVscodeChatSettings,
  protectionState,
  VSCODE_EDITS_AUTO_APPROVE,
  VSCODE_TERMINAL_AUTO_APPROVE, RefusedFile, WORKSPACE_SETTINGS_FILE, type AgentStatus, type FileChange } from '../tools/agents';
import type { LossEntry } from '../tools/agents';
import { UneditableJsonError } from '../tools/editableJson';
import { resolveFolderFile, writeFolderFile } from '../tools/folderFiles';
import { findOnPath } from '../tools/programPath';
import { INSTALL_CLI } from './installCli';
import { USE_IN_ANOTHER_AGENT } from './otherAgents';

export const PROTECT_OTHER_AGENTS = 'toolbelt.protectOtherAgents';

export const INSTALL_FIRST = "Install 'toolbelt' Command in PATH";
export const PROTECT_ANYWAY = 'Protect Anyway';
export const SHOW_SUMMARY = 'Show Summary';
export const ALSO_MCP = "Also give them Toolbelt's tools over MCP";

type AgentItem = vscode.QuickPickItem & { agent: AgentId };

/** What the command did: the agents it protected, each file it wrote or left, the summary it showed. */
export interface ProtectResult {
  folder: string;
  agents: AgentId[];
  files: FileChange[];
  summary: string;
}

/**
 * **Toolbelt: Protect Other Agents on This Workspace…**: the agents' own hook and sandbox files
 * written from this workspace's policy, through the same core as `toolbelt agents install`
 * (src/tools/agents/agentInstall.ts). The person picks the agents (those found here picked already),
 * each row saying whether it is protected and what its own sandbox would carry; then a summary,
 * and the offer to also give them Toolbelt's tools over MCP ("Use This Workspace's Tools in
 * Another Agent…", which is now that step). The hook lines run `toolbelt` from PATH: without it
 * there the command offers to install it first.
 *
 * Arguments (for tests and other commands): the agents to protect (skips the pick and the PATH
 * question) and the folder.
 */
export function registerProtectAgents(log: vscode.LogOutputChannel, changed: () => void = () => undefined): vscode.Disposable {
  return vscode.commands.registerCommand(PROTECT_OTHER_AGENTS, async (agentsArg?: unknown, folderArg?: unknown): Promise<ProtectResult | undefined> => {
    const chosen = typeof folderArg === 'string' ? folderArg : await pickFolder();
    // The folder as the CLI names it (its real path): files are resolved inside it.
    const folder = chosen === undefined ? undefined : await fs.realpath(chosen).catch(() => chosen);
    if (!folder) {
      void vscode.window.showErrorMessage('Toolbelt: open a folder first: the agents are protected per workspace.');
      return undefined;
    }
    const given = Array.isArray(agentsArg) ? agentsArg.filter((a): a is AgentId => AGENT_IDS.includes(a as AgentId)) : undefined;
    if (!given) {
      const go = await offerToolbeltOnPath();
      if (!go) return undefined;
    }
    const policyRead = await readPolicy(folder);
    if ('problem' in policyRead) {
      void vscode.window.showErrorMessage(`Toolbelt: ${policyRead.problem} The agents' files are written from it, so nothing was written.`);
      return undefined;
    }
    const { policy } = policyRead;
    let statuses: AgentStatus[];
    try {
      statuses = await agentStatuses(folder, AGENT_IDS, policy, process.env);
    } catch (error) {
      void vscode.window.showErrorMessage(`Toolbelt: ${(error as Error).message} Nothing was written.`);
      return undefined;
    }
    const agents = given ?? (await pickAgents(statuses));
    if (!agents || agents.length === 0) return undefined;
    let files: FileChange[];
    // VS Code's own agent also gets its approval settings from the policy (in .vscode/settings.json): checked before anything is written.
    let chatSettings: string | undefined;
    try {
      if (agents.includes('copilot')) chatSettings = mergeVscodeChatSettings(policyRead.text, policy);
      files = await changeAgents('install', folder, agents, policy);
      if (chatSettings !== undefined && chatSettings !== policyRead.text) {
        await writeFolderFile(folder, await resolveFolderFile(folder, WORKSPACE_SETTINGS_FILE), chatSettings);
        files.push({ agent: 'copilot', file: WORKSPACE_SETTINGS_FILE, action: 'written', note: `${VSCODE_TERMINAL_AUTO_APPROVE} and ${VSCODE_EDITS_AUTO_APPROVE}: VS Code's own agent asks before the denied commands and before edits of sensitive and protected files (only the hook can refuse them)` });
      }
    } catch (error) {
      if (!(error instanceof RefusedFile) && !(error instanceof UneditableJsonError)) throw error;
      void vscode.window.showErrorMessage(`Toolbelt: ${error.message} Nothing was written.`);
      return undefined;
    }
    changed();
    const after = statuses.filter((s) => agents.includes(s.agent));
    const summary = protectSummary(path.basename(folder), agents, files, after, policy.problems, !!findOnPath(process.platform === 'win32' ? `${TOOLBELT_COMMAND}.cmd` : TOOLBELT_COMMAND));
    log.info(summary);
    void showDone(agents, files, summary, folder);
    return { folder, agents, files, summary };
  });
}

/** `toolbelt` on PATH, or the person chose to go on without it (after installing it, or not): false = stop. */
async function offerToolbeltOnPath(): Promise<boolean> {
  if (findOnPath(process.platform === 'win32' ? `${TOOLBELT_COMMAND}.cmd` : TOOLBELT_COMMAND)) return true;
  const picked = await vscode.window.showWarningMessage(
    "The agents' hooks run `toolbelt`, which is not on your PATH yet.",
    { modal: true, detail: 'Until it is, the hook line blocks every one of the agent\'s own tool calls (it fails closed). Install the command first?' },
    INSTALL_FIRST,
    PROTECT_ANYWAY,
  );
  if (picked === INSTALL_FIRST) {
    await vscode.commands.executeCommand(INSTALL_CLI);
    return true;
  }
  return picked === PROTECT_ANYWAY;
}

async function readPolicy(folder: string): Promise<{ policy: ReturnType<typeof agentPolicyFromSettings>['policy']; text: string } | { problem: string }> {
  let text = '';
  try {
    text = await fs.readFile(path.join(folder, WORKSPACE_SETTINGS_FILE), 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOENT' && code !== 'ENOTDIR') return { problem: `${WORKSPACE_SETTINGS_FILE}: cannot be read (${code ?? (error as Error).message}).` };
  }
  const { policy, problems } = agentPolicyFromSettings(text);
  return problems.length > 0 ? { problem: problems[0] } : { policy, text };
}

async function pickAgents(statuses: readonly AgentStatus[]): Promise<AgentId[] | undefined> {
  const items: AgentItem[] = statuses.map((s) => ({
    agent: s.agent,
    label: AGENT_LABELS[s.agent],
    description: `${protectionState(s)} · ${s.found ? `found (${s.foundBy.join(', ')})` : 'not found here'}`,
    detail: ownShare(s.loss),
    picked: s.found,
  }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'Protect Other Agents on This Workspace',
    placeHolder: 'The agents whose own tools follow this policy (hook and sandbox files, checked in)',
    canPickMany: true,
    ignoreFocusOut: true,
  });
  return picked?.map((item) => item.agent);
}

/** What the agent's own sandbox or permissions would carry, what only the hook, what neither. */
export function ownShare(loss: readonly LossEntry[]): string {
  const own = loss.filter((l) => l.enforcedBy.includes('sandbox') || l.enforcedBy.includes('permissions')).map(lossRuleName);
  const hookOnly = loss.filter((l) => l.enforcedBy.length === 1 && l.enforcedBy[0] === 'hook').map(lossRuleName);
  const gaps = loss.filter((l) => l.notEnforceable).length;
  const parts = [
    own.length > 0 ? `its own sandbox: ${own.join(', ')}` : 'its own sandbox: nothing of the policy',
    hookOnly.length > 0 ? `the hook alone: ${hookOnly.join(', ')}` : undefined,
    gaps > 0 ? `${gaps} with a gap` : undefined,
  ];
  return parts.filter(Boolean).join(' · ');
}

/** The summary as text: per agent what was written, the backups, the loss report in short; Codex's trust step. */
export function protectSummary(folderName: string, agents: readonly AgentId[], files: readonly FileChange[], statuses: readonly AgentStatus[], problems: readonly string[], toolbeltOnPath: boolean): string {
  const lines = [`Toolbelt protected ${agents.map((a) => AGENT_LABELS[a]).join(', ')} on ${folderName}.`, ''];
  for (const agent of agents) {
    lines.push(`${AGENT_LABELS[agent]}:`);
    for (const f of files.filter((x) => x.agent === agent)) lines.push(`  ${f.action.padEnd(9)} ${f.file}${f.backup ? ` (the file as it was: ${f.backup})` : ''}${f.note ? ` — ${f.note}` : ''}`);
    const status = statuses.find((s) => s.agent === agent);
    if (status) {
      for (const l of status.loss) lines.push(`  by ${l.enforcedBy.join(' + ')}: ${lossRuleName(l)}${l.notEnforceable ? ` (not enforceable: ${l.notEnforceable})` : ''}`);
    }
    if (agent === 'codex') lines.push(`  trust: ${CODEX_TRUST_NOTE}`);
    if (agent === 'gemini-cli' && status?.trust) lines.push(`  trust: ${status.trust}`);
  }
  if (!toolbeltOnPath) lines.push('', "`toolbelt` is not on your PATH: until it is, the hook lines block the agents' own tool calls. Run \"Toolbelt: Install 'toolbelt' Command in PATH\".");
  if (problems.length > 0) lines.push('', 'The policy has problems (those entries were left out):', ...problems.map((p) => `  ${p}`));
  lines.push('', 'Check them any time in the Tools view (Agents) or with: toolbelt agents status');
  return lines.join('\n');
}

async function showDone(agents: readonly AgentId[], files: readonly FileChange[], summary: string, folder: string): Promise<void> {
  const written = files.filter((f) => f.action === 'written' || f.action === 'removed');
  const backups = files.filter((f) => f.backup).length;
  const mcpAgents = agents.filter((a) => (AGENT_KINDS as readonly string[]).includes(a));
  const text = `Toolbelt: ${agents.map((a) => AGENT_LABELS[a]).join(', ')} ${agents.length === 1 ? 'is' : 'are'} protected: ${written.length} file${written.length === 1 ? '' : 's'} written${backups > 0 ? `, ${backups} backed up` : ''}.${agents.includes('codex') ? ' Codex runs the hook only once you trust it.' : ''}`;
  const picked = await vscode.window.showInformationMessage(text, SHOW_SUMMARY, ...(mcpAgents.length > 0 ? [ALSO_MCP] : []));
  if (picked === SHOW_SUMMARY) {
    const document = await vscode.workspace.openTextDocument({ language: 'plaintext', content: summary });
    await vscode.window.showTextDocument(document, { preview: true });
  } else if (picked === ALSO_MCP) {
    for (const agent of mcpAgents) await vscode.commands.executeCommand(USE_IN_ANOTHER_AGENT, agent, folder);
  }
}

async function pickFolder(): Promise<string | undefined> {
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === 'file');
  if (folders.length <= 1) return folders[0]?.uri.fsPath;
  const picked = await vscode.window.showWorkspaceFolderPick({ placeHolder: 'The folder whose agents to protect' });
  return picked?.uri.fsPath;
}
