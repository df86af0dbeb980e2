import * as assert from 'node:assert/strict';
import { parseFenceInfo, pathFromFirstLine, pathFromLineBefore } from '../../src/common/fenceInfo';
import { highlightCode, MAX_GUESS_CHARS, MAX_HIGHLIGHT_CHARS } from '../../src/webview/highlight';
import { CODE_LANGUAGES, languageOfPath, resolveLanguage, suggestedFileName } from '../../src/common/languages';
import { parseWebviewMessage, MAX_CODE_CHARS } from '../../src/protocol';

describe('Code blocks: languages a fence names', () => {
  const cases: [string, string][] = [
    ['ts', 'typescript'],
    ['TypeScript', 'typescript'],
    ['tsx', 'typescript'],
    ['js', 'javascript'],
    ['mjs', 'javascript'],
    ['py', 'python'],
    ['python3', 'python'],
    ['sh', 'bash'],
    ['shell', 'bash'],
    ['zsh', 'bash'],
    ['console', 'shell'],
    ['yml', 'yaml'],
    ['html', 'xml'],
    ['svg', 'xml'],
    ['md', 'markdown'],
    ['c++', 'cpp'],
    ['cs', 'csharp'],
    ['C#', 'csharp'],
    ['golang', 'go'],
    ['rs', 'rust'],
    ['jsonc', 'json'],
    ['patch', 'diff'],
    ['toml', 'ini'],
    ['language-py', 'python'],
    ['{.yaml}', 'yaml'],
    ['scss', 'css'],
  ];
  for (const [word, id] of cases) {
    it(`"${word}" → ${id}`, () => assert.equal(resolveLanguage(word)?.id, id));
  }

  it('knows no language for unknown words, and says so with undefined', () => {
    for (const word of ['', undefined, 'elixir', 'not-a-language', '__proto__', 'constructor', 'toString']) assert.equal(resolveLanguage(word), undefined, String(word));
  });

  it('every language has a label, a VS Code id and an extension that maps back to it', () => {
    for (const language of CODE_LANGUAGES) {
      assert.ok(language.label && language.vscode && language.extension, language.id);
      if (language.id !== 'shell') assert.equal(resolveLanguage(language.extension)?.id, language.id, language.extension);
    }
  });

  it('tells a file\'s language from its name and suggests a name for a block that names none', () => {
    assert.equal(languageOfPath('src/a.ts')?.id, 'typescript');
    assert.equal(languageOfPath('deploy/Dockerfile')?.id, 'dockerfile');
    assert.equal(languageOfPath('Makefile')?.id, 'makefile');
    assert.equal(languageOfPath('notes'), undefined);
    assert.equal(suggestedFileName(resolveLanguage('py')), 'new-file.py');
    assert.equal(suggestedFileName(resolveLanguage('dockerfile')), 'Dockerfile');
    assert.equal(suggestedFileName(undefined), 'new-file.txt');
  });
});

describe('Code blocks: the path a block is meant for', () => {
  it('reads it from the info string in the forms models write', () => {
    assert.deepEqual(parseFenceInfo('ts src/a.ts'), { language: 'ts', path: 'src/a.ts' });
    assert.deepEqual(parseFenceInfo('typescript:src/a.ts'), { language: 'typescript', path: 'src/a.ts' });
    assert.deepEqual(parseFenceInfo('python title="tools/run.py"'), { language: 'python', path: 'tools/run.py' });
    assert.deepEqual(parseFenceInfo('js file=index.js'), { language: 'js', path: 'index.js' });
    assert.deepEqual(parseFenceInfo('  yaml  '), { language: 'yaml', path: undefined });
    assert.deepEqual(parseFenceInfo(''), {});
  });

  it('takes no path from info words that are not paths', () => {
    assert.equal(parseFenceInfo('ts {1,3}').path, undefined);
    assert.equal(parseFenceInfo('js live example').path, undefined);
    assert.equal(parseFenceInfo('sh $ rm -rf /').path, undefined);
    assert.equal(parseFenceInfo('ts 1.2.3').path, undefined);
  });

  it('reads a path comment on the first line', () => {
    assert.equal(pathFromFirstLine('// path: src/a.ts\nconst a = 1;'), 'src/a.ts');
    assert.equal(pathFromFirstLine('# file: tools/run.py\nprint(1)'), 'tools/run.py');
    assert.equal(pathFromFirstLine('<!-- filepath: web/index.html -->\n<p>'), 'web/index.html');
    assert.equal(pathFromFirstLine('/* filename: a.css */\nbody{}'), 'a.css');
    assert.equal(pathFromFirstLine('// the path: is long\n'), undefined);
    assert.equal(pathFromFirstLine('const path = 1;'), undefined);
  });

  it('reads a path written alone on the line before the block, and not an ordinary sentence', () => {
    for (const line of ['src/a.ts', '**src/a.ts**', '`src/a.ts`:', 'File: `src/a.ts`', '### path: src/a.ts', 'Here it is:\nsrc/a.ts']) {
      assert.equal(pathFromLineBefore(line), 'src/a.ts', line);
    }
    assert.equal(pathFromLineBefore('Dockerfile'), 'Dockerfile');
    for (const line of ['Here is the code:', 'Example', 'Run this in src/a.ts now', '1.2', '']) assert.equal(pathFromLineBefore(line), undefined, line);
  });
});

describe('Code blocks: highlighting', () => {
  it('marks tokens with hljs classes in the language the fence names', () => {
    const result = highlightCode('const answer: number = 42; // why\n', 'ts');
    assert.equal(result?.language.label, 'TypeScript');
    assert.equal(result?.guessed, false);
    assert.match(result!.html, /<span class="hljs-keyword">const<\/span>/);
    assert.match(result!.html, /<span class="hljs-number">42<\/span>/);
    assert.match(result!.html, /<span class="hljs-comment">\/\/ why<\/span>/);
  });

  it('leaves a block plain above the size cap, and one in an unknown language', () => {
    const big = 'let x = 1;\n'.repeat(Math.ceil((MAX_HIGHLIGHT_CHARS + 1) / 11));
    assert.ok(big.length > MAX_HIGHLIGHT_CHARS);
    assert.equal(highlightCode(big, 'js'), undefined);
    assert.ok(highlightCode(big.slice(0, MAX_HIGHLIGHT_CHARS - 10), 'js'), 'just under the cap is highlighted');
    assert.equal(highlightCode('defmodule X do end', 'elixir'), undefined);
    assert.equal(highlightCode('plain words', 'text'), undefined);
  });

  it('guesses the language only for a short block that names none, and only when sure', () => {
    const python = 'def greet(name):\n    """Say hello."""\n    for i in range(3):\n        print(f"hello {name}")\n    return None\n';
    const guess = highlightCode(python, undefined);
    assert.equal(guess?.language.id, 'python');
    assert.equal(guess?.guessed, true);
    assert.equal(highlightCode('just some words here', undefined), undefined, 'prose is no code');
    assert.equal(highlightCode(python.repeat(Math.ceil(MAX_GUESS_CHARS / python.length) + 1), undefined), undefined, 'no guessing on long blocks');
  });

  it('returns the same result for the same block (cached), so a stream highlights a finished block once', () => {
    const first = highlightCode('SELECT 1;', 'sql');
    assert.equal(highlightCode('SELECT 1;', 'sql'), first);
  });
});

describe('Code blocks: the panel\'s messages', () => {
  it('accepts insertCode, applyCode and newFile within their bounds and drops the rest', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'insertCode', code: 'x' }), { type: 'insertCode', code: 'x' });
    assert.deepEqual(parseWebviewMessage({ type: 'applyCode', code: 'x', path: 'a.ts', language: 'typescript' }), { type: 'applyCode', code: 'x', path: 'a.ts', language: 'typescript' });
    assert.deepEqual(parseWebviewMessage({ type: 'applyCode', code: '' }), { type: 'applyCode', code: '', path: undefined, language: undefined });
    assert.deepEqual(parseWebviewMessage({ type: 'newFile', code: 'x', language: 'python' }), { type: 'newFile', code: 'x', language: 'python' });
    assert.equal(parseWebviewMessage({ type: 'insertCode', code: 'x'.repeat(MAX_CODE_CHARS + 1) }), undefined);
    assert.equal(parseWebviewMessage({ type: 'insertCode' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'applyCode', code: 'x', path: 42 }), undefined);
    assert.equal(parseWebviewMessage({ type: 'applyCode', code: 'x', path: 'p'.repeat(5000) }), undefined);
    assert.equal(parseWebviewMessage({ type: 'newFile', code: 'x', language: 'l'.repeat(101) }), undefined);
  });
});
