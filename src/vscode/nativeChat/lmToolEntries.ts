import { BUILTIN_MANIFEST, summaryOf } from '../../tools/manifest';
import type { ToolDefinition } from '../../tools/types';

/** The prefix every Toolbelt tool carries in VS Code's tool list (`toolbelt_read_file`). */
export const LM_TOOL_PREFIX = 'toolbelt_';

/** One `contributes.languageModelTools` entry, as package.json holds it. */
export interface LmToolEntry {
  name: string;
  displayName: string;
  toolReferenceName: string;
  canBeReferencedInPrompt: true;
  userDescription: string;
  modelDescription: string;
  inputSchema: unknown;
  tags: string[];
  when: string;
}

export function lmToolName(tool: string): string {
  return `${LM_TOOL_PREFIX}${tool}`;
}

/** The builtin behind a VS Code tool name, or undefined for a name that is not Toolbelt's. */
export function builtinOf(lmName: string): string | undefined {
  if (!lmName.startsWith(LM_TOOL_PREFIX)) return undefined;
  const tool = lmName.slice(LM_TOOL_PREFIX.length);
  return BUILTIN_MANIFEST.some((d) => d.name === tool) ? tool : undefined;
}

/** The context key that is true while the workspace offers `tool` to models (active, enabled, trusted). */
export function offeredContextKey(tool: string): string {
  return `toolbelt.tool.${tool}.offered`;
}

/** `read_file` → `Read File`. */
export function displayNameOf(tool: string): string {
  return tool
    .split('_')
    .map((word) => (word === 'uuid' ? 'UUID' : word.charAt(0).toUpperCase() + word.slice(1)))
    .join(' ');
}

export function lmToolEntry(definition: ToolDefinition): LmToolEntry {
  const name = lmToolName(definition.name);
  return {
    name,
    displayName: displayNameOf(definition.name),
    toolReferenceName: name,
    canBeReferencedInPrompt: true,
    userDescription: summaryOf(definition),
    modelDescription: definition.description,
    // A plain copy: the manifest is deep-frozen, package.json is data.
    inputSchema: JSON.parse(JSON.stringify(definition.parameters)) as unknown,
    tags: ['toolbelt', `toolbelt-${definition.risk}`],
    when: offeredContextKey(definition.name),
  };
}

/** What `contributes.languageModelTools` must hold: one entry per builtin, manifest order. */
export function lmToolEntries(): LmToolEntry[] {
  return BUILTIN_MANIFEST.map(lmToolEntry);
}
