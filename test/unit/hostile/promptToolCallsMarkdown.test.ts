import * as assert from 'node:assert/strict';
import MarkdownIt from 'markdown-it';
import { PromptToolCallParser } from '../../../src/providers/promptToolCalls';

/**
 * The prompt-based tool-call parser against a CommonMark reader: markdown-it, set up as the chat
 * panel renders answers (html off). Over generated answers full of fences, list items, block
 * quotes, indented code and lazy lines, every call the parser reads is a top-level (or list item)
 * code block tagged tool_call in markdown-it too: never one quoted inside other code or a quote.
 * The parser may refuse more (where the structure is ambiguous it runs nothing), never less.
 */

const TOOLS = new Set(['write_file']);

/** A small deterministic generator (seeded), so a failure names its answer. */
function generator(seed: number) {
  let x = seed * 7919 + 17;
  const random = () => (x = (x * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
  let paths = 0;
  const body = () => JSON.stringify({ name: 'write_file', arguments: { path: `p${paths++}`, content: 'x' } });
  const call = (): string[] => {
    const fence = pick(['```', '```', '~~~', '````']);
    const indent = pick(['', '', ' ', '  ', '   ']);
    const lines = [`${indent}${fence}${pick(['tool_call', 'json', ' tool_call ', 'TOOL_CALL'])}`, `${pick(['', indent, '    '])}${body()}`];
    if (random() > 0.05) lines.push(`${pick(['', indent, indent, '  ', '    ', '     '])}${fence}${pick(['', '', '`', '~'])}`);
    return lines;
  };
  const text = () => [pick(['Some text.', '```tool_call``` is the tag', '# heading', '- - -', '***', '-', '2.', '1.', '\t```md', '> quoted', '    indented', 'lazy', '===', '- item', '1. first', '2. second'])];
  const pieces = (depth: number): string[] => {
    const out: string[] = [];
    for (let n = 1 + Math.floor(random() * 3); n > 0; n--) {
      const r = random();
      if (depth > 2 || r < 0.3) out.push(...(random() < 0.5 ? call() : text()));
      else if (r < 0.55) {
        const fence = pick(['`', '~']).repeat(pick([3, 4, 5]));
        const indent = pick(['', '', ' ', '  ', '   ', '    ', '      ']);
        out.push(`${indent}${fence}${pick(['markdown', '', 'python', 'tool_call x'])}`, ...pieces(depth + 1));
        if (random() > 0.1) out.push(`${pick(['', indent, '  ', '    '])}${fence}${pick(['', '`'])}`);
      } else if (r < 0.75) {
        const marker = pick(['- ', '* ', '1. ', '2. ', '10. ', '-  ', ' - ', '1) ', '-     ', '-\t', '- - ']);
        const indent = pick([marker.length, marker.length, 0, 2, 3, 4, 6]);
        out.push(...pieces(depth + 1).map((line, i) => (i === 0 ? marker + line : (random() < 0.85 ? ' '.repeat(indent) : '') + line)));
      } else if (r < 0.88) out.push(...pieces(depth + 1).map((line) => (random() < 0.9 ? '> ' : '') + line));
      else out.push('', ...pieces(depth + 1).map((line) => `    ${line}`));
      if (random() < 0.5) out.push('');
    }
    return out;
  };
  /** Lines of random shapes: prefixes, fences, calls, text, blanks. */
  const soup = (): string[] => {
    const lines: string[] = [];
    for (let n = 3 + Math.floor(random() * 12); n > 0; n--) {
      const prefix = pick(['', '', ' ', '  ', '   ', '    ', '      ', '\t', '- ', '1. ', '2. ', '10. ', '> ', '- - ', '-   ', '  - ', '> - ', '- > ', '    - ', '    1. ', '    > ']);
      const r = random();
      const rest = r < 0.35 ? pick(['`', '~']).repeat(pick([3, 3, 4])) + pick(['', 'md', 'tool_call', 'json']) : r < 0.55 ? body() : r < 0.7 ? '' : pick(['text', '---', '- - -', '-', '1.', 'lazy']);
      lines.push(prefix + rest);
    }
    if (random() < 0.7) lines.splice(Math.floor(random() * lines.length), 0, ...call());
    return lines;
  };
  return { answer: () => (random() < 0.5 ? pieces(0) : soup()).join('\n') + pick(['', '\n']), random };
}

/** Paths written by the tool-call blocks markdown-it sees outside block quotes and other code. */
function commonMarkCalls(answer: string): Set<string> {
  const calls = new Set<string>();
  let quotes = 0;
  for (const token of new MarkdownIt({ html: false }).parse(answer, {})) {
    if (token.type === 'blockquote_open') quotes++;
    if (token.type === 'blockquote_close') quotes--;
    const info = token.info.trim().toLowerCase();
    if (token.type !== 'fence' || quotes > 0 || (info !== 'tool_call' && info !== 'json')) continue;
    try {
      const value = JSON.parse(token.content) as { name?: unknown; arguments?: { path?: string } };
      if (value.name === 'write_file') calls.add(String(value.arguments?.path));
    } catch {
      // not a call
    }
  }
  return calls;
}

function parserCalls(answer: string, pieces: number[]): { paths: string[]; text: string } {
  const parser = new PromptToolCallParser(TOOLS, 'id_');
  let text = '';
  for (let i = 0, p = 0; i < answer.length; i += pieces[p++ % pieces.length]) text += parser.push(answer.slice(i, i + pieces[p % pieces.length]));
  const end = parser.finish();
  return { paths: end.calls.filter((c) => !c.error).map((c) => String((JSON.parse(c.call.arguments) as { path?: string }).path)), text: text + end.text };
}

describe('hostile: prompt-based tool calls against CommonMark (markdown-it)', () => {
  it('over 2,000 generated answers, every call read is a top-level call to markdown-it, however the stream is cut', () => {
    const { answer, random } = generator(20);
    let read = 0;
    let possible = 0;
    for (let n = 0; n < 2000; n++) {
      const text = answer();
      const expected = commonMarkCalls(text);
      const whole = parserCalls(text, [text.length || 1]);
      for (const path of whole.paths) assert.ok(expected.has(path), `${path} is quoted in:\n${text}`);
      const cuts = Array.from({ length: 5 }, () => 1 + Math.floor(random() * 9));
      assert.deepEqual(parserCalls(text, cuts), whole, `the same, cut in pieces of ${cuts.join(', ')}:\n${text}`);
      read += whole.paths.length;
      possible += expected.size;
    }
    // Refusing everything would pass the check above: most calls must still be read.
    assert.ok(read > 0.7 * possible, `${read} of ${possible} calls read`);
  });
});
