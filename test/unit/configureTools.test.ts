import * as assert from 'node:assert/strict';
import { ToolManager } from '../../src/tools/toolManager';
import { configureToolRows, toolChanges } from '../../src/vscode/configureToolsRows';
import { FakeToolSource } from '../support/fakeToolSource';
import { contextFor, TempWorkspace } from '../support/workspace';

describe('Configure Tools: the picker\'s rows', () => {
  let ws: TempWorkspace;
  before(async () => {
    ws = await TempWorkspace.create();
  });
  after(() => ws.dispose());

  function manager(trusted = true) {
    const tools = new ToolManager({ context: contextFor(ws), trusted });
    const tickets = new FakeToolSource('tickets', {
      label: 'tickets',
      state: { state: 'running' },
      tools: [{ name: 'lookup_ticket', description: 'Looks a ticket up. By id.', parameters: { type: 'object', properties: {} } }],
    });
    tools.addSource(tickets);
    tools.applyConfig([{ name: 'read_file' }, { name: 'run_bash' }, { name: 'tickets/lookup_ticket' }]);
    return tools;
  }

  it('lists every tool once, by the name settings use, builtins first, active ones ticked', () => {
    const tools = manager();
    const rows = configureToolRows(tools.available().tools, tools.list(), true);
    const names = rows.map((row) => row.name);
    assert.equal(new Set(names).size, names.length, 'each tool once');
    assert.equal(names.length, 14, '13 builtins and the MCP tool');
    assert.ok(!names.includes('tickets_lookup_ticket') && !names.includes('lookup_ticket'), 'the MCP tool by its settings name only');
    assert.deepEqual(rows.filter((row) => row.group !== 'Builtins').map((row) => [row.group, row.name]), [['MCP server tickets', 'tickets/lookup_ticket']]);
    const byName = new Map(rows.map((row) => [row.name, row]));
    assert.equal(byName.get('read_file')?.enabled, true);
    assert.equal(byName.get('run_bash')?.enabled, false, 'run_bash registers switched off');
    assert.match(byName.get('run_bash')!.description, /Runs commands · switched off/);
    assert.equal(byName.get('write_file')?.registered, false);
    assert.match(byName.get('write_file')!.description, /adds it to this workspace/);
    assert.equal(byName.get('tickets/lookup_ticket')?.detail, 'Looks a ticket up.');
    assert.deepEqual(names.slice(0, 2), ['read_file', 'run_bash'], 'registered builtins before the others');
  });

  it('marks write and exec tools as needing trust in a restricted workspace', () => {
    const tools = manager(false);
    const rows = configureToolRows(tools.available().tools, tools.list(), false);
    const write = rows.find((row) => row.name === 'write_file')!;
    assert.equal(write.locked, true);
    assert.match(write.description, /needs a trusted workspace/);
    assert.equal(rows.find((row) => row.name === 'read_file')!.locked, false);
  });

  it('turns the ticks into what to enable and what to switch off', () => {
    const tools = manager();
    const rows = configureToolRows(tools.available().tools, tools.list(), true);
    assert.deepEqual(toolChanges(rows, new Set(['run_bash', 'write_file', 'tickets/lookup_ticket'])), { enable: ['run_bash', 'write_file'], disable: ['read_file'] });
    assert.deepEqual(toolChanges(rows, new Set(['read_file', 'tickets/lookup_ticket'])), { enable: [], disable: [] });
  });
});
