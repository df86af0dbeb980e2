import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import { createBuiltinTool } from '../../src/tools/factory';
import { findBuiltin } from '../../src/tools/manifest';
import { ToolRegistry, type ToolRunReport } from '../../src/tools/registry';
import { ToolRefusedError } from '../../src/tools/toolErrors';
import { ToolManager } from '../../src/tools/toolManager';
import type { ConfirmationRequest } from '../../src/tools/types';
import { FakeScheduler } from '../support/fakeScheduler';
import { FakeTool } from '../support/fakeTools';
import { contextFor, TempWorkspace } from '../support/workspace';

describe('ToolRegistry reports every call and who approved it', () => {
  let reports: ToolRunReport[];
  let clock: number;
  let registry: ToolRegistry;

  beforeEach(() => {
    reports = [];
    clock = 1_000;
    registry = new ToolRegistry({ scheduler: new FakeScheduler(), now: () => clock++, onDidRun: (report) => reports.push(report) });
  });

  it('reports a call that ran, with its arguments, result and start time', async () => {
    registry.register(new FakeTool('echo', (args) => `echo ${String(args.value)}`));
    const result = await registry.run('echo', { value: 'hi' });
    assert.equal(result.approvedBy, 'auto', 'nobody was asked');
    assert.deepEqual(reports, [{ name: 'echo', args: { value: 'hi' }, result, startedAt: 1_000 }]);
  });

  it('reports calls refused or failed before they ran', async () => {
    registry.register(new FakeTool('off'));
    registry.disable('off');
    await registry.run('off', {});
    await registry.run('missing', {});
    const stopped = new AbortController();
    stopped.abort();
    registry.register(new FakeTool('late'));
    await registry.run('late', {}, { signal: stopped.signal });
    assert.deepEqual(
      reports.map((r) => [r.name, r.result.status, r.result.approvedBy]),
      [
        ['off', 'refused', 'refused'],
        ['missing', 'error', undefined],
        ['late', 'cancelled', undefined],
      ],
    );
  });

  it('says refused for a refusal and auto for an error nobody was asked about', async () => {
    registry.register(new FakeTool('guarded', () => Promise.reject(new ToolRefusedError('outside the workspace'))));
    registry.register(new FakeTool('broken', () => Promise.reject(new Error('disk on fire'))));
    assert.equal((await registry.run('guarded', {})).approvedBy, 'refused');
    assert.equal((await registry.run('broken', {})).approvedBy, 'auto');
  });

  it('gives each call its own approval slot and reports what the tool put in it', async () => {
    const slots: unknown[] = [];
    registry.register(
      new FakeTool('asks', (_args, options) => {
        slots.push(options?.approval);
        assert.deepEqual(options?.approval, {}, 'untouched at the start');
        options!.approval!.by = 'person';
        return 'done';
      }),
    );
    assert.equal((await registry.run('asks', {})).approvedBy, 'person');
    assert.equal((await registry.run('asks', {})).approvedBy, 'person');
    assert.notEqual(slots[0], slots[1]);
  });

  it('keeps running calls when a listener throws, and stops telling a disposed one', async () => {
    const seen: string[] = [];
    registry.onDidRun(() => {
      throw new Error('observer broke');
    });
    const subscription = registry.onDidRun((report) => seen.push(report.name));
    registry.register(new FakeTool('echo'));
    assert.equal((await registry.run('echo', {})).status, 'ok');
    subscription.dispose();
    await registry.run('echo', {});
    assert.deepEqual(seen, ['echo']);
    assert.equal(reports.length, 2);
  });

  it('execute() goes through the same reports', async () => {
    registry.register(new FakeTool('echo'));
    assert.equal(await registry.execute('echo', {}), 'echo ran');
    assert.equal(reports.length, 1);
  });

  it('ToolManager passes its registry options through', async () => {
    const seen: string[] = [];
    const manager = new ToolManager({ context: contextFor('/nowhere'), registry: { onDidRun: (report) => seen.push(report.name) } });
    manager.applyConfig([{ name: 'calculator' }]);
    await manager.registry.run('calculator', { expression: '1+1' });
    assert.deepEqual(seen, ['calculator']);
  });
});

describe('Builtin tools record who approved a call', () => {
  let ws: TempWorkspace;

  beforeEach(async () => {
    ws = await TempWorkspace.create({ 'old.txt': 'bye' });
  });

  afterEach(() => ws.dispose());

  async function removeWith(confirm: (request: ConfirmationRequest) => Promise<boolean>, pausing = true) {
    const registry = new ToolRegistry();
    registry.register(createBuiltinTool(findBuiltin('remove')!, { ...contextFor(ws), confirm }));
    if (!pausing) {
      // The slot alone (no budget to pause) is enough for the confirm hook to fill it in.
      const approval: { by?: 'person' | 'rule' | 'refused' | 'auto' } = {};
      await registry.get('remove')!.execute({ path: 'old.txt' }, { approval });
      return approval.by;
    }
    return (await registry.run('remove', { path: 'old.txt' })).approvedBy;
  }

  it('person: someone said yes', async () => {
    assert.equal(await removeWith(async () => true), 'person');
    assert.equal(await ws.exists('old.txt'), false);
  });

  it('rule: the confirm hook says a rule decided', async () => {
    const approvedBy = await removeWith(async (request) => {
      request.decidedBy = 'rule';
      return true;
    });
    assert.equal(approvedBy, 'rule');
    assert.equal(await ws.exists('old.txt'), false);
  });

  it('refused: someone said no, and the file stays', async () => {
    assert.equal(await removeWith(async () => false), 'refused');
    assert.equal(await fs.readFile(ws.path('old.txt'), 'utf8'), 'bye');
  });

  it('fills the slot without a budget to pause', async () => {
    assert.equal(await removeWith(async () => true, false), 'person');
    assert.equal(await ws.exists('old.txt'), false);
  });
});
