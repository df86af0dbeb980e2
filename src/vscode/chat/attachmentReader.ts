import { promises as fs } from 'node:fs';
import * as vscode from 'vscode';
import { ATTACHMENT_LIMITS, capAttachment, type CappedAttachment } from '../../chat/attachments';
import { looksBinary, openRegularFile } from '../../tools/fileSystem';
import { sensitiveReadQuestion } from '../../tools/sensitiveFiles';
import type { FileIdentity } from '../../tools/sensitiveLinks';
import type { ConfirmationRequest, ToolContext } from '../../tools/types';
import { PathRefusedError, resolveWorkspacePath, WorkspacePathError } from '../../tools/workspacePaths';

/** What the person picked: a file, or a selection in one (with the editor's text, saved or not). */
export interface AttachmentTarget {
  kind: 'file' | 'selection';
  uri: vscode.Uri;
  /** An open editor's text (what the person sees); without it the file is read from disk. */
  text?: string;
  range?: { start: number; end: number };
}

/** Bytes read from the start of a file: enough for read_file's character cap in any UTF-8. */
const HEAD_BYTES = ATTACHMENT_LIMITS.itemChars * 4;

/**
 * Reads one attachment the way read_file reads: the path through the workspace guard (inside
 * the workspace, symlinks resolved, no FIFOs), a file matching toolbelt.tools.sensitiveFiles only
 * after the person says so, binary files refused; then capped (src/chat/attachments.ts).
 */
export async function readAttachment(
  tools: ToolContext,
  target: AttachmentTarget,
  usedChars: number,
  ask: (request: ConfirmationRequest) => Promise<boolean> = askBeforeAttaching,
): Promise<CappedAttachment> {
  const { kind, uri, text, range } = target;
  if (uri.scheme === 'untitled' && text !== undefined) {
    return capAttachment({ kind, path: uri.path, range, text, complete: true }, usedChars);
  }
  if (uri.scheme !== 'file') return { ok: false, reason: `${uri.toString(true)} is not a file on disk; only workspace files can be attached.` };
  try {
    const resolved = await resolveWorkspacePath(tools, uri.fsPath);
    // Asked as read_file asks (the same question), with a dialog of its own: what the person allows is what is read.
    const allowed = async (identity?: FileIdentity): Promise<boolean> => {
      const question = await sensitiveReadQuestion(tools, resolved, identity);
      if (!question) return true;
      return ask({ tool: 'attach', reason: question.reason, summary: question.summary, args: { path: resolved.display }, paths: question.paths });
    };
    const declined = { ok: false as const, reason: `Not attached: you chose not to send ${vscode.workspace.asRelativePath(uri)} to the model.` };
    if (text !== undefined) {
      // The editor's text of a file on disk: judged as that file (a hard link to .env is .env).
      if (!(await allowed(await fs.stat(resolved.absolute).catch(() => undefined)))) return declined;
      return capAttachment({ kind, path: resolved.display, range, text, complete: true }, usedChars);
    }
    const { handle, stat } = await openRegularFile(resolved);
    try {
      if (!(await allowed(stat))) return declined;
      if (await looksBinary(handle)) return capAttachment({ kind, path: resolved.display, text: '', complete: true, totalBytes: stat.size, binary: true }, usedChars);
      const head = Buffer.alloc(Math.min(stat.size, HEAD_BYTES));
      const { bytesRead } = await handle.read(head, 0, head.length, 0);
      const read = head.subarray(0, bytesRead).toString('utf8');
      return capAttachment({ kind, path: resolved.display, text: read, complete: bytesRead >= stat.size, totalBytes: stat.size }, usedChars);
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (error instanceof WorkspacePathError || error instanceof PathRefusedError) return { ok: false, reason: error.message };
    throw error;
  }
}

/** A sensitive file is attached only when the person says so, in a dialog that names why. */
async function askBeforeAttaching(request: ConfirmationRequest): Promise<boolean> {
  const file = request.paths?.[0] ?? 'This file';
  const why = /\((it matches [^)]*)\)/.exec(request.summary)?.[1] ?? 'it matches toolbelt.tools.sensitiveFiles';
  const choice = await vscode.window.showWarningMessage(
    `Attach ${file}? It may hold secrets.`,
    { modal: true, detail: `${file} is marked sensitive (${why}). Attaching it sends its content to the model.` },
    'Attach',
  );
  return choice === 'Attach';
}
