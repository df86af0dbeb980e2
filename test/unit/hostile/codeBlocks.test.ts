import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { renderFence, type FenceEnv } from '../../../src/webview/codeFence';
import { highlightCode } from '../../../src/webview/highlight';

/** The renderer markdown.ts uses, without DOMPurify (which needs a browser; the e2e test covers it). */
function render(text: string, env: FenceEnv = {}): string {
  const md = new MarkdownIt({ html: false, linkify: true });
  md.renderer.rules.fence = (tokens, index, _options, fenceEnv: FenceEnv) => renderFence(tokens, index, fenceEnv, md.utils.escapeHtml);
  return md.render(text, { ...env, lines: text.split('\n') });
}

/** Every tag in `html`, with its attributes. */
function tags(html: string): string[] {
  return [...html.matchAll(/<\/?[a-zA-Z][^>]*>/g)].map((m) => m[0]);
}

const HOSTILE_CODE = [
  '<script>window.__pwned = 1</script>',
  '<img src=x onerror="window.__pwned = 2">',
  '</code></pre><iframe src="https://evil.example"></iframe>',
  '"><svg onload=alert(1)>',
  '&lt;script&gt; &amp; &#x3C;b&#x3E;',
  '<span class="hljs-keyword" onclick="alert(1)">x</span>',
  '\u202Eexe.txt\u202C',
].join('\n');

describe('Hostile code blocks: highlighting adds spans and nothing else', () => {
  for (const language of ['html', 'xml', 'markdown', 'ts', 'js', 'bash', 'python', 'json', 'diff', 'css']) {
    it(`${language}: the model's markup stays text; the only tags are hljs spans (and sub-language spans)`, () => {
      const result = highlightCode(HOSTILE_CODE, language);
      assert.ok(result, `${language} highlighted`);
      for (const tag of tags(result.html)) assert.match(tag, /^(?:<span class="(?:hljs-[\w\- .]+|language-[\w-]+)">|<\/span>)$/, `${language}: ${tag}`);
      assert.doesNotMatch(result.html, /<script|<img|<iframe|<svg/i);
      const text = result.html.replace(/<[^>]+>/g, '').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, '&');
      assert.equal(text, HOSTILE_CODE, 'the text shown is the code, character for character');
    });
  }

  it('a hostile info string and path end up escaped inside attributes', () => {
    const html = render('```ts" onmouseover="alert(1) x"><script>alert(2)</script>\nlet a = 1;\n```\n');
    assert.doesNotMatch(html, /<script/);
    for (const tag of tags(html)) assert.doesNotMatch(tag, /\sonmouseover=/, tag);
    const pathHtml = render('**a"onclick="x.ts**\n\n```ts\nlet a = 1;\n```\n');
    for (const tag of tags(pathHtml)) assert.doesNotMatch(tag, /\sonclick=/, tag);
  });

  it('a fence whose code closes the block early cannot break out of it', () => {
    const html = render('```html\n</code></pre></div><script>alert(1)</script>\n```\n');
    assert.equal((html.match(/<\/pre>/g) ?? []).length, 1);
    assert.doesNotMatch(html, /<script/);
  });

  it('a huge block is escaped, not highlighted, and still safe', () => {
    const huge = `${'<b>bold</b> '.repeat(20_000)}\n`;
    const html = render(`\`\`\`html\n${huge}\`\`\`\n`);
    assert.doesNotMatch(html, /data-highlighted/);
    assert.doesNotMatch(html, /<b>/);
  });

  it('while streaming, a fence not closed yet stays plain and offers Copy only; once closed it is highlighted', () => {
    const open = render('Here:\n\n```ts\nconst a = 1;\n', { streaming: true });
    assert.match(open, /data-open="true"/);
    assert.doesNotMatch(open, /hljs-keyword/);
    const closed = render('Here:\n\n```ts\nconst a = 1;\n```\n\nmore', { streaming: true });
    assert.doesNotMatch(closed, /data-open/);
    assert.match(closed, /<span class="hljs-keyword">const<\/span>/);
    const ended = render('```ts\nconst a = 1;\n', { streaming: false });
    assert.match(ended, /hljs-keyword/, 'an answer that ended without its closing fence is highlighted');
  });

  it('a block the line before names gets its path; the label comes from the language', () => {
    const html = render('`src/a.ts`:\n\n```ts\nexport const a = 1;\n```\n');
    assert.match(html, /data-path="src\/a.ts"/);
    assert.match(html, /data-label="TypeScript"/);
  });
});
