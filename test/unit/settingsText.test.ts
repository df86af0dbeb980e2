import * as assert from 'node:assert/strict';
import { parse } from 'jsonc-parser';
import { addEntries, locateEntry, minimalEdit, registryPath, removeEntries, setEntryDescription } from '../../src/vscode/sources/settingsText';

const ONE_LINE = `{
  // my tools
  "toolbelt.tools.registry": [{"name": "calculator"}, {"name": "read_file", "description": "Reads"}],
  "editor.tabSize": 4
}
`;

const MULTI_LINE = `{
  "toolbelt.tools.registry": [
    { "name": "calculator" }, // the maths one
    {
      "name": "read_file",
      "description": "Reads"
    },
    "generate_uuid"
  ]
}
`;

const registry = (text: string, path = registryPath(false)) => {
  let value: unknown = parse(text, [], { allowTrailingComma: true });
  for (const key of path) value = (value as Record<string, unknown>)[key as string];
  return value;
};

describe('settings.json registry edits (jsonc-parser, layout kept)', () => {
  it('locates an entry by name: its "name" property, or the bare string', () => {
    const range = locateEntry(MULTI_LINE, 'read_file')!;
    assert.equal(MULTI_LINE.slice(range.offset, range.offset + range.length), '"name": "read_file"');
    const bare = locateEntry(MULTI_LINE, 'generate_uuid')!;
    assert.equal(MULTI_LINE.slice(bare.offset, bare.offset + bare.length), '"generate_uuid"');
    assert.equal(locateEntry(MULTI_LINE, 'run_bash'), undefined);
    assert.equal(locateEntry('{ "other": 1 }', 'calculator'), undefined);
    assert.equal(locateEntry('not json at all {', 'calculator'), undefined);
  });

  it('does not match a name that appears elsewhere in the file', () => {
    const text = `{ "x": {"name": "calculator"}, "toolbelt.tools.registry": [] }`;
    assert.equal(locateEntry(text, 'calculator'), undefined);
  });

  it('appends to a one-line registry on the same line, leaving the other entries and the comment as they were', () => {
    const after = addEntries(ONE_LINE, ['list_dir']);
    assert.equal(
      after,
      ONE_LINE.replace('"description": "Reads"}]', '"description": "Reads"}, {"name": "list_dir"}]'),
    );
    assert.deepEqual(registry(after), [{ name: 'calculator' }, { name: 'read_file', description: 'Reads' }, { name: 'list_dir' }]);
  });

  it('appends to a multi-line registry on a line of its own, in the last entry\'s layout', () => {
    const after = addEntries(MULTI_LINE, ['list_dir', 'mkdir']);
    assert.equal(
      after,
      MULTI_LINE.replace('"generate_uuid"\n', '"generate_uuid",\n    {\n      "name": "list_dir"\n    },\n    {\n      "name": "mkdir"\n    }\n'),
    );
    assert.match(after, /\/\/ the maths one/);
    assert.match(after, / {4}\{\n {6}"name": "read_file",\n {6}"description": "Reads"\n {4}\},/);
    assert.deepEqual((registry(after) as unknown[]).slice(-2), [{ name: 'list_dir' }, { name: 'mkdir' }]);
  });

  it('writes a new entry after a multi-line object as a multi-line object', () => {
    const text = '{\n\t"toolbelt.tools.registry": [\n\t\t{\n\t\t\t"name": "calculator"\n\t\t}\n\t]\n}';
    assert.equal(addEntries(text, ['mkdir']), '{\n\t"toolbelt.tools.registry": [\n\t\t{\n\t\t\t"name": "calculator"\n\t\t},\n\t\t{\n\t\t\t"name": "mkdir"\n\t\t}\n\t]\n}');
  });

  it('keeps a comment after the last entry with that entry', () => {
    const text = '{\n  "toolbelt.tools.registry": [\n    { "name": "calculator" } // keep me\n  ]\n}';
    assert.equal(addEntries(text, ['mkdir']), '{\n  "toolbelt.tools.registry": [\n    { "name": "calculator" }, // keep me\n    { "name": "mkdir" }\n  ]\n}');
  });

  it('keeps CRLF line ends', () => {
    const text = MULTI_LINE.replace(/\n/g, '\r\n');
    const after = addEntries(text, ['mkdir']);
    assert.equal(after.replace(/\r\n/g, '').includes('\n'), false);
    assert.deepEqual((registry(after) as unknown[]).at(-1), { name: 'mkdir' });
  });

  it('does not add a name twice', () => {
    assert.equal(addEntries(MULTI_LINE, ['calculator', 'generate_uuid']), MULTI_LINE);
  });

  it('creates the registry, from the user-level entries, when the file has none', () => {
    const text = '{\n    "editor.tabSize": 4 // mine\n}\n';
    const after = addEntries(text, ['mkdir'], registryPath(false), [{ name: 'calculator' }, 'mkdir']);
    assert.match(after, /"editor.tabSize": 4 \/\/ mine/);
    assert.deepEqual(registry(after), [{ name: 'calculator' }, { name: 'mkdir' }]);
    assert.match(after, /\n {4}"toolbelt.tools.registry"/, 'indented like the file');
    assert.deepEqual(registry(addEntries('', ['mkdir'])), [{ name: 'mkdir' }]);
    assert.deepEqual(registry(addEntries('{ "toolbelt.tools.registry": [] }', ['mkdir'])), [{ name: 'mkdir' }]);
  });

  it('edits the "settings" of a .code-workspace file', () => {
    const text = '{\n  "folders": [{ "path": "a" }],\n  "settings": {\n    "toolbelt.tools.registry": [{ "name": "calculator" }]\n  }\n}';
    const path = registryPath(true);
    const after = addEntries(text, ['mkdir'], path);
    assert.equal(after, text.replace('{ "name": "calculator" }]', '{ "name": "calculator" }, { "name": "mkdir" }]'));
    assert.equal(removeEntries(after, 'mkdir', path), text);
    assert.ok(locateEntry(text, 'calculator', path));
  });

  it('removes an entry and its comma, nothing else', () => {
    assert.equal(removeEntries(ONE_LINE, 'calculator'), ONE_LINE.replace('{"name": "calculator"}, ', ''));
    assert.equal(removeEntries(ONE_LINE, 'read_file'), ONE_LINE.replace(', {"name": "read_file", "description": "Reads"}', ''));
    const last = removeEntries(MULTI_LINE, 'generate_uuid');
    assert.equal(last, MULTI_LINE.replace('    },\n    "generate_uuid"\n', '    }\n'));
    const middle = removeEntries(MULTI_LINE, 'read_file');
    assert.deepEqual(registry(middle), [{ name: 'calculator' }, 'generate_uuid']);
    assert.match(middle, /\{ "name": "calculator" \}, \/\/ the maths one\n {4}"generate_uuid"\n {2}\]/);
  });

  it('removes the only entry, every duplicate, and leaves the text alone for an unknown name', () => {
    assert.equal(removeEntries('{ "toolbelt.tools.registry": [ {"name": "a"} ] }', 'a'), '{ "toolbelt.tools.registry": [] }');
    assert.deepEqual(registry(removeEntries('{"toolbelt.tools.registry": ["a", {"name": "b"}, {"name": "a"}]}', 'a')), [{ name: 'b' }]);
    assert.equal(removeEntries(MULTI_LINE, 'teleport'), MULTI_LINE);
  });

  it('sets and clears a description, rewriting only that entry in its own layout', () => {
    const set = setEntryDescription(MULTI_LINE, 'calculator', 'Does sums')!;
    assert.equal(set, MULTI_LINE.replace('{ "name": "calculator" }', '{ "name": "calculator", "description": "Does sums" }'));
    const cleared = setEntryDescription(MULTI_LINE, 'read_file', undefined)!;
    assert.equal(cleared, MULTI_LINE.replace('{\n      "name": "read_file",\n      "description": "Reads"\n    }', '{\n      "name": "read_file"\n    }'));
    const bare = setEntryDescription(MULTI_LINE, 'generate_uuid', 'ids')!;
    assert.match(bare, /\{"name": "generate_uuid", "description": "ids"\}\n/);
    assert.equal(setEntryDescription(MULTI_LINE, 'teleport', 'x'), undefined);
  });

  it('keeps fields it does not know in an entry whose description changes', () => {
    const text = '{"toolbelt.tools.registry": [{"name": "a", "type": "builtin"}]}';
    assert.deepEqual(registry(setEntryDescription(text, 'a', 'd')!), [{ name: 'a', type: 'builtin', description: 'd' }]);
  });

  it('describes a change as the one minimal edit', () => {
    const after = addEntries(MULTI_LINE, ['mkdir']);
    const edit = minimalEdit(MULTI_LINE, after);
    assert.equal(MULTI_LINE.slice(0, edit.offset) + edit.content + MULTI_LINE.slice(edit.offset + edit.length), after);
    assert.ok(edit.content.length < 40, edit.content);
    assert.deepEqual(minimalEdit('abc', 'abc'), { offset: 3, length: 0, content: '' });
  });
});
