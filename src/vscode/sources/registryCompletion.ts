import { getLocation, parseTree, findNodeAtLocation, type JSONPath } from 'jsonc-parser';
import { BUILTIN_NAMES } from '../../tools/manifest';
import { registryPath, type TextRange } from './settingsText';

// Writing `toolbelt.tools.registry` by hand: which names to offer where a "name" value is typed,
// and the quick fix for a misspelt one. Pure (no vscode import), so unit tests run in plain Node.

/** The `"name"` value of a registry entry at `offset`: the range of its text (inside the quotes) and what is typed so far. */
export function nameValueAt(text: string, offset: number, inWorkspaceFile = false): { range: TextRange; typed: string } | undefined {
  const location = getLocation(text, offset);
  const path = registryPath(inWorkspaceFile);
  const at = location.path;
  const inEntryName = at.length === path.length + 2 && path.every((key, i) => at[i] === key) && typeof at[path.length] === 'number' && at[path.length + 1] === 'name';
  // A bare string entry ("read_file") is a name too.
  const bare = at.length === path.length + 1 && path.every((key, i) => at[i] === key) && typeof at[path.length] === 'number';
  if ((!inEntryName && !bare) || location.isAtPropertyKey) return undefined;
  const node = location.previousNode;
  if (!node || node.type !== 'string' || offset <= node.offset || offset > node.offset + node.length) return { range: { offset, length: 0 }, typed: '' };
  const start = node.offset + 1;
  const closed = text[node.offset + node.length - 1] === '"' && node.length > 1;
  const end = closed ? node.offset + node.length - 1 : node.offset + node.length;
  return { range: { offset: start, length: end - start }, typed: text.slice(start, offset) };
}

/**
 * The names to offer: MCP and extension tools the catalog lists (the builtins come from the
 * settings schema), `<server>/*` for each server, none already in the registry.
 */
export function nameSuggestions(available: readonly { name: string }[], servers: readonly string[], registered: readonly string[]): string[] {
  const taken = new Set(registered);
  const builtins = new Set(BUILTIN_NAMES);
  const names = [...servers.map((server) => `${server}/*`), ...available.map((tool) => tool.name)];
  return [...new Set(names)].filter((name) => !builtins.has(name) && !taken.has(name));
}

/** The names the registry of this text holds. */
export function registeredNames(text: string, path: JSONPath = registryPath(false)): string[] {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const array = root && findNodeAtLocation(root, path);
  if (array?.type !== 'array') return [];
  return (array.children ?? []).flatMap((element) => {
    if (element.type === 'string') return [String(element.value)];
    const value = element.children?.find((p) => p.children?.[0]?.value === 'name')?.children?.[1];
    return typeof value?.value === 'string' ? [value.value] : [];
  });
}

/**
 * The edit a "did you mean …?" problem offers: the misspelt name replaced by the hint, inside the
 * problem's range (the entry's `"name": "…"` or its bare string). Undefined without a hint.
 */
export function nearNameFix(text: string, range: TextRange, message: string): (TextRange & { content: string; hint: string }) | undefined {
  const hint = /did you mean "((?:[^"\\]|\\.)+)"\?/.exec(message)?.[1];
  const wrong = /unknown tool "((?:[^"\\]|\\.)+)"/.exec(message)?.[1];
  if (!hint || wrong === undefined) return undefined;
  const inRange = text.slice(range.offset, range.offset + range.length);
  const quoted = JSON.stringify(wrong);
  const at = inRange.lastIndexOf(quoted);
  if (at === -1) return undefined;
  return { offset: range.offset + at, length: quoted.length, content: JSON.stringify(hint), hint };
}
