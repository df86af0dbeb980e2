import { createBuiltinTool } from './factory';
import { BUILTIN_MANIFEST, BUILTIN_NAMES, findBuiltin } from './manifest';
import { ToolRegistry, type ToolRegistryOptions } from './registry';
import type { ToolContext, ToolDefinition } from './types';

export interface ToolManagerLogger {
  warn(message: string): void;
  error(message: string): void;
}

/** Where the user's enable/disable choices live (the extension keeps them per workspace). */
export interface ToggleStore {
  get(name: string): boolean | undefined;
  set(name: string, enabled: boolean): void;
}

export interface ToolManagerOptions {
  context: ToolContext;
  logger?: ToolManagerLogger;
  /** Whether the workspace is trusted; untrusted ones get read-only tools and no description overrides. */
  trusted?: boolean;
  toggles?: ToggleStore;
  /** Passed to the registry: budgets, a scheduler, an observer of every call. */
  registry?: ToolRegistryOptions;
}

export interface ApplyResult {
  warnings: string[];
  errors: string[];
}

/** A registered tool as `list()` reports it: its manifest definition, its live description, its state. */
export interface RegisteredTool extends ToolDefinition {
  enabled: boolean;
  /** The description came from the settings entry rather than the manifest. */
  descriptionOverridden: boolean;
}

export type ToggleResult = { ok: true } | { ok: false; error: string };

export interface Disposable {
  dispose(): void;
}

const SETTING = 'toolbelt.tools.registry';
const ENTRY_KEYS = new Set(['name', 'description']);

/**
 * Owns the workspace's registry: builds it from name-only settings entries (resolved from the
 * manifest), keeps enable/disable choices, and enforces workspace trust.
 */
export class ToolManager {
  readonly registry: ToolRegistry;
  private readonly context: ToolContext;
  private readonly logger?: ToolManagerLogger;
  private readonly toggles: ToggleStore;
  private readonly overridden = new Set<string>();
  private readonly listeners = new Set<() => void>();
  private isTrusted: boolean;
  private lastEntries: unknown;

  constructor(options: ToolManagerOptions) {
    this.registry = new ToolRegistry(options.registry);
    this.context = options.context;
    this.logger = options.logger;
    this.isTrusted = options.trusted ?? true;
    this.toggles = options.toggles ?? memoryToggles();
  }

  get trusted(): boolean {
    return this.isTrusted;
  }

  /** Replaces the registered tools with the ones `entries` (the setting's value) names. Never throws. */
  applyConfig(entries: unknown): ApplyResult {
    this.lastEntries = entries;
    const result: ApplyResult = { warnings: [], errors: [] };
    for (const name of this.registry.getToolNames()) this.registry.unregister(name);
    this.overridden.clear();

    const list = entries === undefined || entries === null ? [] : entries;
    if (!Array.isArray(list)) {
      result.errors.push(`${SETTING} must be an array of {"name": "<tool>"} entries, but it is ${kindOf(list)}; no tools are active.`);
    } else {
      const firstIndex = new Map<string, number>();
      list.forEach((entry, index) => this.applyEntry(entry, index, firstIndex, result));
    }
    for (const message of result.warnings) this.logger?.warn(message);
    for (const message of result.errors) this.logger?.error(message);
    this.fireChange();
    return result;
  }

  /** Every manifest entry, active or not; no enabled state (that is `list()`). */
  available(): { tools: ToolDefinition[]; count: number } {
    return { tools: [...BUILTIN_MANIFEST], count: BUILTIN_MANIFEST.length };
  }

  /** The registered tools in settings order, each with its enabled state. */
  list(): RegisteredTool[] {
    return this.registry.getToolNames().map((name) => {
      const definition = findBuiltin(name)!;
      const tool = this.registry.get(name)!;
      return {
        ...definition,
        description: tool.getSchema().function.description,
        enabled: this.registry.isToolEnabled(name),
        descriptionOverridden: this.overridden.has(name),
      };
    });
  }

  /** Why `name` cannot be enabled now, or undefined when it can. */
  whyNotEnable(name: string): string | undefined {
    const definition = findBuiltin(name);
    if (!definition) return `"${name}" is not a Toolbelt tool. Available: ${BUILTIN_NAMES.join(', ')}.`;
    if (!this.registry.hasTool(name)) return `"${name}" is not registered; add {"name": "${name}"} to ${SETTING} first.`;
    if (!this.isTrusted && definition.risk !== 'read') {
      return `"${name}" can change files or run programs, so it cannot be enabled until you trust this workspace.`;
    }
    return undefined;
  }

  enable(name: string): ToggleResult {
    const reason = this.whyNotEnable(name);
    if (reason) return { ok: false, error: reason };
    return this.setEnabled(name, true);
  }

  disable(name: string): ToggleResult {
    if (!this.registry.hasTool(name)) return { ok: false, error: `"${name}" is not registered, so there is nothing to disable.` };
    return this.setEnabled(name, false);
  }

  /** Trust was granted (or revoked): the last config is applied again under the new rules. */
  setTrusted(trusted: boolean): ApplyResult {
    this.isTrusted = trusted;
    return this.applyConfig(this.lastEntries);
  }

  /** Called after every change of registered tools or their state. */
  onDidChange(listener: () => void): Disposable {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  private applyEntry(entry: unknown, index: number, firstIndex: Map<string, number>, result: ApplyResult): void {
    const where = `${SETTING}[${index}]`;
    let record: Record<string, unknown>;
    if (typeof entry === 'string') {
      result.warnings.push(`${where}: write "${entry}" as {"name": "${entry}"}; it was read that way.`);
      record = { name: entry };
    } else if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) {
      record = entry as Record<string, unknown>;
    } else {
      result.errors.push(`${where} must be an object like {"name": "calculator"}, but it is ${kindOf(entry)}; it was skipped.`);
      return;
    }
    const name = record.name;
    if (typeof name !== 'string' || name.trim() === '') {
      result.errors.push(`${where} has no "name"; it was skipped.`);
      return;
    }
    const definition = findBuiltin(name);
    if (!definition) {
      const hint = closestName(name);
      result.warnings.push(`${where}: unknown tool "${name}"${hint ? ` (did you mean "${hint}"?)` : ''}; it was skipped.`);
      return;
    }
    const extra = Object.keys(record).filter((key) => !ENTRY_KEYS.has(key));
    if (extra.length > 0) {
      result.warnings.push(
        `${where} ("${name}"): ${extra.map((k) => `"${k}"`).join(', ')} ${extra.length === 1 ? 'is' : 'are'} deprecated and ignored; ` +
          `the manifest defines the tool. Write {"name": "${name}"} (plus an optional "description").`,
      );
    }
    const description = this.descriptionOverride(record.description, where, name, result);
    const tool = createBuiltinTool(definition, this.context, description);
    try {
      this.registry.register(tool);
    } catch (error) {
      result.errors.push(
        `${where}: ${(error as Error).message} by ${SETTING}[${firstIndex.get(name)}]; this duplicate was rejected and the first entry stays.`,
      );
      return;
    }
    firstIndex.set(name, index);
    if (description !== undefined) this.overridden.add(name);
    const wanted = this.toggles.get(name) ?? definition.enabledByDefault;
    if (!wanted || (!this.isTrusted && definition.risk !== 'read')) this.registry.disable(name);
  }

  private descriptionOverride(value: unknown, where: string, name: string, result: ApplyResult): string | undefined {
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || value.trim() === '') {
      result.warnings.push(`${where} ("${name}"): "description" must be a non-empty string; the manifest's description is used.`);
      return undefined;
    }
    if (!this.isTrusted) {
      result.warnings.push(`${where} ("${name}"): the description override is ignored until you trust this workspace.`);
      return undefined;
    }
    return value;
  }

  private setEnabled(name: string, enabled: boolean): ToggleResult {
    this.registry[enabled ? 'enable' : 'disable'](name);
    this.toggles.set(name, enabled);
    this.fireChange();
    return { ok: true };
  }

  private fireChange(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch (error) {
        this.logger?.error(`A tool change listener failed: ${(error as Error).message}`);
      }
    }
  }
}

function memoryToggles(): ToggleStore {
  const state = new Map<string, boolean>();
  return { get: (name) => state.get(name), set: (name, enabled) => void state.set(name, enabled) };
}

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value} (${JSON.stringify(value)})`;
}

/** The manifest name nearest to a misspelt one, when it is close enough to be a likely typo. */
function closestName(name: string): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const candidate of BUILTIN_NAMES) {
    const distance = editDistance(name.toLowerCase(), candidate);
    if (distance < bestDistance) [best, bestDistance] = [candidate, distance];
  }
  return bestDistance <= Math.max(2, Math.floor(name.length / 4)) ? best : undefined;
}

function editDistance(a: string, b: string): number {
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
