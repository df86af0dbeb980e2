import DOMPurify from 'dompurify';
import MarkdownIt from 'markdown-it';

/** Markdown without raw HTML; links are checked by markdown-it and again by DOMPurify. */
const md = new MarkdownIt({ html: false, linkify: true, breaks: false });

// No remote content: an image becomes a link to it, which the host opens only on a click.
md.renderer.rules.image = (tokens, index) => {
  const token = tokens[index];
  const src = token.attrGet('src') ?? '';
  const alt = token.content || 'image';
  return `<a href="${md.utils.escapeHtml(src)}" class="image-link">🖼 ${md.utils.escapeHtml(alt)}</a>`;
};

const ALLOWED_URI = /^(?:https?:|mailto:|#|[^:]*$)/i;

/** Renders model text to sanitized HTML: no scripts, no styles, no images, no forms, safe links. */
export function renderMarkdown(text: string): string {
  return DOMPurify.sanitize(md.render(text), {
    FORBID_TAGS: ['style', 'img', 'svg', 'math', 'form', 'input', 'button', 'textarea', 'select', 'iframe', 'object', 'embed', 'video', 'audio'],
    FORBID_ATTR: ['style', 'srcset', 'action', 'formaction'],
    ALLOWED_URI_REGEXP: ALLOWED_URI,
  });
}
