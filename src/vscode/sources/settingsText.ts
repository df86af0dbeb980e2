import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, type JSONPath, type Node } from 'jsonc-parser';

// Pure text edits of `toolbelt.tools.registry` in a settings.json (or a .code-workspace's
// "settings"): no vscode import, so the unit tests run in plain Node. Every edit touches only the
// entry it is about; the other entries, their layout and the comments stay as the person wrote them.

export const REGISTRY_SETTING = 'toolbelt.tools.registry';

/** Where the registry lives in the file: top level of settings.json, under "settings" in a workspace file. */
export function registryPath(inWorkspaceFile: boolean): JSONPath {
  return inWorkspaceFile ? ['settings', REGISTRY_SETTING] : [REGISTRY_SETTING];
}

export interface TextRange {
  offset: number;
  length: number;
}

/** The range of a tool's entry: its `"name": "…"` property, or the string when the entry is a bare name. */
export function locateEntry(text: string, name: string, path: JSONPath = registryPath(false)): TextRange | undefined {
  const array = registryArray(text, path);
  for (const element of array?.children ?? []) {
    const found = nameNode(element);
    if (found?.value === name) return { offset: found.node.offset, length: found.node.length };
  }
  return undefined;
}

/**
 * Appends `{"name": …}` for each name not in the registry yet, in the layout of the entry before it.
 * When the file has no registry, it is created from `startFrom` (what the person has at user level) plus the names.
 */
export function addEntries(text: string, names: readonly string[], path: JSONPath = registryPath(false), startFrom: readonly unknown[] = []): string {
  let result = text;
  for (const name of names) {
    const array = registryArray(result, path);
    if (array?.children?.some((element) => nameNode(element)?.value === name)) continue;
    if (!array || !array.children?.length) {
      const base = array ? [] : startFrom.filter((entry) => nameOf(entry) !== name);
      result = fillEmptyArray(result, path, [...base, { name }]);
      continue;
    }
    result = appendElement(result, array, { name });
  }
  return result;
}

/** Removes every entry naming `name`; the text is returned unchanged when there is none. */
export function removeEntries(text: string, name: string, path: JSONPath = registryPath(false)): string {
  let result = text;
  for (;;) {
    const array = registryArray(result, path);
    const children = array?.children ?? [];
    const index = children.findIndex((element) => nameNode(element)?.value === name);
    if (!array || index === -1) return result;
    if (children.length === 1) {
      result = splice(result, array.offset + 1, array.length - 2, '');
    } else if (index < children.length - 1) {
      // The entry, its comma and what separates it from the next one (its own trailing comment included).
      result = splice(result, children[index].offset, children[index + 1].offset - children[index].offset, '');
    } else {
      const previousEnd = end(children[index - 1]);
      result = splice(result, previousEnd, end(children[index]) - previousEnd, '');
    }
  }
}

/** Sets (or with undefined removes) the description of the first entry naming `name`, rewriting only that entry. */
export function setEntryDescription(text: string, name: string, description: string | undefined, path: JSONPath = registryPath(false)): string | undefined {
  const array = registryArray(text, path);
  const element = array?.children?.find((child) => nameNode(child)?.value === name);
  if (!element) return undefined;
  const entry: Record<string, unknown> = { name };
  if (element.type === 'object') {
    for (const property of element.children ?? []) {
      const [key, value] = property.children ?? [];
      if (key && value && key.value !== 'name' && key.value !== 'description') entry[String(key.value)] = getNodeValue(value);
    }
  }
  if (description !== undefined) entry.description = description;
  return splice(text, element.offset, element.length, entryText(text, element, entry));
}

/** The one edit that turns `before` into `after` (common prefix and suffix left out), for an editor's undo stack. */
export function minimalEdit(before: string, after: string): TextRange & { content: string } {
  let start = 0;
  while (start < before.length && start < after.length && before[start] === after[start]) start++;
  let tail = 0;
  while (tail < before.length - start && tail < after.length - start && before[before.length - 1 - tail] === after[after.length - 1 - tail]) tail++;
  return { offset: start, length: before.length - start - tail, content: after.slice(start, after.length - tail) };
}

function registryArray(text: string, path: JSONPath): Node | undefined {
  const root = parseTree(text, [], { allowTrailingComma: true });
  const node = root && findNodeAtLocation(root, path);
  return node?.type === 'array' ? node : undefined;
}

function nameNode(element: Node): { node: Node; value: unknown } | undefined {
  if (element.type === 'string') return { node: element, value: element.value };
  if (element.type !== 'object') return undefined;
  const property = element.children?.find((p) => p.children?.[0]?.value === 'name');
  const value = property?.children?.[1];
  return property && value ? { node: property, value: value.value } : undefined;
}

function nameOf(entry: unknown): string | undefined {
  if (typeof entry === 'string') return entry;
  if (entry && typeof entry === 'object' && typeof (entry as { name?: unknown }).name === 'string') return (entry as { name: string }).name;
  return undefined;
}

/** Adds an element after the array's last one, on a line of its own when the last one has one. */
function appendElement(text: string, array: Node, entry: Record<string, unknown>): string {
  const last = array.children![array.children!.length - 1];
  const lastEnd = end(last);
  const ownLine = lineIndent(text, last.offset) !== undefined;
  const model = [...array.children!].reverse().find((child) => child.type === 'object');
  const content = entryText(text, model ?? last, entry);
  if (!ownLine) return splice(text, lastEnd, 0, `, ${content}`);
  // A comment after the last entry stays with it: the new entry goes on the next line.
  const lineEnd = endOfLineAfter(text, lastEnd);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const withNewLine = splice(text, lineEnd, 0, `${eol}${lineIndent(text, last.offset)}${content}`);
  return splice(withNewLine, lastEnd, 0, ',');
}

/** An entry written the way `model` (a neighbouring entry) is written: on one line or spread over several. */
function entryText(text: string, model: Node, entry: Record<string, unknown>): string {
  const modelText = text.slice(model.offset, end(model));
  if (model.type !== 'object') return oneLine(entry, ': ', '');
  if (!modelText.includes('\n')) return oneLine(entry, /":\s/.test(modelText) ? ': ' : ':', /^\{\s/.test(modelText) ? ' ' : '');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const outer = lineIndent(text, model.offset) ?? '';
  const firstProperty = model.children?.[0];
  const inner = (firstProperty && lineIndent(text, firstProperty.offset)) ?? `${outer}  `;
  const lines = Object.entries(entry).map(([key, value]) => `${inner}${JSON.stringify(key)}: ${JSON.stringify(value)}`);
  return `{${eol}${lines.join(`,${eol}`)}${eol}${outer}}`;
}

function oneLine(entry: Record<string, unknown>, colon: string, padding: string): string {
  const properties = Object.entries(entry).map(([key, value]) => `${JSON.stringify(key)}${colon}${JSON.stringify(value)}`);
  return `{${padding}${properties.join(colon === ':' ? ',' : ', ')}${padding}}`;
}

/** The indentation of the line `offset` is on, when only whitespace comes before it; otherwise undefined. */
function lineIndent(text: string, offset: number): string | undefined {
  const lineStart = text.lastIndexOf('\n', offset - 1) + 1;
  const before = text.slice(lineStart, offset);
  return /^[ \t]*$/.test(before) ? before : undefined;
}

/** The end of the line after `offset` when only whitespace and a `//` comment follow; else `offset` itself. */
function endOfLineAfter(text: string, offset: number): number {
  const match = /^[ \t]*(\/\/[^\r\n]*)?/.exec(text.slice(offset));
  const lineEnd = offset + (match?.[0].length ?? 0);
  return /^(\r?\n|$)/.test(text.slice(lineEnd)) ? lineEnd : offset;
}

/**
 * Writes entries into an empty (or a new) registry array, one entry per line, each entry on one
 * line: `{ "name": "read_file" }`. Diffs stay one line per tool, as a person writes them.
 */
function fillEmptyArray(text: string, path: JSONPath, entries: readonly unknown[]): string {
  const withArray = registryArray(text, path) ? text : replaceValue(text, path, []);
  const array = registryArray(withArray, path);
  if (!array) return replaceValue(text, path, entries);
  const eol = withArray.includes('\r\n') ? '\r\n' : '\n';
  const lineStart = withArray.lastIndexOf('\n', array.offset - 1) + 1;
  const outer = /^[ \t]*/.exec(withArray.slice(lineStart))?.[0] ?? '';
  const unit = /^\t/m.test(withArray) ? '\t' : ' '.repeat(/^( +)"/m.exec(withArray)?.[1].length ?? 2);
  const lines = entries.map((entry) => `${outer}${unit}${entryLine(entry)}`);
  return splice(withArray, array.offset, array.length, `[${eol}${lines.join(`,${eol}`)}${eol}${outer}]`);
}

function entryLine(entry: unknown): string {
  if (!entry || typeof entry !== 'object' || Array.isArray(entry)) return JSON.stringify(entry);
  return oneLine(entry as Record<string, unknown>, ': ', ' ');
}

function replaceValue(text: string, path: JSONPath, value: unknown): string {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const tabs = /^\t/m.test(text);
  const indent = /^( +)"/m.exec(text)?.[1].length ?? 2;
  const source = text.trim() ? text : '{}';
  return applyEdits(source, modify(source, path, value, {
    formattingOptions: { insertSpaces: !tabs, tabSize: tabs ? 1 : indent, eol },
    // First in its object: after the last property jsonc-parser would slip in before that line's comment.
    getInsertionIndex: () => 0,
  }));
}

function end(node: Node): number {
  return node.offset + node.length;
}

function splice(text: string, offset: number, length: number, content: string): string {
  return text.slice(0, offset) + content + text.slice(offset + length);
}
