import type { ToolParameters } from './interface';
import { BUILTIN_MANIFEST, findBuiltin } from './manifest';
import { builtinBehindOwnName, isOwnToolName, modelNameFor } from './toolNames';
import { EXTERNAL_TOOL_RISK, type SourceState, type SourceTool, type ToolSource, type ToolSourceKind } from './toolSource';
import type { ToolDefinition, ToolRisk } from './types';

/** Which source a catalog entry comes from, as `available()` and `list()` report it. */
export interface SourceInfo {
  id: string;
  kind: ToolSourceKind;
  label: string;
}

export const BUILTIN_SOURCE: Readonly<SourceInfo> = Object.freeze({ id: 'builtin', kind: 'builtin', label: 'Builtins' });

/** A builtin as the catalog lists it: its manifest entry, its source, and the name the model sees (its own). */
export interface BuiltinCatalogTool extends ToolDefinition {
  source: SourceInfo;
  modelName: string;
}

/** A tool from an MCP server or another extension, as the catalog lists it. */
export interface ExternalCatalogTool {
  /** What `toolbelt.tools.registry` names: `<server>/<tool>` for MCP, the tool's own name for extensions. */
  name: string;
  /** The name the model sees: [A-Za-z0-9_-], at most 64 characters. */
  modelName: string;
  /** The tool's name inside its source. */
  toolName: string;
  description: string;
  type: Exclude<ToolSourceKind, 'builtin'>;
  parameters: ToolParameters;
  /** Always EXTERNAL_TOOL_RISK: Toolbelt does not trust a source's own claims. */
  risk: ToolRisk;
  /** Registered external tools start enabled; every call asks unless the person ticked "run without asking". */
  enabledByDefault: boolean;
  /** What the source claims; shown, never trusted. */
  readOnlyHint?: boolean;
  /** What Toolbelt cut of the source's definition, for the tree. */
  notices?: readonly string[];
  source: SourceInfo;
}

export type CatalogTool = BuiltinCatalogTool | ExternalCatalogTool;

/** What one registry name means against the catalog right now. */
export type Lookup =
  | { kind: 'builtin'; tool: BuiltinCatalogTool }
  | { kind: 'tool'; tool: ExternalCatalogTool; source: ToolSource }
  | { kind: 'all'; tools: ExternalCatalogTool[]; source: ToolSource }
  | { kind: 'waiting'; source: ToolSource; reason: string }
  | { kind: 'own'; builtin?: string }
  | { kind: 'unknown'; hint?: string };

export const WILDCARD = '*';

/** Every tool of every source: the builtins manifest first, then each source's tools in its order. */
export class ToolCatalog {
  private readonly all = new Map<string, ToolSource>();

  add(source: ToolSource): void {
    if (source.id === BUILTIN_SOURCE.id || this.all.has(source.id)) throw new Error(`A tool source with the id "${source.id}" is already added`);
    this.all.set(source.id, source);
  }

  /** Returns false when the source was not there. */
  remove(source: ToolSource): boolean {
    if (this.all.get(source.id) !== source) return false;
    return this.all.delete(source.id);
  }

  sources(): ToolSource[] {
    return [...this.all.values()];
  }

  get(id: string): ToolSource | undefined {
    return this.all.get(id);
  }

  available(): CatalogTool[] {
    return [...BUILTIN_MANIFEST.map(builtinEntry), ...this.sources().flatMap((source) => this.toolsOf(source))];
  }

  /** A source's tools as catalog entries; Toolbelt's own tools (`toolbelt_*`) never appear. */
  toolsOf(source: ToolSource): ExternalCatalogTool[] {
    return safeTools(source)
      .filter((tool) => !(source.kind === 'extension' && isOwnToolName(tool.name)))
      .map((tool) => externalEntry(source, tool));
  }

  /** What `name` (a registry entry's name) means now. */
  lookup(name: string): Lookup {
    const builtin = findBuiltin(name);
    if (builtin) return { kind: 'builtin', tool: builtinEntry(builtin) };
    const server = this.serverOf(name);
    if (!server && isOwnToolName(name)) return { kind: 'own', builtin: builtinBehindOwnName(name) };
    if (server) {
      const toolName = name.slice(server.id.length + 1);
      if (!isRunning(server)) return { kind: 'waiting', source: server, reason: waitingReason(server) };
      const tools = this.toolsOf(server);
      if (toolName === WILDCARD) return { kind: 'all', tools, source: server };
      const tool = tools.find((t) => t.toolName === toolName);
      if (tool) return { kind: 'tool', tool, source: server };
    }
    for (const source of this.sources().filter((s) => s.kind === 'extension')) {
      const tool = this.toolsOf(source).find((t) => t.name === name);
      if (tool) return { kind: 'tool', tool, source };
    }
    const hint = this.closestName(name);
    // Another extension's tool may appear once that source runs; a near-miss of a known name is a typo instead.
    const idle = this.sources().find((s) => s.kind === 'extension' && !isRunning(s));
    if (!server && idle && !hint && !name.includes('/')) return { kind: 'waiting', source: idle, reason: waitingReason(idle) };
    return { kind: 'unknown', hint };
  }

  /** The MCP server a `<server>/<tool>` name points at; the longest matching id wins (ids may hold `/`). */
  private serverOf(name: string): ToolSource | undefined {
    let best: ToolSource | undefined;
    for (const source of this.all.values()) {
      if (source.kind !== 'mcp' || !name.startsWith(`${source.id}/`) || name.length === source.id.length + 1) continue;
      if (!best || source.id.length > best.id.length) best = source;
    }
    return best;
  }

  /** The catalog name nearest to a misspelt one, when it is close enough to be a likely typo. */
  private closestName(name: string): string | undefined {
    const candidates = [
      ...this.available().map((t) => t.name),
      ...this.sources().filter((s) => s.kind === 'mcp').map((s) => `${s.id}/${WILDCARD}`),
    ];
    let best: string | undefined;
    let bestDistance = Infinity;
    for (const candidate of candidates) {
      const distance = editDistance(name.toLowerCase(), candidate.toLowerCase());
      if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
    }
    return bestDistance <= Math.max(2, Math.floor(name.length / 4)) ? best : undefined;
  }
}

export function isRunning(source: ToolSource): boolean {
  return safeState(source).state === 'running';
}

/** Why a source's tools are not there yet, for the tree and the log. */
export function waitingReason(source: ToolSource): string {
  const state: SourceState = safeState(source);
  switch (state.state) {
    case 'failed':
      return `${source.label} failed: ${state.reason}`;
    case 'starting':
      return `${source.label} is starting`;
    case 'stopped':
      return `${source.label} is stopped`;
    default:
      return `${source.label} has not started yet`;
  }
}

export function sourceInfo(source: Pick<ToolSource, 'id' | 'kind' | 'label'>): SourceInfo {
  return { id: source.id, kind: source.kind, label: source.label };
}

/** The catalog name of a source's tool: `<server>/<tool>` for MCP servers, the bare name for extensions. */
export function catalogNameOf(source: Pick<ToolSource, 'id' | 'kind'>, toolName: string): string {
  return source.kind === 'mcp' ? `${source.id}/${toolName}` : toolName;
}

/** A JSON Schema the registry accepts: an object with properties, whatever the source sent. */
export function normalizeParameters(parameters: unknown): ToolParameters {
  const schema = isPlainObject(parameters) ? parameters : {};
  const properties = isPlainObject(schema.properties) ? schema.properties : {};
  return { ...schema, type: 'object', properties } as ToolParameters;
}

function builtinEntry(definition: ToolDefinition): BuiltinCatalogTool {
  return { ...definition, source: { ...BUILTIN_SOURCE }, modelName: definition.name };
}

function externalEntry(source: ToolSource, tool: SourceTool): ExternalCatalogTool {
  const name = catalogNameOf(source, tool.name);
  const description = typeof tool.description === 'string' && tool.description.trim() !== '' ? tool.description : `${tool.name} (from ${source.label})`;
  return {
    name,
    modelName: modelNameFor(name),
    toolName: tool.name,
    description,
    type: source.kind,
    parameters: normalizeParameters(tool.parameters),
    risk: EXTERNAL_TOOL_RISK,
    enabledByDefault: true,
    ...(typeof tool.readOnlyHint === 'boolean' ? { readOnlyHint: tool.readOnlyHint } : {}),
    ...(Array.isArray(tool.notices) && tool.notices.length > 0 ? { notices: tool.notices } : {}),
    source: sourceInfo(source),
  };
}

/** A source that throws from `tools()` or `state()` offers nothing rather than breaking the catalog. */
function safeTools(source: ToolSource): readonly SourceTool[] {
  try {
    const tools = source.tools();
    return Array.isArray(tools) ? tools.filter((t) => t && typeof t.name === 'string' && t.name !== '') : [];
  } catch {
    return [];
  }
}

function safeState(source: ToolSource): SourceState {
  try {
    return source.state();
  } catch (error) {
    return { state: 'failed', reason: (error as Error)?.message ?? String(error) };
  }
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length];
}
