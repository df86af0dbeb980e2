import * as vscode from 'vscode';
import { GOVERNED_MCP_ORIGIN } from '../../tools/mcp';
import { MCP_JSON_ORIGIN } from '../../tools/mcp';
import { toolTokens } from '../../providers/tokens';
import { summaryOf } from '../../tools/manifest';
import type { CatalogTool } from '../../tools/toolCatalog';
import type { RegisteredTool } from '../../tools/toolManager';
import type { ToolSource } from '../../tools/toolSource';
import { isLockedByTrust } from '../../tools/trustPolicy';
import type { SourceNode, ToolsNode } from '../toolsTreeNodes';
import type { WorkspaceTools } from '../workspaceTools';
import { cutLabel, externalToolText, LAPSED_TEXT, problemNaming, sourceContextValue, sourceStateText } from './sourceRowText';

/** A source's own row, and its Active / Available groups. `sourceId` is a server's name or `extensions`. */

type ToolNode = Extract<ToolsNode, { kind: 'tool' }>;

/** The sources with a row of their own: every MCP server, and other extensions once they offer (or the registry names) a tool. */
function visibleSources(tools: WorkspaceTools): ToolSource[] {
  const registered = new Set(tools.list().map((tool) => tool.source.id));
  return tools.manager.sources().filter((source) => source.kind === 'mcp' || registered.has(source.id) || safeTools(source) > 0);
}

function safeTools(source: ToolSource): number {
  try {
    return source.tools().length;
  } catch {
    return 0;
  }
}

function sourceById(tools: WorkspaceTools, id: string): ToolSource | undefined {
  return tools.manager.sources().find((source) => source.id === id);
}

function registeredOf(tools: WorkspaceTools, sourceId: string): RegisteredTool[] {
  return tools.list().filter((tool) => tool.source.id === sourceId);
}

function availableOf(tools: WorkspaceTools, sourceId: string): CatalogTool[] {
  const registered = new Set(tools.list().map((tool) => tool.name));
  return tools.available().tools.filter((tool) => tool.source.id === sourceId && !registered.has(tool.name));
}

/** The rows of the per-source layout, apart from the builtins' own (toolsTree.ts draws those). */
export const externalRows = {
  /** One row per source beside the builtins: the MCP servers, then other extensions. */
  roots(tools: WorkspaceTools): ToolsNode[] {
    const sources = visibleSources(tools);
    const ordered = [...sources.filter((s) => s.kind === 'mcp'), ...sources.filter((s) => s.kind !== 'mcp')];
    return ordered.map((s): ToolsNode => ({ kind: 'source', sourceId: s.id }));
  },

  children(tools: WorkspaceTools, node: SourceNode): ToolsNode[] {
    if (node.kind === 'source') {
      return [
        { kind: 'sourceGroup', sourceId: node.sourceId, group: 'active' },
        { kind: 'sourceGroup', sourceId: node.sourceId, group: 'available' },
      ];
    }
    if (node.group === 'active') return registeredOf(tools, node.sourceId).map((tool): ToolNode => ({ kind: 'tool', group: 'active', tool }));
    return availableOf(tools, node.sourceId).map((tool): ToolNode => ({ kind: 'tool', group: 'available', tool }));
  },

  item(tools: WorkspaceTools, node: SourceNode): vscode.TreeItem {
    const source = sourceById(tools, node.sourceId);
    if (node.kind === 'source') return source ? sourceItem(source) : new vscode.TreeItem(node.sourceId);
    const registered = registeredOf(tools, node.sourceId);
    const item = new vscode.TreeItem(node.group === 'active' ? 'Active' : 'Available', vscode.TreeItemCollapsibleState.Expanded);
    item.id = `group:${node.group}:${node.sourceId}`;
    item.contextValue = `toolbelt.group.${node.group}.external`;
    if (node.group === 'active') {
      const enabled = registered.filter((t) => t.enabled).length;
      const waiting = registered.filter((t) => t.state === 'waiting').length;
      item.description = registered.length ? `${enabled} of ${registered.length} enabled${waiting ? ` · ${waiting} waiting` : ''}` : 'none';
      item.tooltip = `Tools of ${source?.label ?? node.sourceId} named in toolbelt.tools.registry.`;
    } else {
      const count = availableOf(tools, node.sourceId).length;
      item.description = count ? `${count} more` : source?.state().state === 'running' ? 'none' : 'listed once it runs';
      item.tooltip = 'Tools this source offers that the workspace has not registered. Use + to add one.';
    }
    item.accessibilityInformation = { label: `${item.label} tools of ${source?.label ?? node.sourceId}, ${item.description}` };
    return item;
  },

  toolItem(tools: WorkspaceTools, node: ToolNode): vscode.TreeItem {
    const { tool } = node;
    // One name per tool in the UI: the one settings use (`tickets/lookup_ticket`), as the chat's cards and Configure Tools show it.
    const item = new vscode.TreeItem(tool.name, vscode.TreeItemCollapsibleState.None);
    const problem = problemNaming(tool.name, tools.problems());
    const readOnlyHint = 'readOnlyHint' in tool ? tool.readOnlyHint : undefined;
    const notices = 'notices' in tool ? tool.notices : undefined;
    if (node.group === 'available') {
      item.id = `available:${tool.source.id}:${tool.name}`;
      item.iconPath = new vscode.ThemeIcon('plug');
      const cut = cutLabel(notices);
      item.description = ['asks before each call', summaryOf(tool), readOnlyHint ? 'says read-only' : '', cut ? `⚠ ${cut}` : '', problem ? `⚠ ${problem}` : ''].filter(Boolean).join(' · ');
      item.contextValue = 'toolbelt.tool.available';
      item.tooltip = externalTooltip(tool, 'Not registered in this workspace', problem);
      item.accessibilityInformation = { label: `${tool.name}, from ${tool.source.label}, available` };
      return item;
    }
    const registered = node.tool;
    const waiting = registered.state === 'waiting' ? registered.reason : undefined;
    const locked = isLockedByTrust(registered.risk, tools.trusted);
    const runWithoutAsking = registered.runWithoutAsking === true;
    const lapsed = registered.state === 'ready' && registered.runWithoutAskingLapsed === true;
    item.id = `active:${tool.source.id}:${tool.name}`;
    item.iconPath = new vscode.ThemeIcon(waiting ? 'watch' : locked ? 'lock' : problem ? 'warning' : 'plug');
    const modelName = registered.state === 'ready' ? registered.modelName : undefined;
    const tokens = modelName && registered.enabled ? toolTokensOf(tools, modelName) : 0;
    item.description = externalToolText({ waiting, locked, runWithoutAsking, lapsed, readOnlyHint, problem, notices }) + (tokens ? ` · ~${tokens} tokens` : '');
    if (!waiting) {
      item.checkboxState = {
        state: registered.enabled ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked,
        tooltip: locked ? 'Trust this workspace to enable this tool' : registered.enabled ? 'Enabled for the chat: uncheck to disable' : 'Disabled: check to offer it to the chat',
        accessibilityInformation: { label: `${tool.name} ${registered.enabled ? 'enabled' : 'disabled'}` },
      };
    }
    const state = waiting ? 'disabled.waiting' : `${registered.enabled ? 'enabled' : 'disabled'}${locked ? '.locked' : ''}`;
    item.contextValue = `toolbelt.tool.${state}.external.${runWithoutAsking ? 'auto' : 'asks'}`;
    item.tooltip = externalTooltip(tool, waiting ? `Waiting: ${waiting}` : registered.enabled ? 'Enabled' : locked ? 'Disabled until the workspace is trusted' : 'Disabled', problem, lapsed);
    item.accessibilityInformation = {
      label: `${tool.name}, from ${tool.source.label}, ${waiting ? 'waiting' : registered.enabled ? 'enabled' : 'disabled'}, ${runWithoutAsking ? 'runs without asking' : lapsed ? 'asks again because its definition changed' : 'asks before each call'}`,
    };
    return item;
  },

  /** A server row was expanded: start it when it has not started (its approval gate decides). */
  expanded(tools: WorkspaceTools, node: ToolsNode): void {
    if (node.kind !== 'source') return;
    const source = sourceById(tools, node.sourceId);
    if (!source || source.kind !== 'mcp') return;
    const state = source.state().state;
    if (state !== 'not-started' && state !== 'stopped') return;
    // start() never rejects: a failure becomes the server's state, shown on its row.
    void source.start().catch(() => undefined);
  },
};

/** Whether VS Code runs a server too (`.vscode/mcp.json`), only Toolbelt does (its own file), or it is the person's own. */
export function governancePath(origin: string | undefined): 'shared' | 'governed' | 'own' {
  if (origin?.endsWith(MCP_JSON_ORIGIN)) return 'shared';
  return origin?.endsWith(GOVERNED_MCP_ORIGIN) ? 'governed' : 'own';
}

function sourceItem(source: ToolSource): vscode.TreeItem {
  const state = source.state();
  const isServer = source.kind === 'mcp';
  // A server opens once it runs (expanding one starts it); other extensions' long list stays folded until wanted.
  const item = new vscode.TreeItem(source.label, isServer && state.state === 'running' ? vscode.TreeItemCollapsibleState.Expanded : vscode.TreeItemCollapsibleState.Collapsed);
  item.id = `source:${source.id}`;
  if (isServer) {
    const path = governancePath(source.origin);
    // How its processes are contained ("sandboxed, network off"), while it runs.
    const contained = state.state === 'running' ? source.containment : undefined;
    item.description = [sourceStateText(state, safeTools(source)), contained, path === 'shared' ? '⚠ also run by VS Code' : path === 'governed' ? 'governed by Toolbelt' : ''].filter(Boolean).join(' · ');
    item.contextValue = sourceContextValue(state) + (path === 'shared' ? '.shared' : '');
    item.iconPath = new vscode.ThemeIcon(
      state.state === 'running' ? 'server-process' : state.state === 'starting' ? 'loading~spin' : state.state === 'failed' ? 'error' : 'server',
    );
    const md = new vscode.MarkdownString(undefined, true);
    md.appendMarkdown(`**MCP server ${source.label}** — ${source.origin ?? ''}\n\n`);
    md.appendText(`State: ${item.description}.`);
    md.appendMarkdown('\n\nIts tools ask before each call unless you choose "run without asking" for one. Expand it to start it.');
    if (path === 'shared') {
      md.appendMarkdown(
        `\n\n**Also run by VS Code.** VS Code starts the servers of \`.vscode/mcp.json\` itself, so Copilot's agent reaches this server's tools without Toolbelt's policy. **Govern Through Toolbelt Only** moves it to \`${GOVERNED_MCP_ORIGIN}\`, which only Toolbelt reads; VS Code's chat then reaches its tools through Toolbelt.`,
      );
    } else if (path === 'governed') {
      md.appendMarkdown(`\n\n**Governed by Toolbelt**: defined in \`${GOVERNED_MCP_ORIGIN}\`, which VS Code does not start by itself; VS Code's chat reaches its tools through Toolbelt.`);
    }
    item.tooltip = md;
    item.accessibilityInformation = { label: `MCP server ${source.label}, ${item.description}` };
  } else {
    const count = safeTools(source);
    item.description = `${count} ${count === 1 ? 'tool' : 'tools'}`;
    item.contextValue = 'toolbelt.source.extensions';
    item.iconPath = new vscode.ThemeIcon('extensions');
    item.tooltip = "Tools other extensions (and VS Code's own MCP support) offer to every chat. Each asks before every call unless you choose otherwise.";
    item.accessibilityInformation = { label: `Other extensions, ${item.description}` };
  }
  return item;
}

function toolTokensOf(tools: WorkspaceTools, modelName: string): number {
  const schema = tools.manager.registry.getEnabledSchemas().find((s) => s.function.name === modelName);
  return schema ? toolTokens(schema) : 0;
}

function externalTooltip(tool: CatalogTool | RegisteredTool, state: string, problem?: string, lapsed = false): vscode.MarkdownString {
  const md = new vscode.MarkdownString(undefined, true);
  md.appendMarkdown(`**${tool.name}** — $(plug) from ${tool.source.label} · ${state}\n\n`);
  md.appendText(tool.description || '(no description yet)');
  if ('readOnlyHint' in tool && tool.readOnlyHint) {
    md.appendMarkdown('\n\n*Its server says it only reads. Toolbelt does not rely on that: it treats every outside tool as able to change anything.*');
  }
  if ('modelName' in tool && tool.modelName && tool.modelName !== tool.name) md.appendMarkdown(`\n\nThe model sees it as \`${tool.modelName}\`.`);
  if (lapsed) md.appendText(`\n\n⚠ ${LAPSED_TEXT}`);
  for (const notice of ('notices' in tool ? tool.notices : undefined) ?? []) md.appendText(`\n\n⚠ Toolbelt cut what the source sent: ${notice}.`);
  if (problem) md.appendText(`\n\n⚠ ${problem}`);
  return md;
}
