import * as assert from 'node:assert/strict';
import { currentDateTime } from '../../src/tools/datetime';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import { contextFor } from '../support/workspace';

describe('get_current_datetime builtin (spec 002)', () => {
  const registry = createDefaultToolRegistry(contextFor('/tmp'));
  const call = async (args: Record<string, unknown>) => JSON.parse(await registry.execute('get_current_datetime', args));

  it('returns {iso, date, time, timezone: "UTC"} for the current time with no parameters', async () => {
    const before = Date.now();
    const result = await call({});
    const after = Date.now();
    assert.deepEqual(Object.keys(result).sort(), ['date', 'iso', 'time', 'timezone']);
    assert.equal(result.timezone, 'UTC');
    assert.match(result.date, /^\d{4}-\d{2}-\d{2}$/);
    assert.match(result.time, /^\d{2}:\d{2}:\d{2}$/);
    const iso = Date.parse(result.iso);
    assert.ok(iso >= before - 1 && iso <= after + 1, 'reflects the actual time');
    assert.equal(result.date, result.iso.slice(0, 10));
    assert.equal(result.time, result.iso.slice(11, 19));
  });

  it('adjusts to a requested zone and names it', () => {
    const now = new Date('2026-07-01T12:00:00.000Z');
    assert.deepEqual(currentDateTime('Europe/London', now), {
      iso: '2026-07-01T13:00:00.000+01:00', date: '2026-07-01', time: '13:00:00', timezone: 'Europe/London',
    });
    assert.deepEqual(currentDateTime('Asia/Kolkata', now), {
      iso: '2026-07-01T17:30:00.000+05:30', date: '2026-07-01', time: '17:30:00', timezone: 'Asia/Kolkata',
    });
    const winter = currentDateTime('America/New_York', new Date('2026-01-15T03:30:00.000Z'));
    assert.equal(winter.date, '2026-01-14', 'the date changes with the zone');
    assert.equal(winter.iso, '2026-01-14T22:30:00.000-05:00');
    assert.equal(Date.parse(winter.iso), Date.parse('2026-01-15T03:30:00.000Z'));
  });

  it('uses the requested zone for the live time too', async () => {
    const result = await call({ timezone: 'Europe/London' });
    assert.equal(result.timezone, 'Europe/London');
    assert.ok(Math.abs(Date.parse(result.iso) - Date.now()) < 5000);
  });

  for (const zone of ['Mars/Olympus_Mons', 'not a zone', '', '+99:00', 'Europe/../etc']) {
    it(`falls back to UTC for ${JSON.stringify(zone)}`, async () => {
      const result = await call({ timezone: zone });
      assert.equal(result.timezone, 'UTC');
      assert.match(result.iso, /Z$/);
    });
  }

  it('uses no npm packages, only Intl and Date', async () => {
    const { readFile } = await import('node:fs/promises');
    const source = await readFile(require.resolve('../../src/tools/datetime'), 'utf8');
    assert.deepEqual(source.match(/require\("[^"]+"\)/g) ?? [], []);
  });
});
