/** The setting the registry entries come from, named in every message about them. */
export const REGISTRY_SETTING = 'toolbelt.tools.registry';

const ENTRY_KEYS = new Set(['name', 'description']);

/** One entry of the setting, its shape checked: a name, an optional description, where it is. */
export interface RegistryEntry {
  index: number;
  /** `toolbelt.tools.registry[3]`. */
  where: string;
  name: string;
  /** The raw `description` value, not yet checked. */
  description: unknown;
}

export interface EntryMessages {
  warnings: string[];
  errors: string[];
}

/**
 * Reads one entry of `toolbelt.tools.registry`: `{name, description?}`, a bare string (read as
 * `{name}`, with a warning), extra fields (deprecated: named in a warning and ignored). Returns
 * undefined, with an error, for an entry that cannot name a tool.
 */
export function readEntry(entry: unknown, index: number, messages: EntryMessages): RegistryEntry | undefined {
  const where = `${REGISTRY_SETTING}[${index}]`;
  let record: Record<string, unknown>;
  if (typeof entry === 'string') {
    messages.warnings.push(`${where}: write "${entry}" as {"name": "${entry}"}; it was read that way.`);
    record = { name: entry };
  } else if (entry !== null && typeof entry === 'object' && !Array.isArray(entry)) {
    record = entry as Record<string, unknown>;
  } else {
    messages.errors.push(`${where} must be an object like {"name": "calculator"}, but it is ${kindOf(entry)}; it was skipped.`);
    return undefined;
  }
  const name = record.name;
  if (typeof name !== 'string' || name.trim() === '') {
    messages.errors.push(`${where} has no "name"; it was skipped.`);
    return undefined;
  }
  return { index, where, name, description: record.description };
}

/** Warns about fields other than name and description; called once the name is known to be a tool. */
export function warnAboutExtraFields(entry: unknown, read: RegistryEntry, definedBy: string, messages: EntryMessages): void {
  if (entry === null || typeof entry !== 'object') return;
  const extra = Object.keys(entry).filter((key) => !ENTRY_KEYS.has(key));
  if (extra.length === 0) return;
  messages.warnings.push(
    `${read.where} ("${read.name}"): ${extra.map((k) => `"${k}"`).join(', ')} ${extra.length === 1 ? 'is' : 'are'} deprecated and ignored; ` +
      `${definedBy} defines the tool. Write {"name": "${read.name}"} (plus an optional "description").`,
  );
}

/** The entry's description override, when it may apply: a non-empty string in a trusted workspace. */
export function descriptionOverride(read: RegistryEntry, trusted: boolean, definedBy: string, messages: EntryMessages): string | undefined {
  const value = read.description;
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value.trim() === '') {
    messages.warnings.push(`${read.where} ("${read.name}"): "description" must be a non-empty string; ${definedBy}'s description is used.`);
    return undefined;
  }
  if (!trusted) {
    messages.warnings.push(`${read.where} ("${read.name}"): the description override is ignored until you trust this workspace.`);
    return undefined;
  }
  return value;
}

export function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'symbol' || typeof value === 'function') return `a ${typeof value}`;
  return typeof value === 'object' ? 'an object' : `a ${typeof value} (${JSON.stringify(value)})`;
}
