import type { SourceCallResult } from '../toolSource';

/** The parts of a `tools/call` result Toolbelt reads (validated by the SDK before it gets here). */
export interface McpCallResultLike {
  content?: readonly McpContentLike[];
  structuredContent?: unknown;
  isError?: boolean;
  /** Results from servers of protocol 2024-10-07. */
  toolResult?: unknown;
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
 * capped at `maxChars` with a notice saying how much was left out.
 */
export function toSourceCallResult(result: McpCallResultLike, maxChars: number): SourceCallResult {
  const parts = (result.content ?? []).map(describePart);
  const hasText = (result.content ?? []).some((p) => p.type === 'text' && p.text);
  if (!hasText && result.structuredContent !== undefined) parts.push(JSON.stringify(result.structuredContent, null, 2));
  if (parts.length === 0 && result.toolResult !== undefined) parts.push(JSON.stringify(result.toolResult, null, 2));
  const text = parts.length === 0 ? '(the tool returned no content)' : parts.join('\n');
  return { text: capText(text, maxChars), isError: result.isError === true };
}

export function capText(text: string, maxChars: number): string {
  if (text.length <= maxChars) return text;
  return `${text.slice(0, maxChars)}\n[Output truncated: showing ${maxChars.toLocaleString('en-US')} of ${text.length.toLocaleString('en-US')} characters.]`;
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

/** "12 KB" for the bytes a base64 string decodes to. */
function sizeOfBase64(data: string | undefined): string {
  const length = data?.replace(/=+$/, '').length ?? 0;
  const bytes = Math.floor((length * 3) / 4);
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
