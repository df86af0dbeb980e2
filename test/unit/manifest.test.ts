import * as assert from 'node:assert/strict';
import { BUILTIN_MANIFEST, findBuiltin } from '../../src/tools/manifest';
import type { JsonSchema } from '../../src/tools/interface';

const EXPECTED = [
  'calculator', 'get_current_datetime', 'generate_uuid', 'read_file', 'list_dir', 'search_text', 'search_files',
  'write_file', 'mkdir', 'move', 'save_session_context', 'remove', 'run_bash',
];

/** Parameter names per DESIGN.md: models and acceptance tests rely on them. */
const PARAMETERS: Record<string, { required: string[]; optional: string[] }> = {
  calculator: { required: ['expression'], optional: [] },
  get_current_datetime: { required: [], optional: ['timezone'] },
  generate_uuid: { required: [], optional: [] },
  read_file: { required: ['path'], optional: ['encoding', 'offset', 'limit'] },
  list_dir: { required: [], optional: ['path'] },
  search_text: { required: ['pattern'], optional: ['isRegex', 'glob', 'caseSensitive', 'maxResults'] },
  search_files: { required: ['pattern'], optional: ['maxResults'] },
  write_file: { required: ['path', 'content'], optional: [] },
  mkdir: { required: ['path'], optional: [] },
  move: { required: ['source', 'destination'], optional: ['overwrite'] },
  save_session_context: { required: ['reason'], optional: [] },
  remove: { required: ['path'], optional: ['recursive'] },
  run_bash: { required: ['command'], optional: ['timeoutSeconds'] },
};

function walkSchema(schema: JsonSchema, visit: (s: JsonSchema, where: string) => void, where = 'parameters'): void {
  visit(schema, where);
  for (const [name, sub] of Object.entries(schema.properties ?? {})) walkSchema(sub, visit, `${where}.${name}`);
  if (schema.items) walkSchema(schema.items, visit, `${where}[]`);
}

describe('BUILTIN_MANIFEST (spec 002)', () => {
  it('holds exactly the 13 builtins', () => {
    assert.deepEqual(BUILTIN_MANIFEST.map((d) => d.name), EXPECTED);
  });

  it('gives every entry name, description, type "builtin", handler and an object schema', () => {
    for (const entry of BUILTIN_MANIFEST) {
      assert.equal(typeof entry.name, 'string');
      assert.ok(entry.description.length > 20, `${entry.name} needs a useful description`);
      assert.equal(entry.type, 'builtin');
      assert.equal(typeof entry.handler, 'string');
      assert.ok(entry.handler.length > 0);
      assert.equal(entry.parameters.type, 'object');
      assert.equal(typeof entry.parameters.properties, 'object');
      assert.ok(['read', 'write', 'exec'].includes(entry.risk));
    }
  });

  it('uses the fixed parameter names, with the right ones required', () => {
    for (const entry of BUILTIN_MANIFEST) {
      const expected = PARAMETERS[entry.name];
      assert.deepEqual(Object.keys(entry.parameters.properties).sort(), [...expected.required, ...expected.optional].sort(), entry.name);
      assert.deepEqual([...(entry.parameters.required ?? [])].sort(), [...expected.required].sort(), entry.name);
    }
  });

  it('describes every parameter with a type and a description a model can use', () => {
    for (const entry of BUILTIN_MANIFEST) {
      for (const [name, schema] of Object.entries(entry.parameters.properties)) {
        assert.ok(schema.type, `${entry.name}.${name} has a type`);
        assert.ok((schema.description ?? '').length > 5, `${entry.name}.${name} has a description`);
        if (schema.minimum !== undefined && schema.maximum !== undefined) assert.ok(schema.minimum <= schema.maximum);
      }
    }
  });

  it('marks risk as the design says, and only remove and run_bash start disabled', () => {
    const risk = Object.fromEntries(BUILTIN_MANIFEST.map((d) => [d.name, d.risk]));
    assert.deepEqual(
      EXPECTED.filter((n) => risk[n] === 'read'),
      ['calculator', 'get_current_datetime', 'generate_uuid', 'read_file', 'list_dir', 'search_text', 'search_files'],
    );
    assert.equal(risk.run_bash, 'exec');
    assert.deepEqual(BUILTIN_MANIFEST.filter((d) => !d.enabledByDefault).map((d) => d.name), ['remove', 'run_bash']);
  });

  it('is deeply frozen: nothing at run time can add, remove or change an entry', () => {
    assert.ok(Object.isFrozen(BUILTIN_MANIFEST));
    for (const entry of BUILTIN_MANIFEST) {
      walkSchema(entry.parameters, (s, where) => assert.ok(Object.isFrozen(s), `${entry.name} ${where} frozen`));
      assert.ok(Object.isFrozen(entry));
    }
    const list = BUILTIN_MANIFEST as unknown as unknown[];
    assert.throws(() => list.push({ name: 'evil' }), TypeError);
    assert.throws(() => list.pop(), TypeError);
    const calculator = findBuiltin('calculator') as unknown as { description: string; parameters: { properties: Record<string, unknown> } };
    assert.throws(() => { calculator.description = 'hacked'; }, TypeError);
    assert.throws(() => { calculator.parameters.properties.extra = {}; }, TypeError);
    assert.equal(BUILTIN_MANIFEST.length, 13);
    assert.notEqual(findBuiltin('calculator')!.description, 'hacked');
  });

  it('has unique names and handlers', () => {
    assert.equal(new Set(BUILTIN_MANIFEST.map((d) => d.name)).size, 13);
    assert.equal(new Set(BUILTIN_MANIFEST.map((d) => d.handler)).size, 13);
  });

  it('findBuiltin looks entries up by name', () => {
    assert.equal(findBuiltin('read_file')?.handler, 'readFile');
    assert.equal(findBuiltin('nope'), undefined);
  });
});
