import * as assert from 'node:assert/strict';
import { isElisionMarker, keyOf, splitUnits } from '../../src/chat/codeUnits';
import { anchorMerge, joinImports, mergeSnippet, type SnippetMergeKind } from '../../src/chat/snippetMerge';
import { INVENTORY } from '../fixtures/inventory';

const lines = (...text: string[]) => `${text.join('\n')}\n`;

interface Case {
  name: string;
  file: string | undefined;
  snippet: string;
  selection?: [string, string];
  kind: SnippetMergeKind;
  expected: string;
  replaced?: string[];
  added?: string[];
}

const CASES: Case[] = [
  {
    name: "issue 23: a 3-line snippet replaces only the function it names; the interface and addItem stay",
    file: INVENTORY,
    snippet: lines('export function total(items: Item[]): number {', '  return items.reduce((sum, i) => sum + i.price * i.count, 0);', '}'),
    kind: 'merged',
    expected: INVENTORY.replace('sum + i.price, 0', 'sum + i.price * i.count, 0'),
    replaced: ['total'],
  },
  {
    name: 'a block with every declaration of the file is the whole file: it replaces it',
    file: INVENTORY,
    snippet: INVENTORY.replace('interface Item', 'interface Item /* v2 */').replace(/export function addItem[^]*?\n}\n/, 'export function addItem(items: Item[], item: Item): Item[] {\n  return [...items, item];\n}\n'),
    kind: 'whole',
    expected: INVENTORY.replace('interface Item', 'interface Item /* v2 */').replace(/export function addItem[^]*?\n}\n/, 'export function addItem(items: Item[], item: Item): Item[] {\n  return [...items, item];\n}\n'),
  },
  {
    name: 'a file that does not exist yet gets the block',
    file: undefined,
    snippet: 'export const a = 1;',
    kind: 'new',
    expected: 'export const a = 1;\n',
  },
  {
    name: 'an empty file gets the block',
    file: '\n',
    snippet: 'print("hi")\n',
    kind: 'new',
    expected: 'print("hi")\n',
  },
  {
    name: 'a function the file lacks is added at its end, after a blank line',
    file: INVENTORY,
    snippet: lines('export function average(items: Item[]): number {', '  return total(items) / items.length;', '}'),
    kind: 'added',
    expected: `${INVENTORY}\nexport function average(items: Item[]): number {\n  return total(items) / items.length;\n}\n`,
    added: ['average'],
  },
  {
    name: 'a snippet that is already in the file changes nothing',
    file: INVENTORY,
    snippet: lines('export function total(items: Item[]): number {', '  return items.reduce((sum, i) => sum + i.price, 0);', '}'),
    kind: 'unchanged',
    expected: INVENTORY,
  },
  {
    name: 'a method given on its own replaces that method inside its class, at the class\'s indentation',
    file: lines('export class Cart {', '  items: string[] = [];', '', '  add(item: string): void {', '    this.items.push(item);', '  }', '', '  clear(): void {', '    this.items = [];', '  }', '}'),
    snippet: lines('add(item: string): void {', '  if (!this.items.includes(item)) this.items.push(item);', '}'),
    kind: 'merged',
    expected: lines('export class Cart {', '  items: string[] = [];', '', '  add(item: string): void {', '    if (!this.items.includes(item)) this.items.push(item);', '  }', '', '  clear(): void {', '    this.items = [];', '  }', '}'),
    replaced: ['Cart.add'],
  },
  {
    name: 'a class given with one changed method and one new one keeps the methods it leaves out, the new one where the snippet has it',
    file: lines('class Cart {', '  add(item) {', '    this.items.push(item);', '  }', '', '  clear() {', '    this.items = [];', '  }', '}'),
    snippet: lines('class Cart {', '  add(item) {', '    this.items.unshift(item);', '  }', '', '  size() {', '    return this.items.length;', '  }', '}'),
    kind: 'merged',
    // The new method goes where the snippet puts it: after the one it follows there.
    expected: lines('class Cart {', '  add(item) {', '    this.items.unshift(item);', '  }', '', '  size() {', '    return this.items.length;', '  }', '', '  clear() {', '    this.items = [];', '  }', '}'),
    replaced: ['Cart.add'],
    added: ['Cart.size'],
  },
  {
    name: '`// ... existing code ...` keeps the lines it stands for',
    file: lines('function report(items) {', '  const lines = [];', '  for (const item of items) lines.push(item.name);', '  lines.sort();', '  return lines.join("\\n");', '}'),
    snippet: lines('function report(items) {', '  // ... existing code ...', '  lines.sort().reverse();', '  return lines.join("\\n");', '}'),
    kind: 'merged',
    expected: lines('function report(items) {', '  const lines = [];', '  for (const item of items) lines.push(item.name);', '  lines.sort().reverse();', '  return lines.join("\\n");', '}'),
    replaced: ['report'],
  },
  {
    name: 'Python: a def is replaced, a method inside a class too, the rest stays',
    file: lines('import os', '', '', 'def load(path):', '    return open(path).read()', '', '', 'class Store:', '    def get(self, key):', '        return self.data[key]', '', '    def put(self, key, value):', '        self.data[key] = value'),
    snippet: lines('    def get(self, key):', '        return self.data.get(key)'),
    kind: 'merged',
    expected: lines('import os', '', '', 'def load(path):', '    return open(path).read()', '', '', 'class Store:', '    def get(self, key):', '        return self.data.get(key)', '', '    def put(self, key, value):', '        self.data[key] = value'),
    replaced: ['Store.get'],
  },
  {
    name: 'imports: a new module goes after the imports, more names from a known module are joined',
    file: lines("import { a } from './a';", "import { b } from './b';", '', 'export const c = a + b;'),
    snippet: lines("import { b, d } from './b';", "import { e } from './e';", '', 'export const c = a + b + d + e;'),
    kind: 'merged',
    expected: lines("import { a } from './a';", "import { b, d } from './b';", "import { e } from './e';", '', 'export const c = a + b + d + e;'),
    replaced: ['imports', 'c'],
  },
  {
    name: 'JSON: one key of an object is replaced and a new one added, commas kept right',
    file: lines('{', '  "name": "demo",', '  "scripts": {', '    "build": "tsc",', '    "test": "mocha"', '  },', '  "license": "MIT"', '}'),
    snippet: lines('"scripts": {', '  "test": "mocha --parallel",', '  "lint": "eslint ."', '}'),
    kind: 'merged',
    expected: lines('{', '  "name": "demo",', '  "scripts": {', '    "build": "tsc",', '    "test": "mocha --parallel",', '    "lint": "eslint ."', '  },', '  "license": "MIT"', '}'),
    replaced: ['scripts.test'],
    added: ['scripts.lint'],
  },
  {
    name: 'CSS: a rule is replaced by its selector',
    file: lines('body {', '  margin: 0;', '}', '', '.button {', '  color: red;', '}'),
    snippet: lines('.button {', '  color: blue;', '}'),
    kind: 'merged',
    expected: lines('body {', '  margin: 0;', '}', '', '.button {', '  color: blue;', '}'),
    replaced: ['.button'],
  },
  {
    name: 'Go: a func is replaced by its name',
    file: lines('package main', '', 'import "fmt"', '', 'func greet(name string) string {', '\treturn "hi " + name', '}', '', 'func main() {', '\tfmt.Println(greet("x"))', '}'),
    snippet: lines('func greet(name string) string {', '\treturn fmt.Sprintf("hello, %s", name)', '}'),
    kind: 'merged',
    expected: lines('package main', '', 'import "fmt"', '', 'func greet(name string) string {', '\treturn fmt.Sprintf("hello, %s", name)', '}', '', 'func main() {', '\tfmt.Println(greet("x"))', '}'),
    replaced: ['greet'],
  },
  {
    name: 'tests: one it(…) of a describe is told from the others by its title',
    file: lines("describe('cart', () => {", "  it('adds', () => {", '    expect(1).toBe(1);', '  });', '', "  it('clears', () => {", '    expect(2).toBe(2);', '  });', '});'),
    snippet: lines("it('clears', () => {", '  expect(cart.size).toBe(0);', '});'),
    kind: 'merged',
    expected: lines("describe('cart', () => {", "  it('adds', () => {", '    expect(1).toBe(1);', '  });', '', "  it('clears', () => {", '    expect(cart.size).toBe(0);', '  });', '});'),
    replaced: ["describe('cart').it('clears')"],
  },
  {
    name: 'with nothing named in common, a selection in the file is replaced, at its indentation',
    file: lines('function f() {', '  const a = 1;', '  const b = 2;', '  return a + b;', '}'),
    snippet: lines('const a = 10;', 'const b = 20;'),
    selection: ['  const a = 1;\n  const b = 2;\n', ''],
    kind: 'selection',
    expected: lines('function f() {', '  const a = 10;', '  const b = 20;', '  return a + b;', '}'),
  },
  {
    name: 'a script without declarations that the block mostly repeats is the whole file',
    file: lines('#!/bin/sh', 'set -e', 'npm ci', 'npm test'),
    snippet: lines('#!/bin/sh', 'set -e', 'npm ci', 'npm run lint', 'npm test'),
    kind: 'whole',
    expected: lines('#!/bin/sh', 'set -e', 'npm ci', 'npm run lint', 'npm test'),
  },
  {
    name: 'statements that match nothing, with no selection, are added at the end rather than replacing anything',
    file: INVENTORY,
    snippet: 'console.log(total([]));\n',
    kind: 'added',
    expected: `${INVENTORY}\nconsole.log(total([]));\n`,
    added: ['the code'],
  },
];

describe('Apply to File: where a snippet goes in its file', () => {
  for (const c of CASES) {
    it(c.name, () => {
      const selection = c.selection && c.file ? { start: c.file.indexOf(c.selection[0]), end: c.file.indexOf(c.selection[0]) + c.selection[0].length } : undefined;
      const merged = mergeSnippet({ file: c.file, snippet: c.snippet, selection });
      assert.equal(merged.text, c.expected);
      assert.equal(merged.kind, c.kind);
      if (c.replaced) assert.deepEqual(merged.replaced, c.replaced);
      if (c.added) assert.deepEqual(merged.added, c.added);
    });
  }

  it('keeps the file\'s CRLF line ends and its missing final newline', () => {
    const file = 'function a() {\r\n  return 1;\r\n}\r\n\r\nfunction b() {\r\n  return 2;\r\n}';
    const merged = mergeSnippet({ file, snippet: 'function b() {\n  return 3;\n}\n' });
    assert.equal(merged.text, 'function a() {\r\n  return 1;\r\n}\r\n\r\nfunction b() {\r\n  return 3;\r\n}');
  });

  it('never loses a line of the file when the block names one part of it (every line of the rest survives)', () => {
    const merged = mergeSnippet({ file: INVENTORY, snippet: 'export function addItem(items: Item[], item: Item): Item[] {\n  return [...items, item];\n}' });
    const kept = INVENTORY.split('\n').filter((line) => !/existing|else items|if \(existing|return items;|addItem/.test(line));
    for (const line of kept) assert.ok(merged.text.includes(line), `kept: ${line}`);
  });

  it('leaves a part whose `...` lines match nothing as it is, and says so', () => {
    const file = lines('function f() {', '  one();', '  two();', '}');
    const impossible = mergeSnippet({ file, snippet: lines('function f() {', '  // ...', '  nowhere();', '  // ...', '  alsoNowhere(1, 2, 3);', '}') });
    assert.equal(impossible.text, file);
    assert.deepEqual(impossible.unresolved, ['f']);
    assert.equal(impossible.kind, 'unchanged');
  });
});

describe('Apply to File: the pieces', () => {
  it('knows `...` lines from code', () => {
    for (const marker of ['// ... existing code ...', '# ...', '/* ... */', '  // …rest of the class…', '...', '<!-- ... -->', '// rest of the file unchanged', '// existing methods', '{/* ... */}']) {
      assert.equal(isElisionMarker(marker), true, marker);
    }
    for (const code of ['console.log("...")', 'const rest = [...items];', '// existing code paths handle null here because the parser is strict', 'return ...args;', '// TODO: handle errors']) {
      assert.equal(isElisionMarker(code), false, code);
    }
  });

  it('names declarations in several languages', () => {
    const cases: [string, string | undefined][] = [
      ['export async function load(url: string) {', 'load'],
      ['export default class Store {', 'Store'],
      ['const handler = async (req, res) => {', 'handler'],
      ['  private readonly items: Item[] = [];', 'items'],
      ['  static async create(): Promise<Cart> {', 'create'],
      ['  get size(): number {', 'get size'],
      ['def load(path):', 'load'],
      ['async def fetch(url):', 'fetch'],
      ['pub fn parse(input: &str) -> Result<Ast> {', 'parse'],
      ['impl Display for Token {', 'impl Display for Token'],
      ['func (s *Server) Start() error {', 'Server.Start'],
      ['public static int total(List<Item> items) {', 'total'],
      ['"scripts": {', 'scripts'],
      ['name: build', 'name'],
      ['.button:hover, .link {', 'css:.button:hover, .link'],
      ["import { a, b } from './items';", 'import:./items'],
      ['from os import path', 'import:os'],
      ['if (ready) {', undefined],
      ['return total;', undefined],
    ];
    for (const [line, key] of cases) assert.equal(keyOf(line).key, key, line);
  });

  it('splits a file into units with their comments and decorators, trailing blanks left out', () => {
    const file = ['// header', '', '/** Docs */', '@decorate()', 'export class A {', '  x = 1;', '}', '', '', 'function b() {}', ''];
    const units = splitUnits(file);
    assert.deepEqual(units.map((u) => [u.start, u.end, u.key]), [[0, 1, 'comment:// header'], [2, 7, 'A'], [9, 10, 'b']]);
    assert.deepEqual(units[1].body, { start: 5, end: 6 });
  });

  it('joins named imports and leaves other imports alone', () => {
    assert.equal(joinImports("import { a } from 'x';", "import { b, a } from 'x';"), "import { a, b } from 'x';");
    assert.equal(joinImports('from os import path', 'from os import sep, path'), 'from os import path, sep');
    assert.equal(joinImports("import x from 'x';", "import { y } from 'x';"), undefined);
  });

  it('anchors `...` parts by similar lines when the exact one changed', () => {
    const original = ['function f() {', '  const a = load();', '  check(a);', '  return a.value;', '}'];
    assert.deepEqual(anchorMerge(original, ['function f() {', '  // ...', '  return a.value * 2;', '}']), ['function f() {', '  const a = load();', '  check(a);', '  return a.value * 2;', '}']);
  });
});
