// Context attached to a chat message: how much of it is sent, and how the model sees it.
// Pure: the host reads (through the tool core's path guard) and passes the text in.
import { MAX_ATTACHED_CHARS, type Attachment, type AttachmentChip } from '../protocol';
import { formatBytes } from '../tools/fileSystem';
import { LIMITS } from '../tools/manifest';

export interface AttachmentLimits {
  /** Lines of one attachment (read_file's page). */
  itemLines: number;
  /** Characters of one attachment (read_file's cap). */
  itemChars: number;
  /** Characters of all the attachments of one message. */
  totalChars: number;
}

/** read_file's limits for each attachment; all of a message's together at most twice that. */
export const ATTACHMENT_LIMITS: Readonly<AttachmentLimits> = Object.freeze({
  itemLines: LIMITS.readFileDefaultLines,
  itemChars: LIMITS.readFileMaxChars,
  totalChars: MAX_ATTACHED_CHARS,
});

/** What the host read for one attachment. */
export interface AttachmentSource {
  kind: 'file' | 'selection';
  /** Workspace-relative, as the model and the chip name it. */
  path: string;
  /** First and last line (1-based) of a selection. */
  range?: { start: number; end: number };
  text: string;
  /** False when only the head of a big file was read. */
  complete: boolean;
  /** The whole file's size, for the notice when only its head was read. */
  totalBytes?: number;
  /** A NUL byte near the start: read_file's test for a binary file. */
  binary?: boolean;
}

export type CappedAttachment = { ok: true; attachment: Attachment } | { ok: false; reason: string };

/**
 * One attachment within the limits: at most `itemLines` lines and `itemChars` characters, and no
 * more than what the message's attachments have left (`usedChars` are taken). What is cut says
 * so in `notice` (shown in the chip and sent with the text). Binary files are refused.
 */
export function capAttachment(source: AttachmentSource, usedChars = 0, limits: AttachmentLimits = ATTACHMENT_LIMITS): CappedAttachment {
  const name = source.range ? `${source.path}:${source.range.start}-${source.range.end}` : source.path;
  if (source.binary) {
    const size = source.totalBytes !== undefined ? ` (${formatBytes(source.totalBytes)})` : '';
    return { ok: false, reason: `${name} looks like a binary file${size}; only text can be attached.` };
  }
  const left = limits.totalChars - usedChars;
  if (left <= 0) {
    return { ok: false, reason: `${name} was not attached: this message's attachments already hold ${count(usedChars)} characters, the most one message carries. Remove one first.` };
  }
  const lines = splitLines(source.text);
  let kept = lines.slice(0, limits.itemLines);
  let why = kept.length < lines.length ? `an attachment carries at most ${count(limits.itemLines)} lines` : '';
  const charCap = Math.min(limits.itemChars, left);
  let text = kept.join('\n');
  if (text.length > charCap) {
    why = charCap === limits.itemChars ? `an attachment carries at most ${count(limits.itemChars)} characters` : `a message's attachments carry at most ${count(limits.totalChars)} characters together`;
    text = text.slice(0, charCap);
    const lastBreak = text.lastIndexOf('\n');
    if (lastBreak > 0) text = text.slice(0, lastBreak);
    kept = splitLines(text);
  }
  if (!why && !source.complete) why = `only the first ${formatBytes(Buffer.byteLength(source.text))} were read`;
  const chip: Attachment = { kind: source.kind, path: source.path, ...(source.range ? { range: source.range } : {}), content: text };
  if (!why) return { ok: true, attachment: chip };
  const first = source.range?.start ?? 1;
  const shown = `lines ${first}-${first + Math.max(kept.length, 1) - 1}`;
  const of = source.range
    ? `of the selection's ${source.range.start}-${source.range.end}`
    : source.complete
      ? `of ${count(lines.length)}`
      : `of ${source.totalBytes !== undefined ? formatBytes(source.totalBytes) : 'a longer file'}`;
  return { ok: true, attachment: { ...chip, notice: `Truncated: ${shown} ${of} attached (${why}).` } };
}

/** The text the model gets: the attachments in a delimited block, then what the person wrote. */
export function withAttachments(text: string, attachments: readonly Attachment[] = []): string {
  if (attachments.length === 0) return text;
  const blocks = attachments.map((a) => {
    const lines = a.range ? ` lines="${a.range.start}-${a.range.end}"` : '';
    const notice = a.notice ? `\n[${a.notice}]` : '';
    return `<attachment kind="${a.kind}" path="${escapeAttribute(a.path)}"${lines}>\n${a.content}${notice}\n</attachment>`;
  });
  return `The user attached ${attachments.length === 1 ? 'this' : 'these'} from the workspace (paths relative to its root):\n<attachments>\n${blocks.join('\n')}\n</attachments>\n\n${text}`;
}

/** The chips a sent message shows (without the text), ready to spread into its transcript item. */
export function chipsOf(attachments: readonly Attachment[] = []): { attachments?: AttachmentChip[] } {
  if (attachments.length === 0) return {};
  return { attachments: attachments.map(({ kind, path, range, notice }) => ({ kind, path, ...(range ? { range } : {}), ...(notice ? { notice } : {}) })) };
}

function splitLines(text: string): string[] {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

function count(n: number): string {
  return n.toLocaleString('en-US');
}

function escapeAttribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
