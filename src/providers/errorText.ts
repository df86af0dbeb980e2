/**
 * Turns whatever a server sent (JSON, HTML, plain text, binary junk, terminal escapes) into a
 * short line a person or a model can read. Every ProviderError message passes through
 * `boundedText`, so no error can flood the chat, whatever path produced it.
 */

/** The longest provider error message shown to a person or sent to a model. */
export const MAX_ERROR_MESSAGE_CHARS = 500;
/** The longest part of a server's reply quoted inside an error message. */
export const MAX_ERROR_DETAIL_CHARS = 300;
/** How much of an error body is read at all; the rest is never downloaded. */
export const MAX_ERROR_BODY_BYTES = 64 * 1024;

const LONGEST_WORD = 80;
// CSI (ESC [ … final), OSC (ESC ] … BEL or ESC \) and two-character escapes.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ANSI = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)?|\u001b[@-Z\\-_]/g;
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;

/** The readable gist of an error body: a JSON error's message, an HTML page's title or first text, or the text itself. */
export function describeBody(body: string): string {
  if (!body) return '';
  const text = body.length > MAX_ERROR_BODY_BYTES ? body.slice(0, MAX_ERROR_BODY_BYTES) : body;
  if (looksBinary(text)) return `(${body.length} bytes of binary data)`;
  const trimmed = text.trimStart();
  if (trimmed.startsWith('{') || trimmed.startsWith('[')) {
    const message = jsonMessage(trimmed);
    if (message !== undefined) return boundedText(message, MAX_ERROR_DETAIL_CHARS);
  }
  if (/^<(!doctype|html|head|body|\?xml)|<\/(html|body|div|p|h1|title)>/i.test(trimmed)) return boundedText(htmlGist(trimmed), MAX_ERROR_DETAIL_CHARS);
  return boundedText(text, MAX_ERROR_DETAIL_CHARS);
}

/** One line of printable text, long words shortened, at most `max` characters. */
export function boundedText(text: string, max = MAX_ERROR_MESSAGE_CHARS): string {
  // Cut first (generously): the cleaning below is linear, but need not run over megabytes.
  let clean = (text.length > max * 4 ? text.slice(0, max * 4) : text)
    .replace(ANSI, '')
    .replace(CONTROL, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  clean = clean.replace(new RegExp(`\\S{${LONGEST_WORD + 1},}`, 'g'), (word) => `${word.slice(0, LONGEST_WORD)}…`);
  return clean.length > max ? `${clean.slice(0, max - 1).trimEnd()}…` : clean;
}

function jsonMessage(text: string): string | undefined {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    // A cut or broken JSON body: take the first "message" string it holds.
    const match = /"(?:message|error_description|detail|error)"\s*:\s*"((?:[^"\\]|\\.){0,2000})/.exec(text);
    return match ? unescapeJson(match[1]) : undefined;
  }
  const record = (Array.isArray(parsed) ? parsed[0] : parsed) as Record<string, unknown> | null;
  if (!record || typeof record !== 'object') return typeof parsed === 'string' ? parsed : undefined;
  const error = record.error as Record<string, unknown> | string | undefined;
  for (const candidate of [typeof error === 'object' && error ? error.message : error, record.message, record.detail, record.error_description]) {
    if (typeof candidate === 'string' && candidate.trim()) return candidate;
  }
  return undefined;
}

function unescapeJson(text: string): string {
  try {
    return JSON.parse(`"${text.replace(/\\$/, '')}"`) as string;
  } catch {
    return text;
  }
}

function htmlGist(html: string): string {
  const title = /<title[^<>]*>([^<]{0,2000})<\/title>/i.exec(html)?.[1];
  if (title && decodeEntities(title).trim()) return decodeEntities(title);
  // Drop script, style and head contents with indexOf (a lazy regex would be quadratic on unclosed tags).
  const lower = html.toLowerCase();
  let text = '';
  let at = 0;
  for (;;) {
    const open = /<(script|style|head)\b/g;
    open.lastIndex = at;
    const found = open.exec(lower);
    if (!found) break;
    text += html.slice(at, found.index) + ' ';
    const close = lower.indexOf(`</${found[1]}`, found.index);
    if (close < 0) {
      at = html.length;
      break;
    }
    const end = lower.indexOf('>', close);
    at = end < 0 ? html.length : end + 1;
  }
  text += html.slice(at);
  return decodeEntities(text.replace(/<[^<>]*>?/g, ' '));
}

function decodeEntities(text: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };
  return text.replace(/&(#\d{1,7}|#x[0-9a-f]{1,6}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] !== '#') return named[name.toLowerCase()] ?? whole;
    const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
    return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : ' ';
  });
}

/** Mostly unprintable (NUL bytes, control codes, undecodable bytes): not worth quoting. */
function looksBinary(text: string): boolean {
  const sample = text.slice(0, 2000);
  if (sample.includes('\u0000')) return true;
  // eslint-disable-next-line no-control-regex -- matching control characters is the point
  const junk = sample.match(/[\u0001-\u0008\u000e-\u001a\u001c-\u001f\u007f-\u009f\ufffd]/g)?.length ?? 0;
  return junk > sample.length * 0.1;
}
