import { parseTree, printParseErrorCode, type Node, type ParseError } from 'jsonc-parser';
import { lineOf } from './settingsLocations';

/*
 * Before Toolbelt edits a JSON file the person did not open (another agent's MCP configuration,
 * VS Code's mcp.json), the file must be one every reader reads alike. Text that is not JSON (with
 * comments and trailing commas, as these files allow) would be edited into something no agent can
 * read; a key named twice in one object is worse: an edit finds the first, while JSON.parse and
 * jsonc-parser's parse take the last, so Toolbelt would change one definition and agents would run
 * the other. Either is refused, naming the line.
 */

/** A file a writer refuses to edit; the message names the file and the line. */
export class UneditableJsonError extends Error {
  override name = 'UneditableJsonError';
}

const OPTIONS = { allowTrailingComma: true, disallowComments: false };

/**
 * The syntax tree of `text`, an object with every key once per object; `label` names the file in
 * errors. Throws UneditableJsonError when it is not JSON, not an object, or names a key twice.
 */
export function editableJsonTree(text: string, label: string): Node {
  const errors: ParseError[] = [];
  const root = parseTree(text, errors, OPTIONS);
  if (errors.length > 0) {
    const first = errors[0];
    throw new UneditableJsonError(`${label}:${lineOf(text, first.offset)}: the file is not JSON (${printParseErrorCode(first.error)}), so it was left as it is.`);
  }
  if (root?.type !== 'object') throw new UneditableJsonError(`${label}:1: the file does not hold a JSON object, so it was left as it is.`);
  const duplicate = firstDuplicateKey(root);
  if (duplicate) {
    throw new UneditableJsonError(
      `${label}:${lineOf(text, duplicate.again.offset)}: ${JSON.stringify(duplicate.key)} is defined twice in one object (first on line ${lineOf(text, duplicate.first.offset)}); ` +
        'agents read the last definition and an edit would change the first, so the file was left as it is. Remove one of them.',
    );
  }
  return root;
}

/** The value at `key` of the object `root`, which must be an object when present; undefined when absent. */
export function objectMember(text: string, root: Node, key: string, label: string): Node | undefined {
  const property = root.children?.find((child) => child.children?.[0]?.value === key);
  const value = property?.children?.[1];
  if (value && value.type !== 'object') throw new UneditableJsonError(`${label}:${lineOf(text, value.offset)}: ${JSON.stringify(key)} is not a JSON object, so the file was left as it is.`);
  return value;
}

/** The first key named twice in one object, anywhere in the tree (walked without recursion: nesting may be deep). */
function firstDuplicateKey(root: Node): { key: string; first: Node; again: Node } | undefined {
  const pending: Node[] = [root];
  for (let node = pending.pop(); node; node = pending.pop()) {
    if (node.type === 'object') {
      const seen = new Map<string, Node>();
      for (const property of node.children ?? []) {
        const keyNode = property.children?.[0];
        if (!keyNode || typeof keyNode.value !== 'string') continue;
        const first = seen.get(keyNode.value);
        if (first) return { key: keyNode.value, first, again: keyNode };
        seen.set(keyNode.value, keyNode);
      }
    }
    for (const child of node.children ?? []) pending.push(child);
  }
  return undefined;
}
