import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';
import { renderFence, type FenceEnv } from './codeFence';

/** Markdown without raw HTML; links are checked by markdown-it and again by DOMPurify. */
const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

// No remote content: an image becomes a link to it, which the host opens only on a click.
md.renderer.rules.image = (tokens, index) => {
  const token = tokens[index];
  const src = token.attrGet('src') ?? '';
  const alt = token.content || 'image';
  return `<a href="${md.utils.escapeHtml(src)}" class="image-link">🖼 ${md.utils.escapeHtml(alt)}</a>`;
};

// Code blocks get their header's data and highlighting (codeFence.ts); wide tables their own scroller.
md.renderer.rules.fence = (tokens, index, _options, env: FenceEnv) => renderFence(tokens, index, env, md.utils.escapeHtml);
md.renderer.rules.table_open = () => '<div class="table-scroll"><table>\n';
md.renderer.rules.table_close = () => '</table></div>\n';

const ALLOWED_URI = /^(?:https?:|mailto:|#|[^:]*$)/i;

/**
 * Renders model text to sanitized HTML: no scripts, no styles, no images, no forms, safe links.
 * Highlighting happens before sanitizing, so its markup goes through DOMPurify like the rest.
 * While `streaming`, a code block whose closing fence has not arrived yet stays plain.
 */
export function renderMarkdown(text: string, options: { streaming?: boolean } = {}): string {
  const source = flattenDeepNesting(text);
  const env: FenceEnv = { streaming: options.streaming === true, lines: options.streaming ? source.split(/\r\n?|\n/) : undefined };
  return DOMPurify.sanitize(md.render(source, env), {
    FORBID_TAGS: ['style', 'img', 'svg', 'math', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'video', 'audio'],
    FORBID_ATTR: ['style', 'srcset', 'action', 'formaction'],
    ALLOWED_URI_REGEXP: ALLOWED_URI,
  });
}

/** Quote and list markers a line may open before the rest of it is shown as plain text. */
const MAX_LINE_NESTING = 20;
/** Columns of indentation before a marker beyond which it no longer nests. */
const MAX_MARKER_INDENT = 40;
const CONTAINER_MARKER = /^([ \t]*)(>|[-*+](?=[ \t]|$)|\d{1,9}[.)](?=[ \t]|$))[ \t]?/;
const FENCE = /^[ \t>]*(`{3,}|~{3,})/;

/**
 * markdown-it stops parsing at its nesting limit (100) and silently drops everything after
 * that point, so a model could hide the rest of an answer behind `> > > …` or `- - - …`.
 * Quote and list markers past a sane depth are escaped instead: they show as text, and
 * nothing after them is lost. Fenced code is left as it is.
 */
export function flattenDeepNesting(text: string): string {
  if (!/(?:[>*+-]|\d[.)])[ \t]*(?:[>*+-]|\d[.)])/.test(text) && !/\n[ \t]{40}/.test(text)) return text;
  let fence: string | undefined;
  return text
    .split('\n')
    .map((line) => {
      const opened = FENCE.exec(line)?.[1];
      if (fence) {
        if (opened && opened[0] === fence[0] && opened.length >= fence.length) fence = undefined;
        return line;
      }
      if (opened) {
        fence = opened;
        return line;
      }
      return escapeDeepMarker(line);
    })
    .join('\n');
}

function escapeDeepMarker(line: string): string {
  let position = 0;
  let markers = 0;
  let indent = 0;
  for (;;) {
    const match = CONTAINER_MARKER.exec(line.slice(position));
    if (!match) return line;
    indent += match[1].replace(/\t/g, '    ').length;
    const markerAt = position + match[1].length;
    if (markers >= MAX_LINE_NESTING || indent > MAX_MARKER_INDENT) {
      const marker = match[2];
      // `\>` `\-` `\*` `\+` and `1\.` are markdown escapes: the character shows, the structure does not.
      const at = /\d/.test(marker[0]) ? markerAt + marker.length - 1 : markerAt;
      return `${line.slice(0, at)}\\${line.slice(at)}`;
    }
    markers++;
    position += match[0].length;
  }
}
