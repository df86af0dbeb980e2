import * as assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';

const SRC = path.resolve(__dirname, '../../../src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    return entry.isDirectory() ? sourceFiles(full) : full.endsWith('.ts') ? [full] : [];
  });
}

/** Every relative import and re-export of a file (type-only ones too: they are dependencies all the same). */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const found: string[] = [];
  for (const match of text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+'(\.[^']+)'/g)) {
    const base = path.resolve(path.dirname(file), match[1]);
    const target = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => existsSync(candidate));
    if (target) found.push(target);
  }
  return found;
}

/** The import cycles among `files`, each as the chain of files that closes it. */
export function importCycles(files: string[]): string[][] {
  const graph = new Map(files.map((file) => [file, importsOf(file)]));
  const state = new Map<string, 'open' | 'done'>();
  const stack: string[] = [];
  const cycles: string[][] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    stack.push(file);
    for (const next of graph.get(file) ?? []) {
      if (state.get(next) === 'open') cycles.push([...stack.slice(stack.indexOf(next)), next]);
      else if (!state.has(next)) visit(next);
    }
    stack.pop();
    state.set(file, 'done');
  };
  for (const file of files) if (!state.has(file)) visit(file);
  return cycles;
}

describe('The source imports no module in a circle', () => {
  it('has no import cycles in src/ (the lint keeps the layers; this keeps the modules of one layer apart)', () => {
    const cycles = importCycles(sourceFiles(SRC)).map((cycle) => cycle.map((file) => path.relative(SRC, file)).join(' -> '));
    assert.deepEqual(cycles, []);
  });

  it('finds a cycle when there is one (the check can fail)', () => {
    const fixtures = path.resolve(__dirname, '../../../test/fixtures/importCycle');
    const cycles = importCycles(sourceFiles(fixtures));
    assert.equal(cycles.length, 1);
    assert.deepEqual(cycles[0].map((file) => path.basename(file)), ['a.ts', 'b.ts', 'a.ts']);
  });
});
