import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { LIMITS } from '../../src/tools/manifest';
import type { ToolRegistry } from '../../src/tools/registry';
import { grouped } from '../../src/tools/search';
import { liveSearchWorkers } from '../../src/tools/searchInWorker';
import { bundledRipgrep, contextFor, TempWorkspace } from '../support/workspace';

/** Every case runs against ripgrep and against the plain-Node fallback: both must agree. */
for (const engine of ['ripgrep', 'node fallback'] as const) {
  describe(`search tools (${engine})`, () => {
    let ws: TempWorkspace;
    let registry: ToolRegistry;
    const make = (extra: Parameters<typeof contextFor>[1] = {}) =>
      createDefaultToolRegistry(contextFor(ws, { rgPath: engine === 'ripgrep' ? bundledRipgrep() : undefined, ...extra }));

    before(async () => {
      ws = await TempWorkspace.create({
        '.gitignore': 'dist/\n*.log\n!keep.log\n',
        'src/app.ts': 'const greeting = "Hello";\nexport function hello() {\n  return greeting;\n}\n',
        'src/util/strings.ts': 'export const HELLO_WORLD = "hello world";\n',
        'src/util/.hidden.ts': 'export const hidden = "hello hidden";\n',
        'src/nested/.gitignore': 'generated.ts\n',
        'src/nested/generated.ts': 'hello from generated\n',
        'src/nested/kept.ts': 'hello kept\n',
        'docs/readme.md': '# Hello docs\nSay hello.\n',
        'dist/bundle.js': 'hello bundle\n',
        'debug.log': 'hello log\n',
        'keep.log': 'hello keep\n',
        'build/out.txt': 'hello build\n',
        'weird name (1).txt': 'hello: colon: line\n',
        'regex.txt': 'a.b a+b (x) [y]\n',
      });
      await fs.mkdir(ws.path('.git'));
      await fs.writeFile(ws.path('.git', 'HEAD'), 'hello git internals\n');
      await fs.writeFile(ws.path('binary.bin'), Buffer.from([0x68, 0x65, 0x6c, 0x6c, 0x6f, 0, 1, 2]));
      registry = make();
    });
    after(() => ws.dispose());

    describe('search_text', () => {
      it('finds a literal, case-insensitively by default, honouring .gitignore at every level', async () => {
        const result = await registry.execute('search_text', { pattern: 'hello' });
        const files = new Set(result.split('\n').map((l) => l.split(':')[0]));
        assert.deepEqual([...files].sort(), [
          'docs/readme.md', 'keep.log', 'src/app.ts', 'src/nested/kept.ts', 'src/util/.hidden.ts', 'src/util/strings.ts', 'weird name (1).txt',
          'build/out.txt',
        ].sort());
        assert.match(result, /^src\/app\.ts:1: const greeting = "Hello";$/m);
        assert.match(result, /^docs\/readme\.md:2: Say hello\.$/m);
      });

      it('matches case exactly when asked', async () => {
        const result = await registry.execute('search_text', { pattern: 'Hello', caseSensitive: true });
        assert.deepEqual(result.split('\n').sort(), ['docs/readme.md:1: # Hello docs', 'src/app.ts:1: const greeting = "Hello";']);
      });

      it('treats the pattern literally unless isRegex', async () => {
        assert.equal(await registry.execute('search_text', { pattern: 'a+b (x)' }), 'regex.txt:1: a.b a+b (x) [y]');
        assert.match(await registry.execute('search_text', { pattern: '[y' }), /^regex\.txt:1:/);
        const regex = await registry.execute('search_text', { pattern: 'export (function|const) \\w+', isRegex: true, caseSensitive: true });
        assert.deepEqual(regex.split('\n').sort(), [
          'src/app.ts:2: export function hello() {',
          'src/util/.hidden.ts:1: export const hidden = "hello hidden";',
          'src/util/strings.ts:1: export const HELLO_WORLD = "hello world";',
        ]);
      });

      it('filters by glob; a glob without "/" matches names at any depth', async () => {
        const ts = await registry.execute('search_text', { pattern: 'hello', glob: '*.ts' });
        assert.ok(ts.split('\n').every((l) => l.startsWith('src/')), ts);
        assert.doesNotMatch(ts, /generated/, 'a glob must not bring back a file .gitignore leaves out');
        const docs = await registry.execute('search_text', { pattern: 'hello', glob: 'docs/**' });
        assert.deepEqual(docs.split('\n').map((l) => l.split(':')[0]), ['docs/readme.md', 'docs/readme.md']);
      });

      it('caps the results and says how many were left out', async () => {
        const result = await registry.execute('search_text', { pattern: 'hello', maxResults: 3 });
        const [body, notice] = result.split('\n\n');
        assert.equal(body.split('\n').length, 3);
        assert.match(notice, /^\[Showing 3 of 10 matches in 8 files; 7 left out\. Narrow the pattern or add a glob to see the rest\.\]$/);
      });

      it('keeps the first matches in path order, the same every time', async () => {
        const first = await registry.execute('search_text', { pattern: 'hello', maxResults: 2 });
        assert.equal(first.split('\n\n')[0], 'build/out.txt:1: hello build\ndocs/readme.md:1: # Hello docs');
        for (let i = 0; i < 3; i++) assert.equal(await registry.execute('search_text', { pattern: 'hello', maxResults: 2 }), first);
      });

      it('orders the files of a directory before its siblings ("a/b" before "a.txt"), as a sorted walk does', async () => {
        await ws.write({ 'order/a.txt': 'zorder\n', 'order/a/b.txt': 'zorder\n', 'order/a/c/d.txt': 'zorder\nzorder\n', 'order/a-b.txt': 'zorder\n' });
        try {
          assert.equal(await registry.execute('search_text', { pattern: 'zorder' }), [
            'order/a/b.txt:1: zorder', 'order/a/c/d.txt:1: zorder', 'order/a/c/d.txt:2: zorder', 'order/a-b.txt:1: zorder', 'order/a.txt:1: zorder',
          ].join('\n'));
          assert.equal(await registry.execute('search_files', { pattern: 'order/**' }), 'order/a/b.txt\norder/a/c/d.txt\norder/a-b.txt\norder/a.txt');
        } finally {
          await fs.rm(ws.path('order'), { recursive: true });
        }
      });

      it('past the count limit, says "more than" and still shows the first matches in path order', async () => {
        const lines = 'many\n'.repeat(2600);
        await ws.write({ 'lots/d.txt': lines, 'lots/c.txt': lines, 'lots/b.txt': lines, 'lots/a.txt': lines });
        try {
          const result = await registry.execute('search_text', { pattern: 'many', maxResults: 3 });
          assert.equal(result, 'lots/a.txt:1: many\nlots/a.txt:2: many\nlots/a.txt:3: many\n\n[Showing 3 of more than 10,000 matches; 9,997+ left out. Narrow the pattern or add a glob to see the rest.]');
        } finally {
          await fs.rm(ws.path('lots'), { recursive: true });
        }
      });

      it('skips binary files and .git', async () => {
        const result = await registry.execute('search_text', { pattern: 'hello', maxResults: 100 });
        assert.doesNotMatch(result, /binary\.bin|\.git\/HEAD|git internals/);
      });

      it('leaves out the editor exclusions', async () => {
        const result = await make({ excludeGlobs: ['**/build', 'docs/**'] }).execute('search_text', { pattern: 'hello' });
        assert.doesNotMatch(result, /build\/out\.txt|docs\/readme/);
        assert.match(result, /src\/app\.ts/);
      });

      it('says so when nothing matches, and reports a bad regex clearly', async () => {
        assert.equal(await registry.execute('search_text', { pattern: 'zebra-unicorn' }), 'No matches for "zebra-unicorn".');
        assert.equal(await registry.execute('search_text', { pattern: 'zebra', glob: '*.md' }), 'No matches for "zebra" in files matching "*.md".');
        assert.match(await registry.execute('search_text', { pattern: '(unclosed', isRegex: true }), /^Error executing search_text: Invalid regular expression: un(closed|terminated) group$/i);
      });

      it('cuts very long lines in the preview', async () => {
        await ws.write({ 'wide/line.txt': `${'x'.repeat(1000)} needle ${'y'.repeat(1000)}` });
        const result = await registry.execute('search_text', { pattern: 'needle' });
        assert.ok(result.length < 400, `${result.length}`);
        assert.match(result, /…$/);
        await fs.rm(ws.path('wide'), { recursive: true });
      });

      it('reads a match on a huge minified line (3 MB, escapes throughout) without parsing it whole', async () => {
        await ws.write({ 'wide/huge.txt': `start é"\\\t ${'ab"\\é\u0001'.repeat(500_000)} needle end\nneedle second line\n` });
        try {
          const result = await registry.execute('search_text', { pattern: 'needle' });
          const [first, second] = result.split('\n');
          assert.ok(first.startsWith('wide/huge.txt:1: start é"\\\t ab"\\é\u0001ab'), first.slice(0, 60));
          assert.ok(first.length < 400 && first.endsWith('…'), `${first.length}`);
          assert.equal(second, 'wide/huge.txt:2: needle second line');
        } finally {
          await fs.rm(ws.path('wide'), { recursive: true });
        }
      });

      it('stops when aborted, before or during the call, and leaves no worker behind', async () => {
        const before = new AbortController();
        before.abort(new Error('stopped by test'));
        assert.match(await registry.execute('search_text', { pattern: 'hello' }, { signal: before.signal }), /stopped before it started/);
        const during = new AbortController();
        const call = registry.execute('search_text', { pattern: 'hello' }, { signal: during.signal });
        during.abort(new Error('stopped by test'));
        assert.match(await call, /^Stopped/);
        assert.equal(liveSearchWorkers(), 0);
      });
    });

    describe('search_files', () => {
      it('matches a glob against workspace-relative paths, .gitignore honoured', async () => {
        assert.equal(await registry.execute('search_files', { pattern: '**/*.ts' }), 'src/app.ts\nsrc/nested/kept.ts\nsrc/util/.hidden.ts\nsrc/util/strings.ts');
        assert.equal(await registry.execute('search_files', { pattern: 'src/util/*' }), 'src/util/.hidden.ts\nsrc/util/strings.ts');
        assert.equal(await registry.execute('search_files', { pattern: '*.log' }), 'keep.log');
      });

      it('matches names at any depth for a glob without "/"', async () => {
        assert.equal(await registry.execute('search_files', { pattern: 'strings.*' }), 'src/util/strings.ts');
        assert.equal(await registry.execute('search_files', { pattern: '*.{md,txt}' }), 'build/out.txt\ndocs/readme.md\nregex.txt\nweird name (1).txt');
      });

      it('caps the list and counts what was left out', async () => {
        const result = await registry.execute('search_files', { pattern: '**/*', maxResults: 2 });
        assert.match(result, /^\.gitignore\nbinary\.bin\n\n\[Showing 2 of 1[0-9] files; \d+ left out\. Use a narrower glob to see the rest\.\]$/);
      });

      it('honours the editor exclusions', async () => {
        assert.equal(await make({ excludeGlobs: ['**/util/**'] }).execute('search_files', { pattern: '**/*.ts' }), 'src/app.ts\nsrc/nested/kept.ts');
      });

      it('says so when nothing matches', async () => {
        assert.equal(await registry.execute('search_files', { pattern: '**/*.rs' }), 'No files match "**/*.rs".');
      });

      it(`defaults to ${LIMITS.searchFilesDefaultResults} results`, async () => {
        await fs.mkdir(ws.path('many'));
        await Promise.all(Array.from({ length: LIMITS.searchFilesDefaultResults + 7 }, (_, i) => fs.writeFile(ws.path('many', `m${i}.dat`), '')));
        const result = await registry.execute('search_files', { pattern: 'many/*.dat' });
        assert.match(result, new RegExp(`Showing ${LIMITS.searchFilesDefaultResults} of ${LIMITS.searchFilesDefaultResults + 7} files`));
        await fs.rm(ws.path('many'), { recursive: true });
      });
    });
  });
}

for (const engine of ['ripgrep', 'node fallback'] as const) {
  describe(`search tools in a multi-root workspace (${engine})`, () => {
    it('search every root; paths of other roots start with "<folderName>/", and a glob may too', async () => {
      const ws = await TempWorkspace.create({ 'main/a.md': 'needle main\n', 'main/z/b.md': 'x\n', 'other/c.md': 'needle other\n', 'other/docs/d.md': 'x\n' });
      try {
        const registry = createDefaultToolRegistry(contextFor(ws.path('main'), {
          rgPath: engine === 'ripgrep' ? bundledRipgrep() : undefined,
          workspaceRoots: { main: ws.path('main'), other: ws.path('other') },
        }));
        assert.equal(await registry.execute('search_files', { pattern: '*.md' }), 'a.md\nz/b.md\nother/c.md\nother/docs/d.md');
        assert.equal(await registry.execute('search_files', { pattern: 'other/docs/*.md' }), 'other/docs/d.md');
        assert.equal(await registry.execute('search_files', { pattern: 'other/*.md', maxResults: 1 }), 'other/c.md');
        assert.equal(await registry.execute('search_text', { pattern: 'needle' }), 'a.md:1: needle main\nother/c.md:1: needle other');
      } finally {
        await ws.dispose();
      }
    });
  });
}

describe('search tools without a usable ripgrep', () => {
  it('fall back to plain Node when rgPath names nothing runnable', async () => {
    const ws = await TempWorkspace.create({ 'a.txt': 'needle\n' });
    try {
      const registry = createDefaultToolRegistry(contextFor(ws, { rgPath: ws.path('no-such-rg') }));
      assert.equal(await registry.execute('search_text', { pattern: 'needle' }), 'a.txt:1: needle');
      assert.equal(await registry.execute('search_files', { pattern: '*.txt' }), 'a.txt');
    } finally {
      await ws.dispose();
    }
  });
});

describe('search notices', () => {
  it('write counts as toLocaleString("en") does, without loading Intl', () => {
    for (const n of [0, 7, 999, 1000, 9800, 10_000, 123_456, 1_000_000, 9_999_999_999]) assert.equal(grouped(n), n.toLocaleString('en'));
  });
});
