import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '../../..');
const DOC = path.join(REPO, 'docs', 'ARCHITECTURE.md');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : /\.(ts|js|mjs)$/.test(entry.name) ? [full] : [];
  });
}

describe('docs/ARCHITECTURE.md names only what exists', () => {
  const doc = readFileSync(DOC, 'utf8');
  const files = [...sourceFiles(path.join(REPO, 'src')), ...sourceFiles(path.join(REPO, 'scripts')), path.join(REPO, 'esbuild.js'), path.join(REPO, 'eslint.config.mjs')];
  const names = new Set(files.map((file) => path.basename(file)));
  const words = new Set(files.flatMap((file) => readFileSync(file, 'utf8').match(/[A-Za-z_$][\w$]*/g) ?? []));

  it('every src/, test/ and scripts/ path it names is there', () => {
    const missing = [...new Set(doc.match(/\b(?:src|test|scripts|dist|media)\/[\w./*-]*[\w*]/g) ?? [])]
      .filter((named) => !named.includes('*') && !named.startsWith('dist/') && !existsSync(path.join(REPO, named)));
    assert.deepEqual(missing, []);
  });

  it('every source file it names by its bare name is there', () => {
    const named = [...doc.matchAll(/`([\w.-]+\.(?:ts|js))`/g)].map((m) => m[1]).filter((name) => !name.includes('/'));
    // A bundle (`mcpSdk.js`) is named after its entry in esbuild.js.
    assert.deepEqual(named.filter((name) => !names.has(name) && !words.has(name.replace(/\.(ts|js)$/, '').replace(/^lib-/, ''))), []);
  });

  it('every symbol it names in code (Class.member, function()) is in the code', () => {
    const symbols = [...doc.matchAll(/`([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:\([^`]*\))?`/g)]
      .map((m) => m[1])
      .filter((symbol) => /[A-Z]/.test(symbol) || symbol.includes('.') || /\(/.test(symbol));
    const missing = symbols.filter((symbol) => !/\.(ts|js|json|md|mjs)$/.test(symbol) && !symbol.split('.').every((part) => words.has(part)));
    assert.deepEqual([...new Set(missing)], []);
  });
});
