import { applyEdits, findNodeAtLocation, getNodeValue, modify, parseTree, type FormattingOptions } from 'jsonc-parser';
import { editableJsonTree, objectMember } from '../editableJson';
import { readFolderFile, resolveFolderFile, writeFolderFile } from '../folderFiles';

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

const MCP_JSON = '.vscode/mcp.json';

/**
 * Moves the server `name` from the text of `.vscode/mcp.json` into the text of Toolbelt's own
 * file (created when `governed` is undefined), with the inputs it refers to copied along. Both
 * files keep their other contents and comments. Throws when the server is not in `mcpJson`, and
 * (UneditableJsonError, naming the line) when either file is not JSON or names a key twice: a
 * second definition of the server left in mcp.json would still be started by VS Code.
 */
export function moveServerToGoverned(mcpJson: string, governed: string | undefined, name: string): { mcpJson: string; governed: string } {
  const root = editableJsonTree(mcpJson, MCP_JSON);
  const servers = objectMember(mcpJson, root, 'servers', MCP_JSON);
  const node = servers && findNodeAtLocation(root, ['servers', name]);
  if (!node) throw new Error(`${MCP_JSON} defines no server "${name}".`);
  const server: unknown = getNodeValue(node);
  const inputsNode = findNodeAtLocation(root, ['inputs']);
  const inputs: unknown[] = inputsNode?.type === 'array' ? (getNodeValue(inputsNode) as unknown[]) : [];
  const used = new Set([...JSON.stringify(server).matchAll(/\$\{input:([^}]*)\}/g)].map((match) => match[1]));

  let target = governed && governed.trim() !== '' ? governed : '{\n  "servers": {}\n}\n';
  const targetRoot = editableJsonTree(target, GOVERNED_MCP_ORIGIN);
  objectMember(target, targetRoot, 'servers', GOVERNED_MCP_ORIGIN);
  const existingInputs = findNodeAtLocation(targetRoot, ['inputs']);
  target = applyEdits(target, modify(target, ['servers', name], server, { formattingOptions: FORMAT }));
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

/**
 * Moves the server `name` of `folder`'s `.vscode/mcp.json` into Toolbelt's own file there, on
 * disk. False when that folder's mcp.json does not define it. Both files are resolved on their
 * real paths: a link leading out of the folder is refused, and nothing is written. Toolbelt's file
 * is written first (a copy left behind in mcp.json loses to it).
 */
export async function moveServerInFolder(folder: string, name: string): Promise<boolean> {
  const source = await resolveFolderFile(folder, MCP_JSON);
  const text = await readFolderFile(source);
  if (text === undefined || !definesServer(text, name)) return false;
  const governedFile = await resolveFolderFile(folder, GOVERNED_MCP_ORIGIN);
  const moved = moveServerToGoverned(text, await readFolderFile(governedFile), name);
  await writeFolderFile(folder, governedFile, moved.governed);
  await writeFolderFile(folder, source, moved.mcpJson);
  return true;
}
