import { mkdirSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { AGENT_IDS, AGENT_LABELS, type AgentId } from '../tools/agents';
import { agentPolicyFromSettings } from '../policy/agentPolicy';
import { agentStatuses, lossRuleName, protectionState, WORKSPACE_SETTINGS_FILE, type AgentStatus } from '../tools/agents';
import type { LossEntry } from '../tools/agents';
import { isInside } from '../tools/pathChecks';
import { stateFolderPath } from '../tools/stateFolder';
import { parseLines, TOOL_LOG_FILE, type ToolCallRecord } from '../tools/toolCallLog';
import { Disposables } from './dispose';
import type { AgentsNode } from './toolsTreeNodes';

/** How many of an agent's latest decisions its row lists. */
export const RECENT_DECISIONS = 10;

/** A decision `toolbelt hook` logged: the call record with the hook's own fields. */
export type HookRecord = ToolCallRecord & { hook?: string; decision?: string; reason?: string; rule?: string; policyVerdict?: string };

/** The files whose change changes what the Agents rows say (the policy and each agent's own files), relative to the workspace. */
export const AGENT_FILES_GLOB = '{.vscode/settings.json,.claude/settings.json,.codex/**,.gemini/settings.json,.github/hooks/*.json,.cursor/**}';

/**
 * The Tools view's **Agents** section: one row per agent (protected / not protected / drifted),
 * under it the loss report (per rule: by the agent's own sandbox or permissions, by the hook, what
 * neither enforces) and the agent's recent decisions from the call log `toolbelt hook` writes in
 * the CLI's state folder for this workspace. Read with the same core as `toolbelt agents status`
 * (src/tools/agents/agentInstall.ts), again when the policy, an agent's files or the log change.
 */
export class AgentsSection extends Disposables {
  private readonly emitter = this.register(new vscode.EventEmitter<void>());
  readonly onDidChange = this.emitter.event;
  private root: string | undefined;
  private statuses: AgentStatus[] = [];
  private decisions = new Map<AgentId, HookRecord[]>();
  private problem: string | undefined;
  private loading: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly folder: () => string | undefined = firstFolder,
    private readonly env: NodeJS.ProcessEnv = process.env,
  ) {
    super();
  }

  /** Starts watching the folder's agent files and the log, and reads them. */
  watch(): this {
    const folder = this.folder();
    if (!folder) return this;
    const onChange = () => void this.reload();
    const watchers = [this.register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(folder), AGENT_FILES_GLOB)))];
    // A folder that does not exist yet cannot be watched: the state folder is made as the CLI makes it (only the person's), never inside the workspace.
    const logFolder = this.logFolder(folder);
    if (!isInside(folder, logFolder)) {
      try {
        mkdirSync(logFolder, { recursive: true, mode: 0o700 });
        watchers.push(this.register(vscode.workspace.createFileSystemWatcher(new vscode.RelativePattern(vscode.Uri.file(logFolder), TOOL_LOG_FILE))));
      } catch {
        // no log to watch: the rows are read again when the view asks (expanding a row)
      }
    }
    for (const watcher of watchers) {
      this.register(watcher.onDidChange(onChange));
      this.register(watcher.onDidCreate(onChange));
      this.register(watcher.onDidDelete(onChange));
    }
    void this.reload();
    return this;
  }

  /** Reads the policy, the agents' files and the call log again; resolves when the rows say what is on disk now. */
  reload(): Promise<void> {
    if (this.loading) {
      this.again = true;
      return this.loading;
    }
    this.loading = (async () => {
      do {
        this.again = false;
        await this.read();
      } while (this.again && !this.isDisposed);
      this.loading = undefined;
      if (!this.isDisposed) this.emitter.fire();
    })();
    return this.loading;
  }

  private logFolder(folder: string): string {
    return stateFolderPath(folder, this.env.TOOLBELT_STATE_DIR || undefined, this.env);
  }

  private async read(): Promise<void> {
    const given = this.folder();
    if (!given) {
      this.root = undefined;
      return;
    }
    // The folder as `toolbelt hook` names it (its real path): the state folder is named from it.
    const root = await fs.realpath(given).catch(() => given);
    this.root = root;
    this.problem = undefined;
    try {
      const text = await fs.readFile(path.join(root, WORKSPACE_SETTINGS_FILE), 'utf8').catch((error: NodeJS.ErrnoException) => {
        if (error.code === 'ENOENT' || error.code === 'ENOTDIR') return '';
        throw error;
      });
      const { policy, problems } = agentPolicyFromSettings(text);
      if (problems.length > 0) throw new Error(`${problems[0]} The agents' hooks deny every call while it is so.`);
      this.statuses = await agentStatuses(root, AGENT_IDS, policy, this.env);
    } catch (error) {
      this.problem = error instanceof Error ? error.message : String(error);
      this.statuses = [];
    }
    this.decisions = new Map();
    // A state folder inside the workspace is not the CLI's (it refuses one there): anything in the workspace could have written it.
    const logFolder = this.logFolder(root);
    const text = isInside(root, logFolder) ? '' : await fs.readFile(path.join(logFolder, TOOL_LOG_FILE), 'utf8').catch(() => '');
    for (const record of parseLines(text) as HookRecord[]) {
      const agent = AGENT_IDS.find((id) => id === record.hook);
      if (!agent) continue;
      const list = this.decisions.get(agent) ?? [];
      list.push(record);
      this.decisions.set(agent, list);
    }
  }

  /** The section's top row, when there is a folder. */
  roots(): AgentsNode[] {
    return this.root || this.folder() ? [{ kind: 'agents' }] : [];
  }

  children(node: AgentsNode): AgentsNode[] {
    switch (node.kind) {
      case 'agents':
        if (this.problem) return [{ kind: 'agentNote', agent: undefined, text: this.problem, icon: 'error' }];
        return this.statuses.map((s) => ({ kind: 'agent', agent: s.agent }));
      case 'agent': {
        const status = this.statuses.find((s) => s.agent === node.agent);
        if (!status) return [];
        const rows: AgentsNode[] = [];
        if (!status.protected) rows.push({ kind: 'agentNote', agent: node.agent, text: 'Not protected: its own tools run outside the policy. Protect Other Agents on This Workspace… installs the hook.', icon: 'warning', command: 'toolbelt.protectOtherAgents' });
        for (const d of status.drift) rows.push({ kind: 'agentNote', agent: node.agent, text: `Drifted: ${d}`, icon: 'warning', command: 'toolbelt.protectOtherAgents' });
        if (node.agent === 'copilot') rows.push(vscodeAgentRow(status.protected));
        if (status.protected) status.loss.forEach((_entry, index) => rows.push({ kind: 'agentRule', agent: node.agent, index }));
        rows.push({ kind: 'agentDecisions', agent: node.agent });
        return rows;
      }
      case 'agentDecisions': {
        const recent = this.recent(node.agent);
        if (recent.length === 0) return [{ kind: 'agentNote', agent: node.agent, text: 'No calls judged yet', icon: 'info' }];
        return recent.map((_record, index) => ({ kind: 'agentDecision', agent: node.agent, index }));
      }
      default:
        return [];
    }
  }

  /** The agent's latest decisions, newest first. */
  recent(agent: AgentId): HookRecord[] {
    return (this.decisions.get(agent) ?? []).slice(-RECENT_DECISIONS).reverse();
  }

  item(node: AgentsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'agents': {
        const item = new vscode.TreeItem('Agents', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = 'agents';
        const count = this.statuses.filter((s) => s.protected && s.drift.length === 0).length;
        item.description = this.problem ? 'the policy cannot be read' : `${count} of ${this.statuses.length} protected`;
        item.tooltip = "Other agents on this workspace (Claude Code, Codex, Gemini CLI, Copilot, Cursor): whether the policy governs their own tools through Toolbelt's hook, what their own sandboxes carry, and what they did.";
        item.contextValue = 'toolbelt.agents';
        item.iconPath = new vscode.ThemeIcon('organization');
        return item;
      }
      case 'agent': {
        const status = this.statuses.find((s) => s.agent === node.agent);
        const state = status ? protectionState(status) : 'not protected';
        const item = new vscode.TreeItem(AGENT_LABELS[node.agent], vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `agent:${node.agent}`;
        const calls = this.decisions.get(node.agent)?.length ?? 0;
        item.description = [state, status?.found ? undefined : 'not found here', calls > 0 ? `${calls} call${calls === 1 ? '' : 's'} judged` : undefined].filter(Boolean).join(' · ');
        item.iconPath = new vscode.ThemeIcon(state === 'protected' ? 'shield' : state === 'drifted' ? 'warning' : 'circle-large-outline');
        item.contextValue = `toolbelt.agent.${state.replace(' ', '-')}`;
        const md = new vscode.MarkdownString(undefined, true);
        md.appendMarkdown(`**${AGENT_LABELS[node.agent]}** — ${state}${status?.found ? ` (found: ${status.foundBy.join(', ')})` : ''}\n\n`);
        for (const file of status?.files ?? []) md.appendMarkdown(`- \`${file.file}\`${file.exists ? '' : ' (not there)'}\n`);
        if (status?.trust) md.appendText(`\n${status.trust}`);
        item.tooltip = md;
        return item;
      }
      case 'agentRule': {
        const entry = this.statuses.find((s) => s.agent === node.agent)?.loss[node.index];
        const item = new vscode.TreeItem(entry ? lossRuleName(entry) : '', vscode.TreeItemCollapsibleState.None);
        item.id = `agent:${node.agent}:rule:${node.index}`;
        if (entry) {
          item.description = enforcedText(entry);
          item.iconPath = new vscode.ThemeIcon(entry.notEnforceable ? 'warning' : entry.enforcedBy.some((e) => e !== 'hook') ? 'shield' : 'filter');
          item.tooltip = [entry.rule, entry.agentSetting, entry.notEnforceable ? `Not enforceable: ${entry.notEnforceable}` : undefined].filter(Boolean).join('\n\n');
        }
        return item;
      }
      case 'agentDecisions': {
        const item = new vscode.TreeItem('Recent decisions', vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `agent:${node.agent}:decisions`;
        const all = this.decisions.get(node.agent) ?? [];
        item.description = all.length === 0 ? 'none' : `${Math.min(all.length, RECENT_DECISIONS)} latest of ${all.length}`;
        item.iconPath = new vscode.ThemeIcon('history');
        return item;
      }
      case 'agentDecision': {
        const record = this.recent(node.agent)[node.index];
        const decision = record?.decision ?? (record?.status === 'refused' ? 'deny' : 'allow');
        const item = new vscode.TreeItem(`${decision} ${record?.tool ?? ''}`, vscode.TreeItemCollapsibleState.None);
        item.id = `agent:${node.agent}:decision:${record?.time ?? ''}:${node.index}`;
        item.iconPath = new vscode.ThemeIcon(decision === 'deny' ? 'circle-slash' : decision === 'ask' ? 'question' : 'check');
        item.description = [argsText(record?.args ?? {}), record?.time.replace('T', ' ').slice(0, 19)].filter(Boolean).join(' · ');
        item.tooltip = [
          `${decision} ${record?.tool ?? ''} at ${record?.time ?? ''}`,
          record?.policyVerdict ? `The policy said ${record.policyVerdict}; nobody could be asked, so the hook answered ${decision}.` : undefined,
          record?.reason,
          record?.rule ? `Rule: ${record.rule}` : undefined,
          `Session: ${record?.chatId ?? 'none'}`,
        ].filter(Boolean).join('\n\n');
        return item;
      }
      case 'agentNote': {
        const item = new vscode.TreeItem(node.text, vscode.TreeItemCollapsibleState.None);
        item.id = `agentNote:${node.agent ?? ''}:${node.text}`;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        item.tooltip = node.text;
        if (node.command) item.command = { command: node.command, title: 'Protect Other Agents on This Workspace…' };
        return item;
      }
    }
  }
}

/** VS Code's own agent's built-in tools: governed by the Copilot hooks file where it is installed, else by nothing of Toolbelt's. */
export const VSCODE_BUILTIN_TOOLS = 'run_in_terminal, read_file, create_file, editFiles, fetch_webpage…';

function vscodeAgentRow(governed: boolean): AgentsNode {
  return governed
    ? { kind: 'agentNote', agent: 'copilot', text: `VS Code's own agent (${VSCODE_BUILTIN_TOOLS}): governed by hook (.github/hooks/toolbelt.json)`, icon: 'shield' }
    : { kind: 'agentNote', agent: 'copilot', text: `VS Code's own agent (${VSCODE_BUILTIN_TOOLS}): not governed — they run as VS Code decides, outside the policy`, icon: 'warning', command: 'toolbelt.protectOtherAgents' };
}

/** `its sandbox + the hook`, `the hook`, with ` · partly not enforceable`. */
export function enforcedText(entry: Pick<LossEntry, 'enforcedBy' | 'notEnforceable'>): string {
  const by = entry.enforcedBy.map((e) => (e === 'sandbox' ? 'its sandbox' : e === 'permissions' ? 'its permissions' : 'the hook')).join(' + ');
  return `by ${by}${entry.notEnforceable ? ' · partly not enforceable' : ''}`;
}

/** The call's command or path in a few characters. */
function argsText(args: Record<string, unknown>): string {
  const value = args.command ?? args.file_path ?? args.path ?? args.url ?? Object.values(args).find((v) => typeof v === 'string');
  if (typeof value !== 'string') return '';
  return value.length > 60 ? `${value.slice(0, 59)}…` : value;
}

function firstFolder(): string | undefined {
  return (vscode.workspace.workspaceFolders ?? []).find((f) => f.uri.scheme === 'file')?.uri.fsPath;
}
