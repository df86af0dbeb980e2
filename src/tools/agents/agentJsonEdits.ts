import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, type JSONPath, type Node } from 'jsonc-parser';
import { isToolbeltEntry, type AgentId, type JsonFileSpec } from './agentHookFiles';
import { editableJsonTree, objectMember, UneditableJsonError } from '../editableJson';

/*
 * The JSON edits of `toolbelt agents install | uninstall`: Toolbelt's entries merged into an agent's
 * file as it is (the person's entries, keys and comments kept) and taken out again, and whether
 * they are all there. The files themselves are planned in agentHookFiles.ts.
 */

const FORMAT = { formattingOptions: { insertSpaces: true, tabSize: 2, eol: '\n' } };

function edit(text: string, path: JSONPath, value: unknown, insert = false): string {
  return applyEdits(text, modify(text, path, value, { ...FORMAT, ...(insert ? { isArrayInsertion: true } : {}) }));
}

function tree(text: string): Node | undefined {
  return parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
}

function nodeAt(text: string, path: JSONPath): Node | undefined {
  const root = tree(text);
  return root && findNodeAtLocation(root, path);
}

function valueAt(text: string, path: JSONPath): unknown {
  const node = nodeAt(text, path);
  return node ? getNodeValue(node) : undefined;
}

/** Checks that each object on the way to `path` is an object (or absent), so an edit cannot turn the person's value into something else. */
function checkShape(text: string, root: Node, path: JSONPath, leaf: 'array' | 'any', label: string): void {
  let node: Node | undefined = root;
  for (let i = 0; i < path.length; i++) {
    const key = path[i] as string;
    if (!node || node.type !== 'object') return;
    const isLast = i === path.length - 1;
    if (!isLast) {
      node = objectMember(text, node, key, label);
      continue;
    }
    const property = node.children?.find((child) => child.children?.[0]?.value === key);
    const value = property?.children?.[1];
    if (value && leaf === 'array' && value.type !== 'array') throw new UneditableJsonError(`${label}: "${path.join('.')}" is not a list, so the file was left as it is.`);
  }
}

/** Drops Toolbelt's entries from the array at `path`, last first. */
function withoutOurEntries(agent: AgentId, text: string, path: JSONPath): string {
  const node = nodeAt(text, path);
  if (node?.type !== 'array') return text;
  const indexes = (node.children ?? []).map((child, i) => (isToolbeltEntry(agent, getNodeValue(child)) ? i : -1)).filter((i) => i >= 0);
  for (const index of indexes.reverse()) text = edit(text, [...path, index], undefined);
  return text;
}

function appendTo(text: string, path: JSONPath, value: unknown): string {
  const node = nodeAt(text, path);
  if (node?.type !== 'array') return edit(text, path, [value]);
  return edit(text, [...path, node.children?.length ?? 0], value, true);
}

/**
 * The file with Toolbelt's entries as the policy has them now: its old hook entries replaced by one
 * (twice is once), its values set, its list entries added; the person's entries, keys and comments
 * kept. `existing`: the file's text, undefined when there is none. Throws UneditableJsonError when
 * the file is not JSON, names a key twice, or holds something else where an entry goes.
 */
export function installJson(agent: AgentId, spec: JsonFileSpec, existing: string | undefined, backup?: string): string {
  let text = existing !== undefined && existing.trim() !== '' ? existing : '{}\n';
  const root = editableJsonTree(text, spec.file);
  for (const hook of spec.hooks) checkShape(text, root, hook.path, 'array', spec.file);
  for (const list of spec.lists) checkShape(text, root, list.path, 'array', spec.file);
  for (const value of spec.values) checkShape(text, root, value.path, 'any', spec.file);
  for (const value of spec.defaults) if (valueAt(text, value.path) === undefined) text = edit(text, value.path, value.value);
  for (const hook of spec.hooks) text = appendTo(withoutOurEntries(agent, text, hook.path), hook.path, hook.entry);
  for (const value of spec.values) if (JSON.stringify(valueAt(text, value.path)) !== JSON.stringify(value.value)) text = edit(text, value.path, value.value);
  text = withoutRetired(text, spec, backup);
  for (const list of spec.lists) {
    text = withoutAddedItems(text, list.path, backup, new Set(list.items));
    const current = valueAt(text, list.path);
    const have = new Set(Array.isArray(current) ? current : []);
    for (const item of list.items) if (!have.has(item)) text = appendTo(text, list.path, item);
    if (current === undefined && list.items.length === 0 && list.empty) text = edit(text, list.path, []);
    const left = valueAt(text, list.path);
    const hadList = backup !== undefined && valueAt(backup, list.path) !== undefined;
    if (!list.empty && Array.isArray(left) && left.length === 0 && !hadList) text = edit(text, list.path, undefined);
  }
  return text.endsWith('\n') ? text : `${text}\n`;
}

/**
 * The file with what install added taken out: Toolbelt's hook entries, the values it set (while
 * they still hold what it wrote), the list entries it would write now or that the file before the
 * first install (`backup`) did not have, and the objects it created that are left empty. Returns
 * undefined when nothing but an empty object is left of a file install created.
 */
export function uninstallJson(agent: AgentId, spec: JsonFileSpec, existing: string, backup: string | undefined): string | undefined {
  let text = existing;
  editableJsonTree(text, spec.file);
  const before = backup !== undefined ? backup : '{}';
  const hadBefore = (path: JSONPath) => backup !== undefined && valueAt(before, path) !== undefined;
  for (const hook of spec.hooks) text = withoutOurEntries(agent, text, hook.path);
  for (const value of spec.values) {
    if (JSON.stringify(valueAt(text, value.path)) !== JSON.stringify(value.value)) continue;
    const old = valueAt(before, value.path);
    text = edit(text, value.path, backup !== undefined && old !== undefined ? old : undefined);
  }
  for (const list of spec.lists) text = withoutAddedItems(text, list.path, backup, new Set());
  text = withoutRetired(text, spec, backup);
  // What install created and is now empty goes, innermost first.
  const containers = new Set<string>();
  for (const path of [...spec.hooks.map((h) => h.path), ...spec.lists.map((l) => l.path), ...spec.values.map((v) => v.path.slice(0, -1))]) {
    for (let n = path.length; n > 0; n--) containers.add(JSON.stringify(path.slice(0, n)));
  }
  const ordered = [...containers].map((p) => JSON.parse(p) as JSONPath).sort((a, b) => b.length - a.length);
  for (const path of ordered) {
    const node = nodeAt(text, path);
    if (node && (node.type === 'object' || node.type === 'array') && (node.children?.length ?? 0) === 0 && !hadBefore(path)) text = edit(text, path, undefined);
  }
  const rest = tree(text);
  const onlyDefaults = rest?.type === 'object' && (rest.children ?? []).every((property) => spec.defaults.some((d) => d.path.length === 1 && d.path[0] === property.children?.[0]?.value));
  if (onlyDefaults && backup === undefined) return undefined;
  if (onlyDefaults) for (const value of spec.defaults) if (!hadBefore(value.path)) text = edit(text, value.path, undefined);
  // Back to the file as it was, but for its layout (an edit reflows an object it touched): the file as it was.
  if (backup !== undefined && withoutSpace(text) === withoutSpace(backup)) return backup;
  return text.endsWith('\n') ? text : `${text}\n`;
}

/** The file without the values Toolbelt wrote under another policy (while they still hold them, and the file before install had none there). */
function withoutRetired(text: string, spec: JsonFileSpec, backup: string | undefined): string {
  for (const value of spec.retired) {
    const had = backup !== undefined && valueAt(backup, value.path) !== undefined;
    if (!had && JSON.stringify(valueAt(text, value.path)) === JSON.stringify(value.value)) text = edit(text, value.path, undefined);
  }
  return text;
}

function withoutSpace(text: string): string {
  return text.replace(/\s+/g, '');
}

/**
 * The list at `path` without the string entries the file did not have before the first install
 * (`backup`; none when install created the file), except those in `keep`: Toolbelt's entries from
 * an older policy go, and so would an entry added by hand since (the person's own belong in the
 * agent's local settings file, which Toolbelt never edits).
 */
function withoutAddedItems(text: string, path: JSONPath, backup: string | undefined, keep: ReadonlySet<string>): string {
  const node = nodeAt(text, path);
  if (node?.type !== 'array') return text;
  const old = backup !== undefined ? valueAt(backup, path) : undefined;
  const before = new Set(Array.isArray(old) ? old : []);
  const indexes = (node.children ?? []).map((child, i) => {
    const item: unknown = getNodeValue(child);
    return typeof item === 'string' && !before.has(item) && !keep.has(item) ? i : -1;
  });
  for (const index of indexes.filter((i) => i >= 0).reverse()) text = edit(text, [...path, index], undefined);
  return text;
}

/** Whether the file holds Toolbelt's hook entries exactly as install writes them, under every event. */
export function hookInstalled(spec: JsonFileSpec, text: string | undefined): boolean {
  if (text === undefined) return false;
  try {
    editableJsonTree(text, spec.file);
  } catch {
    return false;
  }
  return spec.hooks.every((hook) => {
    const entries = valueAt(text, hook.path);
    return Array.isArray(entries) && entries.some((entry) => JSON.stringify(entry) === JSON.stringify(hook.entry));
  });
}
