// markdown-it's fence rule for the chat: a code block carries its language and path as data
// attributes (for the header codeBlocks.ts adds) and highlighted code. Pure: an HTML string that
// markdown.ts then sanitizes.
import type MarkdownIt from 'markdown-it';
import { parseFenceInfo, pathFromFirstLine, pathFromLineBefore } from '../common/fenceInfo';
import { highlightCode } from './highlight';
import { resolveLanguage } from '../common/languages';

type Token = MarkdownIt.Token;

export interface FenceEnv {
  /** The answer is still arriving: a block without its closing fence yet is not highlighted. */
  streaming?: boolean;
  /** The source's lines, to tell a closed fence from one still open (only needed while streaming). */
  lines?: string[];
}

export function renderFence(tokens: Token[], index: number, env: FenceEnv, escape: (text: string) => string): string {
  const token = tokens[index];
  const info = parseFenceInfo(token.info ? token.info : '');
  const code = token.content;
  const path = info.path ?? pathFromFirstLine(code) ?? pathBefore(tokens, index);
  const open = env.streaming === true && !isClosed(token, env.lines);
  const highlighted = open ? undefined : highlightCode(code, info.language ?? (path ? extensionOf(path) : undefined));
  const language = highlighted?.language ?? resolveLanguage(info.language) ?? (path ? resolveLanguage(extensionOf(path)) : undefined);
  const attributes = [
    `data-lang="${escape(language?.id ?? info.language ?? '')}"`,
    `data-label="${escape(language?.label ?? info.language ?? '')}"`,
    path ? `data-path="${escape(path)}"` : '',
    highlighted ? 'data-highlighted="true"' : '',
    open ? 'data-open="true"' : '',
  ].filter(Boolean);
  const className = language ? ` class="hljs language-${escape(language.id)}"` : '';
  return `<div class="code-block" ${attributes.join(' ')}><pre><code${className}>${highlighted ? highlighted.html : escape(code)}</code></pre></div>\n`;
}

/** A path written alone on the paragraph right before the block. */
function pathBefore(tokens: Token[], index: number): string | undefined {
  const close = tokens[index - 1];
  const inline = tokens[index - 2];
  if (close?.type !== 'paragraph_close' || inline?.type !== 'inline') return undefined;
  return pathFromLineBefore(inline.content);
}

function extensionOf(path: string): string | undefined {
  const name = path.split('/').pop() ?? '';
  return /^(?:Dockerfile|Makefile)$/i.test(name) ? name.toLowerCase() : /\.([A-Za-z0-9+#]+)$/.exec(name)?.[1];
}

/** Whether the fence's closing marker has arrived: the block's last source line is one. */
function isClosed(token: Token, lines: string[] | undefined): boolean {
  if (!lines || !token.map) return false;
  const [start, end] = token.map;
  if (end - 1 <= start) return false;
  const last = /^[ \t>]*(`{3,}|~{3,})[ \t]*$/.exec(lines[end - 1] ?? '')?.[1];
  return last !== undefined && last[0] === token.markup[0] && last.length >= token.markup.length;
}
