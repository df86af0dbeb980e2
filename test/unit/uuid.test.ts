import * as assert from 'node:assert/strict';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { contextFor } from '../support/workspace';

describe('generate_uuid builtin (spec 002)', () => {
  const registry = createDefaultToolRegistry(contextFor('/tmp'));

  it('returns {uuid} with a version 4 UUID and needs no parameters', async () => {
    const result = JSON.parse(await registry.execute('generate_uuid', {}));
    assert.deepEqual(Object.keys(result), ['uuid']);
    assert.match(result.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  it('is random: a thousand calls give a thousand different values', async () => {
    const seen = new Set<string>();
    for (let i = 0; i < 1000; i++) seen.add(JSON.parse(await registry.execute('generate_uuid', {})).uuid);
    assert.equal(seen.size, 1000);
  });

  it('uses crypto.randomUUID', async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(require.resolve('../../src/tools/uuid'), 'utf8');
    assert.match(source, /randomUUID\)\(\)/);
  });
});
