import { summaryOf } from '../tools/manifest';
import type { CatalogTool } from '../tools/toolCatalog';
import type { RegisteredTool } from '../tools/toolManager';
import { isLockedByTrust } from '../tools/trustPolicy';
import { riskLook } from './riskIcons';

// The rows of the Configure Tools picker (configureTools.ts), apart from VS Code so unit tests read
// them: every tool once, by the name settings use, grouped by where it comes from.

export interface ToolRow {
  /** The group's heading: `Builtins`, `MCP server tickets`, `Other extensions`. */
  group: string;
  /** As toolbelt.tools.registry names it: `read_file`, `tickets/lookup_ticket`. */
  name: string;
  /** Ticked: the model may call it now. */
  enabled: boolean;
  registered: boolean;
  /** Cannot be enabled until the workspace is trusted. */
  locked: boolean;
  description: string;
  detail: string;
}

/** Registered tools (active or switched off) and the available ones not registered yet, each once. */
export function configureToolRows(available: readonly CatalogTool[], registered: readonly RegisteredTool[], trusted: boolean): ToolRow[] {
  const byName = new Map(registered.map((tool) => [tool.name, tool]));
  const rows: ToolRow[] = [];
  const seen = new Set<string>();
  const add = (tool: CatalogTool | RegisteredTool) => {
    if (seen.has(tool.name) || tool.name.endsWith('/*')) return;
    seen.add(tool.name);
    const entry = byName.get(tool.name);
    const locked = isLockedByTrust(tool.risk, trusted);
    const state = !entry ? 'adds it to this workspace' : entry.state === 'waiting' ? `waiting: ${entry.reason}` : entry.enabled ? '' : 'switched off';
    rows.push({
      group: groupOf(tool),
      name: tool.name,
      enabled: entry?.enabled === true,
      registered: entry !== undefined,
      locked,
      description: [riskLook(tool).label, locked ? 'needs a trusted workspace' : state].filter(Boolean).join(' · '),
      detail: summaryOf({ description: entry?.description || tool.description }),
    });
  };
  for (const tool of registered) add(tool);
  for (const tool of available) add(tool);
  const order = (row: ToolRow) => (row.group === 'Builtins' ? 0 : row.group.startsWith('MCP') ? 1 : 2);
  return rows.sort((a, b) => order(a) - order(b) || a.group.localeCompare(b.group) || Number(b.registered) - Number(a.registered));
}

function groupOf(tool: CatalogTool | RegisteredTool): string {
  if (tool.source.kind === 'builtin') return 'Builtins';
  if (tool.source.kind === 'mcp') return `MCP server ${tool.source.label}`;
  return 'Other extensions';
}

/** What ticking and unticking changed: names to enable (registering them if needed) and to switch off. */
export function toolChanges(rows: readonly ToolRow[], ticked: ReadonlySet<string>): { enable: string[]; disable: string[] } {
  return {
    enable: rows.filter((row) => ticked.has(row.name) && !row.enabled).map((row) => row.name),
    disable: rows.filter((row) => !ticked.has(row.name) && row.enabled).map((row) => row.name),
  };
}
