import { openRegularFile, writeFileAtomic } from './fileSystem';
import type { ToolContext } from './types';
import { PathRefusedError, resolveWorkspacePath, type ResolvedPath } from './workspacePaths';

/*
 * The files Toolbelt writes into a workspace folder on the person's behalf (another agent's MCP
 * configuration, VS Code's mcp.json and Toolbelt's own). A repository can check in a link in
 * their place — `.mcp.json -> ~/.config/…`, `.cursor -> elsewhere` — so each is resolved on its
 * real path, the way the file tools resolve a model's path, and refused when a link leads it out
 * of the folder. The write goes to that real path through a temp file and a rename, so a hard
 * link or a link put there since is replaced, not written through.
 */

/** Where `relative` (e.g. `.cursor/mcp.json`) really is inside `folder`; PathRefusedError when a link leads out of it. */
export function resolveFolderFile(folder: string, relative: string): Promise<ResolvedPath> {
  const context: ToolContext = { systemPrompt: '', sessionContext: '', sessionContextFilePath: '', workspaceRoot: folder };
  return resolveWorkspacePath(context, relative);
}

/** The text of a resolved file, undefined when there is none; a FIFO, device or folder there is refused. */
export async function readFolderFile(target: ResolvedPath): Promise<string | undefined> {
  if (!target.exists) return undefined;
  const { handle } = await openRegularFile(target);
  try {
    return await handle.readFile('utf8');
  } finally {
    await handle.close();
  }
}

/**
 * Writes `text` to the file `target` resolved to in `folder`, after resolving it again: when a
 * folder or link on the way changed since (a person may have taken minutes to confirm), nothing is written.
 */
export async function writeFolderFile(folder: string, target: ResolvedPath, text: string): Promise<void> {
  const again = await resolveFolderFile(folder, target.input);
  if (again.absolute !== target.absolute) throw new PathRefusedError(`"${target.display}" changed on disk since it was read (a folder or link on the way was replaced); it was not written.`);
  await writeFileAtomic(target.absolute, text);
}
