import * as vscode from 'vscode';
import { toolTokens } from '../providers/tokens';
import { findBuiltin, summaryOf } from '../tools/manifest';
import { BUILTIN_SOURCE, type CatalogTool } from '../tools/toolCatalog';
import type { RegisteredTool } from '../tools/toolManager';
import { isLockedByTrust } from '../tools/trustPolicy';
import type { ToolDefinition } from '../tools/types';
import { ASKS_EACH_TIME, asksEachTime, riskLook } from './riskIcons';
import { externalRows } from './sources/sourceTree';
import { AgentsSection } from './toolsTreeAgents';
import type { AgentsNode, ToolsNode } from './toolsTreeNodes';
import type { WorkspaceTools } from './workspaceTools';
import { Disposables } from './dispose';

export const TOOLS_VIEW = 'toolbelt.tools';

export type { ToolsNode } from './toolsTreeNodes';

export interface TreeRow {
  depth: number;
  id: string;
  label: string;
  description?: string;
  checked?: boolean;
  contextValue?: string;
  icon?: string;
  command?: string;
  tooltip?: string;
}

/**
 * Active tools (registered, with a checkbox) above Available ones (not registered). With tools from
 * outside (MCP servers, other extensions) the tree groups them per source: Builtins, each server
 * with its state, Other extensions; each with its own Active and Available.
 */
export class ToolsTreeProvider extends Disposables implements vscode.TreeDataProvider<ToolsNode> {
  private readonly emitter = this.register(new vscode.EventEmitter<ToolsNode | undefined>());
  readonly onDidChangeTreeData = this.emitter.event;

  /** The Agents section: other agents on this workspace, protected or not, and what they did. */
  readonly agents: AgentsSection;

  constructor(
    private readonly tools: WorkspaceTools,
    agents?: AgentsSection,
  ) {
    super();
    this.agents = this.register(agents ?? new AgentsSection().watch());
    this.register(tools.onDidChange(() => this.refresh()));
    this.register(this.agents.onDidChange(() => this.refresh()));
  }

  refresh(): void {
    this.emitter.fire(undefined);
  }

  getChildren(node?: ToolsNode): ToolsNode[] {
    const builtinGroups: ToolsNode[] = [
      { kind: 'group', group: 'active' },
      { kind: 'group', group: 'available' },
    ];
    if (!node) {
      if (!vscode.workspace.workspaceFolders?.length) return [];
      // The builtins keep their Active and Available at the top; each other source follows with its own.
      return [...builtinGroups, ...externalRows.roots(this.tools), ...this.agents.roots()];
    }
    if (isAgentsNode(node)) return this.agents.children(node);
    if (node.kind === 'source' || node.kind === 'sourceGroup') return externalRows.children(this.tools, node);
    if (node.kind !== 'group') return [];
    if (node.group === 'active') {
      const active = this.builtinsListed();
      if (active.length > 0) return active.map((tool) => ({ kind: 'tool', group: 'active', tool }));
      return [{ kind: 'action', label: 'Add the read-only tools', command: 'toolbelt.tools.addReadOnly', icon: 'add' }];
    }
    const registered = new Set(this.tools.list().map((tool) => tool.name));
    return this.tools
      .available()
      .tools.filter((tool) => tool.source.id === BUILTIN_SOURCE.id && !registered.has(tool.name))
      .map((tool) => ({ kind: 'tool', group: 'available', tool }));
  }

  /** The registered builtins (other sources' tools are listed under their source). */
  private builtinsListed(): RegisteredTool[] {
    return this.tools.list().filter((tool) => tool.source.id === BUILTIN_SOURCE.id);
  }

  getTreeItem(node: ToolsNode): vscode.TreeItem {
    switch (node.kind) {
      case 'group':
        return this.groupItem(node.group);
      case 'action': {
        const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
        item.id = `action:${node.command}`;
        item.iconPath = new vscode.ThemeIcon(node.icon);
        item.command = { command: node.command, title: node.label };
        item.tooltip = 'Registers calculator, get_current_datetime, generate_uuid, read_file, list_dir, search_text and search_files in this workspace.';
        return item;
      }
      case 'tool':
        if (node.tool.source.id !== BUILTIN_SOURCE.id) return externalRows.toolItem(this.tools, node);
        return node.group === 'active' ? this.activeItem(node.tool) : this.availableItem(node.tool);
      case 'source':
      case 'sourceGroup':
        return externalRows.item(this.tools, node);
      default:
        return this.agents.item(node);
    }
  }

  /** The tree as plain data, as a person sees it: for tests and diagnostics. */
  snapshot(): TreeRow[] {
    const rows: TreeRow[] = [];
    const visit = (node: ToolsNode | undefined, depth: number) => {
      for (const child of this.getChildren(node)) {
        const item = this.getTreeItem(child);
        const checkbox = typeof item.checkboxState === 'object' ? item.checkboxState.state : item.checkboxState;
        rows.push({
          depth,
          id: item.id ?? '',
          label: typeof item.label === 'string' ? item.label : (item.label?.label ?? ''),
          description: typeof item.description === 'string' ? item.description : undefined,
          checked: checkbox === undefined ? undefined : checkbox === vscode.TreeItemCheckboxState.Checked,
          contextValue: item.contextValue,
          icon: item.iconPath instanceof vscode.ThemeIcon ? item.iconPath.id : undefined,
          command: item.command?.command,
          tooltip: item.tooltip instanceof vscode.MarkdownString ? item.tooltip.value : item.tooltip,
        });
        visit(child, depth + 1);
      }
    };
    visit(undefined, 0);
    return rows;
  }

  private groupItem(group: 'active' | 'available'): vscode.TreeItem {
    const active = this.builtinsListed();
    const item = new vscode.TreeItem(group === 'active' ? 'Active' : 'Available', vscode.TreeItemCollapsibleState.Expanded);
    item.id = `group:${group}`;
    item.contextValue = `toolbelt.group.${group}`;
    if (group === 'active') {
      const enabled = active.filter((t) => t.enabled).length;
      const cost = this.schemaCost();
      item.description = active.length ? `${enabled} of ${active.length} enabled${cost ? ` · ~${formatTokens(cost)} tokens` : ''}` : 'none';
      item.tooltip =
        'Tools registered in toolbelt.tools.registry. Checked tools are offered to the chat.' +
        (cost ? `\n\nTheir schemas add about ${cost.toLocaleString('en-US')} tokens to every request to the model.` : '');
      item.accessibilityInformation = { label: `Active tools, ${item.description}` };
    } else {
      const count = this.tools.available().tools.filter((tool) => tool.source.id === BUILTIN_SOURCE.id).length - active.length;
      item.description = `${count} more`;
      item.tooltip = 'Builtin tools this workspace has not registered. Use + to add one.';
      item.accessibilityInformation = { label: `Available tools, ${count} not registered` };
    }
    return item;
  }

  /** Tokens the enabled builtins' schemas (or one tool's) add to every request, as the model is sent them. */
  private schemaCost(name?: string): number {
    const builtins = new Set(this.builtinsListed().map((tool) => tool.name));
    return this.tools.manager.registry
      .getEnabledSchemas()
      .filter((schema) => (name === undefined ? builtins.has(schema.function.name) : schema.function.name === name))
      .reduce((sum, schema) => sum + toolTokens(schema), 0);
  }

  private activeItem(tool: RegisteredTool): vscode.TreeItem {
    const item = new vscode.TreeItem(tool.name, vscode.TreeItemCollapsibleState.None);
    item.id = `active:${tool.name}`;
    const locked = isLockedByTrust(tool.risk, this.tools.trusted);
    item.iconPath = new vscode.ThemeIcon(locked ? 'lock' : riskLook(tool).icon);
    const tokens = this.schemaCost(tool.name);
    const containment = tool.name === 'run_bash' && !locked ? this.tools.commandContainment() : undefined;
    const risk = tool.descriptionOverridden ? `“${tool.description}”` : riskText(tool, locked, containment);
    item.description = `${risk}${tool.enabled ? ` · ~${formatTokens(tokens)} tokens` : ''}`;
    item.checkboxState = {
      state: tool.enabled ? vscode.TreeItemCheckboxState.Checked : vscode.TreeItemCheckboxState.Unchecked,
      tooltip: locked ? 'Trust this workspace to enable this tool' : tool.enabled ? 'Enabled for the chat: uncheck to disable' : 'Disabled: check to offer it to the chat',
      accessibilityInformation: { label: `${tool.name} ${tool.enabled ? 'enabled' : 'disabled'}` },
    };
    item.contextValue = `toolbelt.tool.${tool.enabled ? 'enabled' : 'disabled'}${locked ? '.locked' : ''}`;
    item.tooltip = tooltipFor(tool, tool.enabled ? 'Enabled' : locked ? 'Disabled until the workspace is trusted' : 'Disabled', containment);
    item.accessibilityInformation = { label: `${tool.name}, ${riskLook(tool).label}${asksEachTime(tool) ? `, ${ASKS_EACH_TIME}` : ''}, ${tool.enabled ? 'enabled' : 'disabled'}` };
    return item;
  }

  private availableItem(tool: CatalogTool): vscode.TreeItem {
    const item = new vscode.TreeItem(tool.name, vscode.TreeItemCollapsibleState.None);
    item.id = `available:${tool.name}`;
    item.iconPath = new vscode.ThemeIcon(riskLook(tool).icon);
    item.description = asksEachTime(tool) ? `${ASKS_EACH_TIME} · ${summaryOf(tool)}` : summaryOf(tool);
    item.contextValue = 'toolbelt.tool.available';
    item.tooltip = tooltipFor(tool, 'Not registered in this workspace');
    item.accessibilityInformation = { label: `${tool.name}, ${riskLook(tool).label}${asksEachTime(tool) ? `, ${ASKS_EACH_TIME}` : ''}, available` };
    return item;
  }
}

const AGENTS_KINDS: ReadonlySet<string> = new Set(['agents', 'agent', 'agentRule', 'agentDecisions', 'agentDecision', 'agentNote']);

function isAgentsNode(node: ToolsNode): node is AgentsNode {
  return AGENTS_KINDS.has(node.kind);
}

/** "850", "1.2k": the size of a tool schema as a person reads it. */
export function formatTokens(tokens: number): string {
  return tokens < 1000 ? String(tokens) : `${(tokens / 1000).toFixed(1)}k`;
}

/** `runs commands · sandboxed, network off · asks each time`: what the tool does, how it is contained, whether it asks. */
function riskText(tool: Pick<ToolDefinition, 'name' | 'risk' | 'enabledByDefault'>, locked: boolean, containment?: string): string {
  if (locked) return 'needs a trusted workspace';
  return [riskLook(tool).label.toLowerCase(), containment, asksEachTime(tool) ? ASKS_EACH_TIME : undefined].filter(Boolean).join(' · ');
}

export function tooltipFor(tool: Pick<ToolDefinition, 'name' | 'risk' | 'description' | 'parameters'> & { enabledByDefault?: boolean }, state: string, containment?: string): vscode.MarkdownString {
  const manifest = findBuiltin(tool.name);
  const md = new vscode.MarkdownString(undefined, true);
  const look = riskLook(tool);
  md.appendMarkdown(`**${tool.name}** — $(${look.icon}) ${look.label} · ${state}${asksEachTime(tool) ? ' · asks you before each call' : ''}\n\n`);
  md.appendText(tool.description);
  if (containment) md.appendMarkdown(`\n\n*Commands: ${containment}.*`);
  if (manifest && manifest.description !== tool.description) md.appendMarkdown('\n\n*Description overridden in settings.*');
  const required = new Set(tool.parameters.required ?? []);
  const rows = Object.entries(tool.parameters.properties).map(
    ([name, schema]) => `| \`${name}\`${required.has(name) ? '' : '?'} | ${schema.type ?? ''} | ${escapeCell(schema.description ?? '')} |`,
  );
  md.appendMarkdown(rows.length ? `\n\n| parameter | type | |\n|---|---|---|\n${rows.join('\n')}` : '\n\n*No parameters.*');
  return md;
}

function escapeCell(text: string): string {
  return text.replace(/\|/g, '\\|').replace(/\n/g, ' ');
}

/**
 * Registers the view: checkboxes toggle tools, and its message explains an empty Active group.
 * `mount` shows the provider's rows in the view (the shell created it at activation: host.ts).
 */
export function registerToolsView(
  context: vscode.ExtensionContext,
  tools: WorkspaceTools,
  mount: (provider: ToolsTreeProvider) => vscode.TreeView<ToolsNode> = (provider) => vscode.window.createTreeView(TOOLS_VIEW, { treeDataProvider: provider, manageCheckboxStateManually: true }),
): ToolsTreeProvider {
  const provider = new ToolsTreeProvider(tools);
  const view = mount(provider);
  const updateMessage = () => {
    const active = tools.list();
    view.message =
      active.length === 0
        ? 'No tools are active in this workspace. Tools are activated by name in toolbelt.tools.registry (.vscode/settings.json): add one with + below, or all the read-only ones at once.'
        : active.some((t) => isLockedByTrust(t.risk, tools.trusted))
          ? 'Restricted mode: tools that change files or run commands stay off until you trust this workspace.'
          : undefined;
  };
  updateMessage();
  context.subscriptions.push(
    provider,
    view,
    tools.onDidChange(updateMessage),
    // Expanding a server that has not started starts it (its approval asks first where it must).
    view.onDidExpandElement(({ element }) => (isAgentsNode(element) ? void provider.agents.reload() : externalRows.expanded(tools, element))),
    view.onDidChangeCheckboxState(async (event) => {
      for (const [node, state] of event.items) {
        if (node.kind !== 'tool' || node.group !== 'active') continue;
        const checked = state === vscode.TreeItemCheckboxState.Checked;
        // An event listener's rejection would go unhandled: a failed toggle is reported instead.
        const result = await (checked ? tools.enable(node.tool.name) : tools.disable(node.tool.name)).catch((error: unknown) => ({
          ok: false as const,
          error: error instanceof Error ? error.message : String(error),
        }));
        if (!result.ok) {
          void vscode.window.showErrorMessage(`Toolbelt: ${result.error}`);
          provider.refresh();
        }
      }
    }),
  );
  return provider;
}
