import type { SourceCallResult } from '../toolSource';
import { originalLength } from './boundedJson';
import { CUT_META_KEY, type MessageCut } from './messageReader';

/** The parts of a `tools/call` result Toolbelt reads (validated by the SDK before it gets here). */
export interface McpCallResultLike {
  content?: readonly McpContentLike[];
  structuredContent?: unknown;
  isError?: boolean;
  /** Results from servers of protocol 2024-10-07. */
  toolResult?: unknown;
  /** `_meta["toolbelt/cut"]`: the message was over maxMessageBytes and cut as it arrived (messageReader.ts). */
  _meta?: Record<string, unknown>;
}

export interface McpContentLike {
  type: string;
  text?: string;
  data?: string;
  mimeType?: string;
  uri?: string;
  name?: string;
  resource?: { uri?: string; mimeType?: string; text?: string; blob?: string };
}

/**
 * Turns a `tools/call` result into the text the model reads: text parts joined; images, audio and
 * resources described (never dropped silently); `structuredContent` as JSON when there is no text;
 * at most `maxChars` characters, notice included, saying how much was left out.
 */
export function toSourceCallResult(result: McpCallResultLike, maxChars: number): SourceCallResult {
  const parts = (result.content ?? []).map(describePart);
  const hasText = (result.content ?? []).some((p) => p.type === 'text' && p.text);
  if (!hasText && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(JSON.stringify(result.toolResult, null, 2));
  const text = parts.length === 0 ? '(the tool returned no content)' : parts.join('\n');
  return { text: capText(text, maxChars, cutOf(result)), isError: result.isError === true };
}

/**
 * The text within `maxChars` characters, the notice included (so no later cap cuts it again): a
 * longer one keeps its start and says how long it was; one cut on arrival (`cut`) says how large
 * the server's message was.
 */
export function capText(text: string, maxChars: number, cut?: MessageCut): string {
  if (!cut && text.length <= maxChars) return text;
  const count = (n: number) => n.toLocaleString('en-US');
  const notice = (shown: number) =>
    cut
      ? `\n[Output truncated: the server sent ${count(cut.bytes)} bytes; ${shown === text.length ? 'Toolbelt kept part of it' : `the first ${count(shown)} characters are shown`}.]`
      : `\n[Output truncated: showing ${count(shown)} of ${count(text.length)} characters.]`;
  // The notice's length depends on the number it shows: estimate, then step to the most that fits.
  let shown = Math.max(0, Math.min(text.length, maxChars - notice(Math.min(text.length, maxChars)).length));
  while (shown < text.length && shown + 1 + notice(shown + 1).length <= maxChars) shown++;
  while (shown > 0 && shown + notice(shown).length > maxChars) shown--;
  // A cap smaller than the notice (tests) still gets the whole notice.
  return `${text.slice(0, shown)}${notice(shown)}`;
}

function cutOf(result: McpCallResultLike): MessageCut | undefined {
  const cut = result._meta?.[CUT_META_KEY] as Partial<MessageCut> | undefined;
  return cut && typeof cut.bytes === 'number' ? { bytes: cut.bytes, strings: Number(cut.strings) || 0, items: Number(cut.items) || 0, deep: Number(cut.deep) || 0 } : undefined;
}

function describePart(part: McpContentLike): string {
  switch (part.type) {
    case 'text':
      return part.text ?? '';
    case 'image':
    case 'audio':
      return `[${part.type}: ${part.mimeType ?? 'unknown type'}, ${sizeOfBase64(part.data)}]`;
    case 'resource_link':
      return `[resource link: ${part.uri ?? '?'}${part.name ? ` (${part.name})` : ''}${part.mimeType ? `, ${part.mimeType}` : ''}]`;
    case 'resource': {
      const r = part.resource ?? {};
      const head = `[resource: ${r.uri ?? '?'}${r.mimeType ? `, ${r.mimeType}` : ''}`;
      if (typeof r.text === 'string') return `${head}]\n${r.text}`;
      return `${head}, ${sizeOfBase64(r.blob)}]`;
    }
    default:
      return `[${part.type} content, not shown]`;
  }
}

/** "12 KB" for the bytes a base64 string decodes to (as long as it was before any cut on arrival). */
function sizeOfBase64(data: string | undefined): string {
  const length = data === undefined ? 0 : originalLength(data) - (/=+$/.exec(data)?.[0].length ?? 0);
  const bytes = Math.floor((length * 3) / 4);
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
