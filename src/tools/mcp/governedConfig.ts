import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, type FormattingOptions } from 'jsonc-parser';

/*
 * VS Code starts every server of `.vscode/mcp.json` itself, so Copilot's agent reaches those tools
 * without Toolbelt's policy. Toolbelt keeps the servers it governs in a file of its own, beside it
 * and in the same format, which VS Code does not read. Moving a server there leaves Toolbelt's
 * governed path the only one.
 */

/** Toolbelt's own MCP configuration, in `.vscode/`: VS Code's format, read only by Toolbelt. */
export const GOVERNED_MCP_FILE = 'toolbelt.mcp.json';
export const GOVERNED_MCP_ORIGIN = `.vscode/${GOVERNED_MCP_FILE}`;

const FORMAT: FormattingOptions = { insertSpaces: true, tabSize: 2, eol: '\n' };

/** Whether the text of an MCP configuration file defines the server `name`. */
export function definesServer(text: string, name: string): boolean {
  const root = parseTree(text, [], { allowTrailingComma: true, disallowComments: false });
  return Boolean(root && findNodeAtLocation(root, ['servers', name]));
}

/**
 * Moves the server `name` from the text of `.vscode/mcp.json` into the text of Toolbelt's own
 * file (created when `governed` is undefined), with the inputs it refers to copied along. Both
 * files keep their other contents and comments. Throws when the server is not in `mcpJson`.
 */
export function moveServerToGoverned(mcpJson: string, governed: string | undefined, name: string): { mcpJson: string; governed: string } {
  const root = parseTree(mcpJson, [], { allowTrailingComma: true, disallowComments: false });
  const node = root && findNodeAtLocation(root, ['servers', name]);
  if (!node) throw new Error(`.vscode/mcp.json defines no server "${name}".`);
  const server: unknown = getNodeValue(node);
  const inputsNode = root && findNodeAtLocation(root, ['inputs']);
  const inputs: unknown[] = inputsNode?.type === 'array' ? (getNodeValue(inputsNode) as unknown[]) : [];
  const used = new Set([...JSON.stringify(server).matchAll(/\$\{input:([^}]*)\}/g)].map((match) => match[1]));

  let target = governed && governed.trim() !== '' ? governed : '{\n  "servers": {}\n}\n';
  target = applyEdits(target, modify(target, ['servers', name], server, { formattingOptions: FORMAT }));
  const targetRoot = parseTree(target, [], { allowTrailingComma: true, disallowComments: false });
  const existingInputs = targetRoot && findNodeAtLocation(targetRoot, ['inputs']);
  const present = new Set(
    (existingInputs?.type === 'array' ? (getNodeValue(existingInputs) as unknown[]) : []).map((input) => (input as { id?: unknown })?.id),
  );
  for (const input of inputs) {
    const id = (input as { id?: unknown })?.id;
    if (typeof id !== 'string' || !used.has(id) || present.has(id)) continue;
    target = applyEdits(target, modify(target, ['inputs', -1], input, { formattingOptions: FORMAT, isArrayInsertion: true }));
    present.add(id);
  }
  const source = applyEdits(mcpJson, modify(mcpJson, ['servers', name], undefined, { formattingOptions: FORMAT }));
  return { mcpJson: source, governed: target.endsWith('\n') ? target : `${target}\n` };
}
