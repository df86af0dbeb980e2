import * as assert from 'node:assert/strict';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { BUILTIN_MANIFEST } from '../../src/tools/manifest';
import { contextFor, TempWorkspace } from '../support/workspace';

describe('createDefaultToolRegistry (specs 003/004)', () => {
  let ws: TempWorkspace;
  before(async () => {
    ws = await TempWorkspace.create({ 'notes.txt': 'hello' });
  });
  after(() => ws.dispose());

  it('registers every builtin, in manifest order', () => {
    const registry = createDefaultToolRegistry(contextFor(ws));
    assert.deepEqual(registry.getToolNames(), BUILTIN_MANIFEST.map((d) => d.name));
    for (const name of ['read_file', 'write_file', 'save_session_context', 'list_dir', 'mkdir', 'remove', 'move', 'search_text', 'search_files', 'run_bash']) {
      assert.ok(registry.hasTool(name), name);
    }
  });

  it('disables remove and run_bash and enables every other tool', () => {
    const registry = createDefaultToolRegistry(contextFor(ws));
    assert.equal(registry.isToolEnabled('remove'), false);
    assert.equal(registry.isToolEnabled('run_bash'), false);
    for (const name of registry.getToolNames().filter((n) => n !== 'remove' && n !== 'run_bash')) {
      assert.equal(registry.isToolEnabled(name), true, name);
    }
    assert.deepEqual(
      registry.getEnabledSchemas().map((s) => s.function.name),
      BUILTIN_MANIFEST.map((d) => d.name).filter((n) => n !== 'remove' && n !== 'run_bash'),
    );
  });

  it('gives each tool a schema whose name matches the tool and the manifest', () => {
    const registry = createDefaultToolRegistry(contextFor(ws));
    for (const definition of BUILTIN_MANIFEST) {
      const tool = registry.get(definition.name)!;
      assert.equal(tool.name, definition.name);
      assert.equal(tool.getSchema().function.name, tool.name);
      assert.equal(tool.getSchema().type, 'function');
      assert.deepEqual(tool.getSchema().function.parameters, definition.parameters);
      assert.equal(tool.getSchema().function.description, definition.description);
    }
  });

  it('runs the read_file, write_file and save_session_context builtins against the workspace', async () => {
    const ctx = contextFor(ws);
    const registry = createDefaultToolRegistry(ctx);
    assert.equal(await registry.execute('read_file', { path: 'notes.txt' }), 'hello');
    assert.match(await registry.execute('write_file', { path: 'out/new.txt', content: 'written' }), /Created "out\/new.txt"/);
    assert.equal(await ws.read('out/new.txt'), 'written');
    ctx.sessionContext = '- the user asked for a file';
    assert.match(await registry.execute('save_session_context', { reason: 'test' }), /saved/);
    assert.match(await ws.read('.toolbelt/session-context.md'), /the user asked for a file/);
  });

  it('answers the disabled destructive tools with an error string until enabled', async () => {
    const registry = createDefaultToolRegistry(contextFor(ws));
    assert.match(await registry.execute('run_bash', { command: 'echo hi' }), /not available/);
    registry.enable('run_bash');
    assert.match(await registry.execute('run_bash', { command: 'echo hi' }), /Exit code: 0[\s\S]*hi/);
  });

  it('rejects arguments that do not fit the schema with an error the model can read', async () => {
    const registry = createDefaultToolRegistry(contextFor(ws));
    assert.equal(
      await registry.execute('read_file', {}),
      'Error executing read_file: Invalid arguments for read_file: "path" is required.',
    );
    assert.match(await registry.execute('calculator', { expression: 42 as unknown as string }), /^42$/);
  });
});
