import { findNodeAtLocation, parseTree, type JSONPath, type Node } from 'jsonc-parser';

/** A place in a settings file: where a setting (or one entry of it) is written. Lines count from 1. */
export interface SettingLocation {
  offset: number;
  length: number;
  line: number;
}

/**
 * Where `setting` is written in a settings.json text (JSONC), or with `entry`, where that entry of
 * it is: an element of a list (`"rm"` in `toolbelt.runBash.deniedCommands`) or the value itself
 * (`"always"`). `scope` is the path of the object that holds settings: `[]` for settings.json,
 * `["settings"]` for a .code-workspace file. Undefined when the file does not say it (the value
 * came from elsewhere, or is the default).
 */
export function locateSetting(text: string, setting: string, entry?: string, scope: JSONPath = []): SettingLocation | undefined {
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  const value = root && findNodeAtLocation(root, [...scope, setting]);
  if (!value) return undefined;
  if (entry === undefined) return at(text, value.parent ?? value);
  const match = (node: Node) => node.type === 'string' && typeof node.value === 'string' && node.value.trim() === entry.trim();
  if (match(value)) return at(text, value);
  const element = value.type === 'array' ? value.children?.find(match) : undefined;
  return element ? at(text, element) : undefined;
}

/** The line (from 1) of a character offset. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) line++;
  return line;
}

function at(text: string, node: Node): SettingLocation {
  return { offset: node.offset, length: node.length, line: lineOf(text, node.offset) };
}
