import * as assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CheckpointStore } from '../../src/tools/undo/checkpoints';
import { bytes, CheckpointBench } from '../support/checkpointBench';

const blobNameOf = (content: string) => createHash('sha256').update(content).digest('hex');

/** How the store records turns, orders and bounds them, and keeps them across a reload. */
describe('checkpoint store', () => {
  const bench = CheckpointBench.use();
  const { open, tool, turn } = bench;

  it('undoes turns newest first, and only the newest of a chat by id', async () => {
    const first = await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'one' }));
    const second = await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'two' }));
    assert.deepEqual(bench.store.turns().map((t) => [t.turnId, t.next]), [[second.turnId, true], [first.turnId, false]]);
    await assert.rejects(bench.store.undoTurn(first.turnId), /newer turns/);
    assert.equal((await bench.store.undoTurn(second.turnId)).turnId, second.turnId);
    assert.equal(await bench.ws.read('keep.txt'), 'one');
    assert.equal((await bench.store.undoLastTurn())?.turnId, first.turnId);
    assert.equal(await bench.ws.read('keep.txt'), 'keep\n');
    assert.equal(await bench.store.undoLastTurn(), undefined);
  });

  it('keeps chats apart and refuses to undo a turn still running', async () => {
    await turn((t) => tool(t, 'write_file', { path: 'a.txt', content: 'chat one' }), 'chat-1');
    await turn((t) => tool(t, 'write_file', { path: 'b.txt', content: 'chat two' }), 'chat-2');
    bench.store.beginTurn('running', 'chat-1');
    await bench.store.recordBefore('running', bench.ws.path('keep.txt'), bench.ws.root);
    await assert.rejects(bench.store.undoLastTurn('chat-1'), /still running/);
    await bench.store.endTurn('running');
    assert.equal((await bench.store.undoLastTurn('chat-1'))?.turnId, 'turn-1', 'a turn that changed nothing keeps no checkpoint');
    assert.equal(await bench.ws.exists('a.txt'), false);
    assert.equal(await bench.ws.read('b.txt'), 'chat two');
  });

  it('keeps no copy of a file over the per-file limit and says undo cannot bring it back', async () => {
    await open({ maxFileBytes: 1000 });
    await fs.writeFile(bench.ws.path('big.dat'), bytes(2000, 1));
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'big.dat', content: 'small now' });
      await tool(t, 'write_file', { path: 'keep.txt', content: 'changed' });
    });
    assert.deepEqual(bench.store.turns()[0].incomplete.map((s) => s.path), ['big.dat']);
    assert.deepEqual(await fs.readdir(path.join(bench.storeDir, 'blobs')), [blobNameOf('keep\n')]);
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, ['keep.txt']);
    assert.deepEqual(result?.skipped.map((s) => s.path), ['big.dat']);
    assert.match(result?.skipped[0].reason ?? '', /over the 1000 B limit/);
    assert.equal(await bench.ws.read('big.dat'), 'small now');
  });

  it('drops the oldest turns beyond the size bound and says which', async () => {
    await open({ maxTotalBytes: 2500 });
    await fs.writeFile(bench.ws.path('one.bin'), bytes(1000, 1));
    await fs.writeFile(bench.ws.path('two.bin'), bytes(1000, 2));
    await fs.writeFile(bench.ws.path('three.bin'), bytes(1000, 3));
    const first = await turn((t) => tool(t, 'remove', { path: 'one.bin' }));
    const second = await turn((t) => tool(t, 'remove', { path: 'two.bin' }));
    assert.deepEqual([first.dropped, second.dropped], [[], []]);
    const third = await turn((t) => tool(t, 'remove', { path: 'three.bin' }));
    assert.deepEqual(third.dropped, [{ turnId: first.turnId, chatId: 'chat-1', startedAt: bench.now, reason: 'size' }]);
    assert.equal((await fs.readdir(path.join(bench.storeDir, 'blobs'))).length, 2, 'the dropped turn\'s copy is deleted');
    assert.deepEqual(bench.store.turns().map((t) => t.turnId), [third.turnId, second.turnId]);
  });

  it('drops turns older than the age bound and beyond the turn count, at a turn\'s end and at open', async () => {
    await open({ maxAgeMs: 60_000, maxTurns: 2 });
    const a = await turn((t) => tool(t, 'write_file', { path: 'a.txt', content: 'a' }));
    bench.now += 30_000;
    const b = await turn((t) => tool(t, 'write_file', { path: 'b.txt', content: 'b' }));
    const c = await turn((t) => tool(t, 'write_file', { path: 'c.txt', content: 'c' }));
    assert.deepEqual(c.dropped.map((d) => [d.turnId, d.reason]), [[a.turnId, 'count']]);
    bench.now += 70_000;
    const d = await turn((t) => tool(t, 'write_file', { path: 'd.txt', content: 'd' }));
    assert.deepEqual(d.dropped.map((x) => [x.turnId, x.reason]), [[b.turnId, 'age'], [c.turnId, 'age']]);
    bench.now += 120_000;
    const reopened = await CheckpointStore.open(bench.storeDir, bench.roots, { maxAgeMs: 60_000 }, bench.clock);
    assert.deepEqual(reopened.droppedAtOpen.map((x) => [x.turnId, x.reason]), [[d.turnId, 'age']]);
    assert.deepEqual(reopened.turns(), []);
    assert.deepEqual(await fs.readdir(path.join(bench.storeDir, 'blobs')), []);
  });

  it('keeps its index across a re-open and undoes after it', async () => {
    const { turnId } = await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
      await tool(t, 'remove', { path: 'notes', recursive: true });
    });
    const index = JSON.parse(await fs.readFile(path.join(bench.storeDir, 'index.json'), 'utf8'));
    assert.equal(index.turns[0].turnId, turnId);
    const reopened = await CheckpointStore.open(bench.storeDir, bench.roots, {}, bench.clock);
    assert.deepEqual(reopened.turns().map((t) => [t.turnId, t.paths]), [[turnId, ['keep.txt', 'notes']]]);
    const result = await reopened.undoLastTurn();
    assert.deepEqual(result?.restored, ['keep.txt', 'notes']);
    assert.equal(await bench.ws.read('keep.txt'), 'keep\n');
    assert.equal(await bench.ws.read('notes/todo.md'), '# todo\n- one\n');
  });

  it('closes a turn a reload interrupted, so it can still be undone', async () => {
    bench.store.beginTurn('interrupted', 'chat-1');
    await tool('interrupted', 'write_file', { path: 'keep.txt', content: 'half way' });
    const reopened = await CheckpointStore.open(bench.storeDir, bench.roots, {}, bench.clock);
    assert.equal(reopened.turns()[0].running, false);
    await reopened.undoLastTurn();
    assert.equal(await bench.ws.read('keep.txt'), 'keep\n');
  });

  it('after a reload, counts as the person\'s an edit made after the state recordAfter saw', async () => {
    bench.store.beginTurn('interrupted', 'chat-1');
    await tool('interrupted', 'write_file', { path: 'keep.txt', content: 'agent' });
    await bench.store.recordAfter('interrupted', bench.ws.path('keep.txt'));
    await tool('interrupted', 'write_file', { path: 'src/app.ts', content: 'agent app' });
    await bench.store.recordAfter('interrupted', bench.ws.path('src/app.ts'));
    await bench.ws.write({ 'keep.txt': 'person, before the reload' });
    const reopened = await CheckpointStore.open(bench.storeDir, bench.roots, {}, bench.clock);
    const result = await reopened.undoLastTurn();
    assert.deepEqual([result?.restored, result?.skipped.map((s) => s.path)], [['src/app.ts'], ['keep.txt']]);
    assert.equal(await bench.ws.read('keep.txt'), 'person, before the reload');
  });

  it('records paths as the file tools resolve them, naming other roots by their folder', async () => {
    const other = path.join(bench.ws.parent, 'other');
    await fs.mkdir(other);
    await fs.writeFile(path.join(other, 'x.txt'), 'x');
    bench.store.beginTurn('t', 'chat-1');
    await bench.store.recordPath('t', { absolute: path.join(other, 'x.txt'), root: other, relative: 'x.txt', display: 'other/x.txt' });
    await bench.store.recordPath('t', { absolute: bench.ws.path('keep.txt'), root: bench.ws.root, relative: 'keep.txt', display: 'keep.txt' });
    await fs.writeFile(path.join(other, 'x.txt'), 'changed');
    await fs.writeFile(bench.ws.path('keep.txt'), 'changed');
    await bench.store.endTurn('t');
    assert.deepEqual(bench.store.turns()[0].paths, ['other/x.txt', 'keep.txt']);
    // Undo writes in the folders its opener serves when it runs: both of them here.
    const bothRoots = await CheckpointStore.open(bench.storeDir, () => [bench.ws.root, other], {}, bench.clock);
    await bothRoots.undoLastTurn();
    assert.equal(await fs.readFile(path.join(other, 'x.txt'), 'utf8'), 'x');
    assert.equal(await bench.ws.read('keep.txt'), 'keep\n');
  });

  it('lets a tool run when a checkpoint cannot be saved, and undo then leaves that path alone', async () => {
    await fs.rm(path.join(bench.storeDir, 'blobs'), { recursive: true });
    await fs.writeFile(path.join(bench.storeDir, 'blobs'), 'storage broke');
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
      await tool(t, 'write_file', { path: '..dots/new.txt', content: 'new' });
    });
    assert.deepEqual(bench.store.turns()[0].incomplete.map((s) => s.path), ['keep.txt']);
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.skipped.map((s) => s.path), ['keep.txt']);
    assert.match(result?.skipped[0].reason ?? '', /could not be saved/);
    assert.equal(await bench.ws.read('keep.txt'), 'agent');
    assert.equal(await bench.ws.exists('..dots'), false, 'a name starting with two dots is inside the workspace');
  });

  it('sets an unreadable index aside and starts empty', async () => {
    await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'agent' }));
    await fs.writeFile(path.join(bench.storeDir, 'index.json'), '{ not json');
    const reopened = await CheckpointStore.open(bench.storeDir, bench.roots, {}, bench.clock);
    assert.deepEqual(reopened.turns(), []);
    assert.ok(await fs.stat(path.join(bench.storeDir, 'index.json.unreadable')));
  });

  it('keeps notes of what undo cannot reach, even on a turn that changed no file', async () => {
    await turn(async (t) => bench.store.noteSideEffect(t, 'run_bash: what its commands changed cannot be undone'));
    assert.deepEqual(bench.store.turns()[0].notes, ['run_bash: what its commands changed cannot be undone']);
    const result = await bench.store.undoLastTurn();
    assert.deepEqual([result?.restored, result?.notes], [[], ['run_bash: what its commands changed cannot be undone']]);
  });
});
