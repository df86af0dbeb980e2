import { createHash } from 'node:crypto';
import { BUILTIN_NAMES } from './manifest';

/** The longest function name the tool-calling APIs accept (OpenAI and Gemini: 64). */
export const MODEL_NAME_MAX_LENGTH = 64;
/** VS Code's names for Toolbelt's own builtins (`toolbelt_read_file`); never another source's tool. */
export const OWN_TOOL_PREFIX = 'toolbelt_';

const HASH_LENGTH = 8;
const UNSAFE = /[^A-Za-z0-9_-]/g;

/**
 * The name a model sees for a tool: `github/create_issue` → `github_create_issue`. Every
 * character outside [A-Za-z0-9_-] becomes `_`; a name longer than 64 characters keeps its start
 * and ends in `_` plus a short hash of the whole original, so it stays the same run after run
 * and two long names that share a start still differ.
 */
export function modelNameFor(catalogName: string): string {
  const safe = catalogName.replace(UNSAFE, '_') || '_';
  if (safe.length <= MODEL_NAME_MAX_LENGTH) return safe;
  const hash = createHash('sha256').update(catalogName).digest('hex').slice(0, HASH_LENGTH);
  return `${safe.slice(0, MODEL_NAME_MAX_LENGTH - HASH_LENGTH - 1)}_${hash}`;
}

/** A name VS Code gives one of Toolbelt's own tools, e.g. `toolbelt_read_file`. */
export function isOwnToolName(name: string): boolean {
  return name.startsWith(OWN_TOOL_PREFIX);
}

/** The builtin behind one of Toolbelt's own VS Code names, when there is one (`toolbelt_read_file` → `read_file`). */
export function builtinBehindOwnName(name: string): string | undefined {
  const rest = name.slice(OWN_TOOL_PREFIX.length);
  return isOwnToolName(name) && BUILTIN_NAMES.includes(rest) ? rest : undefined;
}

export type NameClaim = { ok: true } | { ok: false; holder: string; builtin: boolean };

/**
 * Who holds which model-facing name during one resolution of the registry. The first claim
 * wins; a later one gets the holder's name back, to report both. Builtin names are reserved
 * for the builtins even when they are not registered, so adding one later changes nothing else.
 */
export class ModelNameClaims {
  private readonly holders = new Map<string, string>();

  claim(modelName: string, catalogName: string, isBuiltin: boolean): NameClaim {
    if (!isBuiltin && BUILTIN_NAMES.includes(modelName)) return { ok: false, holder: modelName, builtin: true };
    const holder = this.holders.get(modelName);
    if (holder !== undefined && holder !== catalogName) return { ok: false, holder, builtin: BUILTIN_NAMES.includes(holder) };
    this.holders.set(modelName, catalogName);
    return { ok: true };
  }
}
