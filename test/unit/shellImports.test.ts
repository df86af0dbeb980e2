import * as assert from 'node:assert/strict';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');

describe('esbuild.js: the shell (dist/extension.js) requires external modules plainly', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the build script is CommonJS
  const { wrappedImportsInShell } = require(path.join(ROOT, 'esbuild.js')) as { wrappedImportsInShell(metafile: unknown): string[] };
  type Import = { path: string; kind: string; external?: boolean };
  const metafileOf = (shell: Record<string, number>, imports: Record<string, Import[]>) => ({
    inputs: Object.fromEntries(Object.entries(imports).map(([file, list]) => [file, { imports: list }])),
    outputs: {
      'dist/extension.js': { inputs: Object.fromEntries(Object.entries(shell).map(([file, bytesInOutput]) => [file, { bytesInOutput }])) },
      'dist/host.js': { inputs: { 'src/vscode/host.ts': { bytesInOutput: 900 } } },
    },
  });

  it("names a shell module that imports an external module with `import` (bundled as a copy of all its exports)", () => {
    const metafile = metafileOf(
      { 'src/extension.ts': 900, 'src/vscode/lazyHost.ts': 4000 },
      {
        'src/extension.ts': [{ path: 'vscode', kind: 'require-call', external: true }, { path: 'src/vscode/lazyHost.ts', kind: 'import-statement' }],
        'src/vscode/lazyHost.ts': [{ path: 'vscode', kind: 'import-statement', external: true }, { path: 'node:path', kind: 'require-call', external: true }],
        'src/vscode/host.ts': [{ path: 'vscode', kind: 'import-statement', external: true }],
      },
    );
    assert.deepEqual(wrappedImportsInShell(metafile), ['src/vscode/lazyHost.ts imports vscode']);
  });

  it('lets plain requires, internal imports and modules left out of the shell be', () => {
    const metafile = metafileOf(
      { 'src/extension.ts': 900, 'src/vscode/lazyApi.ts': 0 },
      {
        'src/extension.ts': [{ path: 'vscode', kind: 'require-call', external: true }, { path: 'src/vscode/lazyApi.ts', kind: 'import-statement' }],
        'src/vscode/lazyApi.ts': [{ path: 'vscode', kind: 'import-statement', external: true }],
      },
    );
    assert.deepEqual(wrappedImportsInShell(metafile), []);
  });

  it('finds nothing in a build without the shell', () => {
    assert.deepEqual(wrappedImportsInShell({ inputs: {}, outputs: {} }), []);
  });
});
