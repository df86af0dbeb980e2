import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { toApiUndoResult } from '../../src/tools/checkpointRestore';
import { CheckpointStore, type CheckpointLimits } from '../../src/tools/checkpoints';
import { createDefaultToolRegistry } from '../../src/tools/factory';
import type { ToolRegistry } from '../../src/tools/registry';
import { contextFor, TempWorkspace } from '../support/workspace';

const modeOf = async (file: string) => (await fs.lstat(file)).mode & 0o7777;
const bytes = (n: number, seed: number) => Buffer.from(Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff));

describe('checkpoint store', () => {
  let ws: TempWorkspace;
  let registry: ToolRegistry;
  let storeDir: string;
  let store: CheckpointStore;
  let now: number;
  const clock = () => now;
  let turnCount: number;

  const open = async (limits: Partial<CheckpointLimits> = {}) => (store = await CheckpointStore.open(storeDir, limits, clock));

  /** Runs a real file tool the way the wiring will: record every path it touches, then run it. */
  const tool = async (turnId: string, name: string, args: Record<string, unknown>) => {
    for (const key of ['path', 'source', 'destination']) {
      if (typeof args[key] === 'string') await store.recordBefore(turnId, ws.path(args[key] as string), ws.root);
    }
    return registry.execute(name, args);
  };

  /** One chat turn: begin, the given steps, end; returns the turn id and the turns dropped at its end. */
  const turn = async (steps: (turnId: string) => Promise<unknown>, chatId = 'chat-1') => {
    const turnId = `turn-${++turnCount}`;
    store.beginTurn(turnId, chatId);
    await steps(turnId);
    const dropped = await store.endTurn(turnId);
    return { turnId, dropped };
  };

  beforeEach(async () => {
    ws = await TempWorkspace.create({ 'keep.txt': 'keep\n', 'notes/todo.md': '# todo\n- one\n', 'src/app.ts': 'export const app = 1;\n' });
    registry = createDefaultToolRegistry(contextFor(ws, { answer: true }));
    registry.enable('remove');
    storeDir = path.join(ws.parent, 'storage', 'checkpoints');
    now = Date.UTC(2026, 0, 1);
    turnCount = 0;
    await open();
  });
  afterEach(() => ws.dispose());

  it('undoes a created file by deleting it, with the folders the write created', async () => {
    await turn((t) => tool(t, 'write_file', { path: 'gen/deep/new.txt', content: 'fresh' }));
    assert.equal(await ws.read('gen/deep/new.txt'), 'fresh');
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.restored, ['gen', 'gen/deep', 'gen/deep/new.txt']);
    assert.deepEqual(result?.skipped, []);
    assert.equal(await ws.exists('gen'), false);
    assert.deepEqual((await fs.readdir(ws.root)).sort(), ['keep.txt', 'notes', 'src'], 'nothing of the store lands in the workspace');
  });

  it('restores an overwritten file byte for byte and mode for mode', async () => {
    const original = Buffer.from('line one\r\nline two\n\u00e9\n', 'utf8');
    await fs.writeFile(ws.path('run.sh'), original);
    await fs.chmod(ws.path('run.sh'), 0o751);
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'run.sh', content: 'echo replaced\n' });
      await fs.chmod(ws.path('run.sh'), 0o600);
    });
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.restored, ['run.sh']);
    assert.ok((await fs.readFile(ws.path('run.sh'))).equals(original));
    assert.equal(await modeOf(ws.path('run.sh')), 0o751);
  });

  it('undoes a move to a new name: the destination goes, the source comes back', async () => {
    await turn((t) => tool(t, 'move', { source: 'src/app.ts', destination: 'lib/app.ts' }));
    assert.equal(await ws.exists('src/app.ts'), false);
    await store.undoLastTurn();
    assert.equal(await ws.read('src/app.ts'), 'export const app = 1;\n');
    assert.equal(await ws.exists('lib'), false);
  });

  it('undoes a move over an existing file: both sides get their old content', async () => {
    await ws.write({ 'b.txt': 'old b\n' });
    await turn((t) => tool(t, 'move', { source: 'keep.txt', destination: 'b.txt', overwrite: true }));
    assert.equal(await ws.read('b.txt'), 'keep\n');
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.restored.sort(), ['b.txt', 'keep.txt']);
    assert.equal(await ws.read('b.txt'), 'old b\n');
    assert.equal(await ws.read('keep.txt'), 'keep\n');
  });

  it('undoes a move of a folder into a new parent', async () => {
    await ws.write({ 'notes/sub/a.md': 'a\n' });
    await turn((t) => tool(t, 'move', { source: 'notes', destination: 'archive/2026/notes' }));
    await store.undoLastTurn();
    assert.equal(await ws.read('notes/todo.md'), '# todo\n- one\n');
    assert.equal(await ws.read('notes/sub/a.md'), 'a\n');
    assert.equal(await ws.exists('archive'), false);
  });

  it('brings back a removed file with its mode', async () => {
    await fs.chmod(ws.path('keep.txt'), 0o444);
    await turn((t) => tool(t, 'remove', { path: 'keep.txt' }));
    assert.equal(await ws.exists('keep.txt'), false);
    await store.undoLastTurn();
    assert.equal(await ws.read('keep.txt'), 'keep\n');
    assert.equal(await modeOf(ws.path('keep.txt')), 0o444);
  });

  it('brings back a removed tree: nested files, modes, empty folders and symlinks as links', async () => {
    await ws.write({ 'tree/a.txt': 'A', 'tree/inner/b.bin': '', 'tree/inner/deeper/c.txt': 'C' });
    await fs.writeFile(ws.path('tree/inner/b.bin'), bytes(300, 7));
    await fs.mkdir(ws.path('tree/empty'));
    await fs.chmod(ws.path('tree/inner/deeper/c.txt'), 0o700);
    await fs.chmod(ws.path('tree/inner/deeper'), 0o750);
    await fs.writeFile(path.join(ws.parent, 'outside.txt'), 'outside secret');
    await fs.symlink('../a.txt', ws.path('tree/inner/to-a'));
    await fs.symlink(path.join(ws.parent, 'outside.txt'), ws.path('tree/out-link'));
    await fs.symlink(ws.parent, ws.path('tree/out-dir'));
    await turn((t) => tool(t, 'remove', { path: 'tree', recursive: true }));
    assert.equal(await ws.exists('tree'), false);

    const result = await store.undoLastTurn();
    assert.deepEqual(result?.restored, ['tree']);
    assert.equal(await ws.read('tree/a.txt'), 'A');
    assert.ok((await fs.readFile(ws.path('tree/inner/b.bin'))).equals(bytes(300, 7)));
    assert.equal(await ws.read('tree/inner/deeper/c.txt'), 'C');
    assert.equal(await modeOf(ws.path('tree/inner/deeper/c.txt')), 0o700);
    assert.equal(await modeOf(ws.path('tree/inner/deeper')), 0o750);
    assert.deepEqual(await fs.readdir(ws.path('tree/empty')), []);
    assert.equal(await fs.readlink(ws.path('tree/inner/to-a')), '../a.txt');
    assert.equal(await fs.readlink(ws.path('tree/out-link')), path.join(ws.parent, 'outside.txt'));
    assert.ok((await fs.lstat(ws.path('tree/out-dir'))).isSymbolicLink());
    const stored = await fs.readdir(path.join(storeDir, 'blobs'));
    for (const blob of stored) assert.notEqual(await fs.readFile(path.join(storeDir, 'blobs', blob), 'utf8'), 'outside secret');
  });

  it('undoes mkdir -p by removing the folders it created', async () => {
    await turn((t) => tool(t, 'mkdir', { path: 'x/y/z' }));
    assert.ok(await ws.exists('x/y/z'));
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.restored, ['x', 'x/y', 'x/y/z']);
    assert.equal(await ws.exists('x'), false);
  });

  it('keeps a created folder the person has since put a file in, and says so', async () => {
    await turn((t) => tool(t, 'mkdir', { path: 'x/y/z' }));
    await ws.write({ 'x/y/mine.txt': 'mine' });
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.restored, ['x/y/z']);
    assert.deepEqual(result?.skipped.map((s) => s.path), ['x', 'x/y']);
    assert.match(result?.skipped[1].reason ?? '', /not empty/);
    assert.equal(await ws.read('x/y/mine.txt'), 'mine');
    assert.equal(await ws.exists('x/y/z'), false);
  });

  it('puts a file changed several times in one turn back to its state before the first change', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'first' });
      await tool(t, 'write_file', { path: 'keep.txt', content: 'second' });
      await tool(t, 'move', { source: 'keep.txt', destination: 'moved.txt' });
      await tool(t, 'write_file', { path: 'keep.txt', content: 'third' });
    });
    assert.equal(store.turns()[0].paths.filter((p) => p === 'keep.txt').length, 1);
    await store.undoLastTurn();
    assert.equal(await ws.read('keep.txt'), 'keep\n');
    assert.equal(await ws.exists('moved.txt'), false);
  });

  it('undoes a write inside a folder that the same turn later removed', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'notes/todo.md', content: 'rewritten' });
      await tool(t, 'write_file', { path: 'notes/added.md', content: 'added' });
      await tool(t, 'remove', { path: 'notes', recursive: true });
      await tool(t, 'write_file', { path: 'notes/todo.md', content: 'again' });
    });
    await store.undoLastTurn();
    assert.deepEqual(await fs.readdir(ws.path('notes')), ['todo.md']);
    assert.equal(await ws.read('notes/todo.md'), '# todo\n- one\n');
  });

  it('undoes turns newest first, and only the newest of a chat by id', async () => {
    const first = await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'one' }));
    const second = await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'two' }));
    assert.deepEqual(store.turns().map((t) => [t.turnId, t.next]), [[second.turnId, true], [first.turnId, false]]);
    await assert.rejects(store.undoTurn(first.turnId), /newer turns/);
    assert.equal((await store.undoTurn(second.turnId)).turnId, second.turnId);
    assert.equal(await ws.read('keep.txt'), 'one');
    assert.equal((await store.undoLastTurn())?.turnId, first.turnId);
    assert.equal(await ws.read('keep.txt'), 'keep\n');
    assert.equal(await store.undoLastTurn(), undefined);
    assert.deepEqual(toApiUndoResult(undefined), { restored: [], skipped: [] });
  });

  it('keeps chats apart and refuses to undo a turn still running', async () => {
    await turn((t) => tool(t, 'write_file', { path: 'a.txt', content: 'chat one' }), 'chat-1');
    await turn((t) => tool(t, 'write_file', { path: 'b.txt', content: 'chat two' }), 'chat-2');
    store.beginTurn('running', 'chat-1');
    await store.recordBefore('running', ws.path('keep.txt'), ws.root);
    await assert.rejects(store.undoLastTurn('chat-1'), /still running/);
    await store.endTurn('running');
    assert.equal((await store.undoLastTurn('chat-1'))?.turnId, 'turn-1', 'a turn that changed nothing keeps no checkpoint');
    assert.equal(await ws.exists('a.txt'), false);
    assert.equal(await ws.read('b.txt'), 'chat two');
  });

  it('does not overwrite a file the person edited after the turn, and keeps the before copy', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
      await tool(t, 'write_file', { path: 'src/app.ts', content: 'agent app' });
    });
    await ws.write({ 'keep.txt': 'person' });
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.restored, ['src/app.ts']);
    assert.equal(result?.skipped.length, 1);
    const [skip] = result?.skipped ?? [];
    assert.equal(skip.path, 'keep.txt');
    assert.match(skip.reason, /changed after the turn/);
    assert.equal(await ws.read('keep.txt'), 'person');
    assert.equal(await fs.readFile(skip.before as string, 'utf8'), 'keep\n');
    assert.equal(await fs.readFile(skip.absolute as string, 'utf8'), 'person');
    assert.deepEqual(toApiUndoResult(result), { restored: ['src/app.ts'], skipped: ['keep.txt'] });
    const reopened = await CheckpointStore.open(storeDir, {}, clock);
    assert.equal(await fs.readFile(skip.before as string, 'utf8'), 'keep\n', 'the copy outlives the undo for the diff');
    assert.deepEqual(reopened.turns()[0].undone, true);
  });

  it('leaves a file the person deleted after the turn deleted', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
      await tool(t, 'write_file', { path: 'notes/todo.md', content: 'agent todo' });
    });
    await fs.rm(ws.path('keep.txt'));
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.skipped.map((s) => [s.path, s.reason]), [['keep.txt', 'deleted after the turn']]);
    assert.equal(await ws.exists('keep.txt'), false);
    assert.equal(await ws.read('notes/todo.md'), '# todo\n- one\n');
  });

  it('restores binary content exactly', async () => {
    const binary = Buffer.concat([bytes(256, 0), Buffer.from([0, 0, 0xff, 0xfe]), bytes(4096, 3)]);
    await fs.writeFile(ws.path('image.bin'), binary);
    await fs.writeFile(ws.path('other.bin'), bytes(1000, 9));
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'image.bin', content: 'text now' });
      await tool(t, 'remove', { path: 'other.bin' });
    });
    await store.undoLastTurn();
    assert.ok((await fs.readFile(ws.path('image.bin'))).equals(binary));
    assert.ok((await fs.readFile(ws.path('other.bin'))).equals(bytes(1000, 9)));
  });

  it('keeps no copy of a file over the per-file limit and says undo cannot bring it back', async () => {
    await open({ maxFileBytes: 1000 });
    await fs.writeFile(ws.path('big.dat'), bytes(2000, 1));
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'big.dat', content: 'small now' });
      await tool(t, 'write_file', { path: 'keep.txt', content: 'changed' });
    });
    assert.deepEqual(store.turns()[0].incomplete.map((s) => s.path), ['big.dat']);
    assert.deepEqual(await fs.readdir(path.join(storeDir, 'blobs')), [await blobNameOf('keep\n')]);
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.restored, ['keep.txt']);
    assert.deepEqual(result?.skipped.map((s) => s.path), ['big.dat']);
    assert.match(result?.skipped[0].reason ?? '', /over the 1000 B limit/);
    assert.equal(await ws.read('big.dat'), 'small now');
  });

  it('never deletes the only copy of a big file when undoing its move', async () => {
    await open({ maxFileBytes: 1000 });
    await ws.write({ 'data/small.txt': 'small' });
    await fs.writeFile(ws.path('data/big.dat'), bytes(5000, 2));
    await turn((t) => tool(t, 'move', { source: 'data', destination: 'moved' }));
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.skipped.map((s) => s.path), ['moved', 'data/big.dat']);
    assert.match(result?.skipped[0].reason ?? '', /moved\/big\.dat, of which no copy was kept/);
    assert.match(result?.skipped[1].reason ?? '', /no copy was kept/);
    assert.ok((await fs.readFile(ws.path('moved/big.dat'))).equals(bytes(5000, 2)));
    assert.equal(await ws.read('data/small.txt'), 'small', 'the rest of the source came back');
  });

  it('drops the oldest turns beyond the size bound and says which', async () => {
    await open({ maxTotalBytes: 2500 });
    await fs.writeFile(ws.path('one.bin'), bytes(1000, 1));
    await fs.writeFile(ws.path('two.bin'), bytes(1000, 2));
    await fs.writeFile(ws.path('three.bin'), bytes(1000, 3));
    const first = await turn((t) => tool(t, 'remove', { path: 'one.bin' }));
    const second = await turn((t) => tool(t, 'remove', { path: 'two.bin' }));
    assert.deepEqual([first.dropped, second.dropped], [[], []]);
    const third = await turn((t) => tool(t, 'remove', { path: 'three.bin' }));
    assert.deepEqual(third.dropped, [{ turnId: first.turnId, chatId: 'chat-1', startedAt: now, reason: 'size' }]);
    assert.equal((await fs.readdir(path.join(storeDir, 'blobs'))).length, 2, 'the dropped turn\'s copy is deleted');
    assert.deepEqual(store.turns().map((t) => t.turnId), [third.turnId, second.turnId]);
  });

  it('drops turns older than the age bound and beyond the turn count, at a turn\'s end and at open', async () => {
    await open({ maxAgeMs: 60_000, maxTurns: 2 });
    const a = await turn((t) => tool(t, 'write_file', { path: 'a.txt', content: 'a' }));
    now += 30_000;
    const b = await turn((t) => tool(t, 'write_file', { path: 'b.txt', content: 'b' }));
    const c = await turn((t) => tool(t, 'write_file', { path: 'c.txt', content: 'c' }));
    assert.deepEqual(c.dropped.map((d) => [d.turnId, d.reason]), [[a.turnId, 'count']]);
    now += 70_000;
    const d = await turn((t) => tool(t, 'write_file', { path: 'd.txt', content: 'd' }));
    assert.deepEqual(d.dropped.map((x) => [x.turnId, x.reason]), [[b.turnId, 'age'], [c.turnId, 'age']]);
    now += 120_000;
    const reopened = await CheckpointStore.open(storeDir, { maxAgeMs: 60_000 }, clock);
    assert.deepEqual(reopened.droppedAtOpen.map((x) => [x.turnId, x.reason]), [[d.turnId, 'age']]);
    assert.deepEqual(reopened.turns(), []);
    assert.deepEqual(await fs.readdir(path.join(storeDir, 'blobs')), []);
  });

  it('keeps its index across a re-open and undoes after it', async () => {
    const { turnId } = await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
      await tool(t, 'remove', { path: 'notes', recursive: true });
    });
    const index = JSON.parse(await fs.readFile(path.join(storeDir, 'index.json'), 'utf8'));
    assert.equal(index.turns[0].turnId, turnId);
    const reopened = await CheckpointStore.open(storeDir, {}, clock);
    assert.deepEqual(reopened.turns().map((t) => [t.turnId, t.paths]), [[turnId, ['keep.txt', 'notes']]]);
    const result = await reopened.undoLastTurn();
    assert.deepEqual(result?.restored, ['keep.txt', 'notes']);
    assert.equal(await ws.read('keep.txt'), 'keep\n');
    assert.equal(await ws.read('notes/todo.md'), '# todo\n- one\n');
  });

  it('closes a turn a reload interrupted, so it can still be undone', async () => {
    store.beginTurn('interrupted', 'chat-1');
    await tool('interrupted', 'write_file', { path: 'keep.txt', content: 'half way' });
    const reopened = await CheckpointStore.open(storeDir, {}, clock);
    assert.equal(reopened.turns()[0].running, false);
    await reopened.undoLastTurn();
    assert.equal(await ws.read('keep.txt'), 'keep\n');
  });

  it('after a reload, counts as the person\'s an edit made after the state recordAfter saw', async () => {
    store.beginTurn('interrupted', 'chat-1');
    await tool('interrupted', 'write_file', { path: 'keep.txt', content: 'agent' });
    await store.recordAfter('interrupted', ws.path('keep.txt'));
    await tool('interrupted', 'write_file', { path: 'src/app.ts', content: 'agent app' });
    await store.recordAfter('interrupted', ws.path('src/app.ts'));
    await ws.write({ 'keep.txt': 'person, before the reload' });
    const reopened = await CheckpointStore.open(storeDir, {}, clock);
    const result = await reopened.undoLastTurn();
    assert.deepEqual([result?.restored, result?.skipped.map((s) => s.path)], [['src/app.ts'], ['keep.txt']]);
    assert.equal(await ws.read('keep.txt'), 'person, before the reload');
  });

  it('records paths as the file tools resolve them, naming other roots by their folder', async () => {
    const other = path.join(ws.parent, 'other');
    await fs.mkdir(other);
    await fs.writeFile(path.join(other, 'x.txt'), 'x');
    store.beginTurn('t', 'chat-1');
    await store.recordPath('t', { absolute: path.join(other, 'x.txt'), root: other, relative: 'x.txt', display: 'other/x.txt' });
    await store.recordPath('t', { absolute: ws.path('keep.txt'), root: ws.root, relative: 'keep.txt', display: 'keep.txt' });
    await fs.writeFile(path.join(other, 'x.txt'), 'changed');
    await fs.writeFile(ws.path('keep.txt'), 'changed');
    await store.endTurn('t');
    assert.deepEqual(store.turns()[0].paths, ['other/x.txt', 'keep.txt']);
    await store.undoLastTurn();
    assert.equal(await fs.readFile(path.join(other, 'x.txt'), 'utf8'), 'x');
    assert.equal(await ws.read('keep.txt'), 'keep\n');
  });

  it('lets a tool run when a checkpoint cannot be saved, and undo then leaves that path alone', async () => {
    await fs.rm(path.join(storeDir, 'blobs'), { recursive: true });
    await fs.writeFile(path.join(storeDir, 'blobs'), 'storage broke');
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
      await tool(t, 'write_file', { path: '..dots/new.txt', content: 'new' });
    });
    assert.deepEqual(store.turns()[0].incomplete.map((s) => s.path), ['keep.txt']);
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.skipped.map((s) => s.path), ['keep.txt']);
    assert.match(result?.skipped[0].reason ?? '', /could not be saved/);
    assert.equal(await ws.read('keep.txt'), 'agent');
    assert.equal(await ws.exists('..dots'), false, 'a name starting with two dots is inside the workspace');
  });

  it('finishes an undo when a path can no longer be read, leaving it alone', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'loop/f.txt', content: 'f' });
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
    });
    await fs.rm(ws.path('loop'), { recursive: true });
    await fs.symlink('loop', ws.path('loop'));
    const result = await store.undoLastTurn();
    assert.deepEqual(result?.restored, ['keep.txt']);
    assert.deepEqual(result?.skipped.map((s) => s.path), ['loop', 'loop/f.txt']);
    assert.match(result?.skipped[1].reason ?? '', /could not be read/);
    assert.equal(await fs.readlink(ws.path('loop')), 'loop');
  });

  it('sets an unreadable index aside and starts empty', async () => {
    await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'agent' }));
    await fs.writeFile(path.join(storeDir, 'index.json'), '{ not json');
    const reopened = await CheckpointStore.open(storeDir, {}, clock);
    assert.deepEqual(reopened.turns(), []);
    assert.ok(await fs.stat(path.join(storeDir, 'index.json.unreadable')));
  });

  it('keeps notes of what undo cannot reach, even on a turn that changed no file', async () => {
    await turn(async (t) => store.noteSideEffect(t, 'run_bash: what its commands changed cannot be undone'));
    assert.deepEqual(store.turns()[0].notes, ['run_bash: what its commands changed cannot be undone']);
    const result = await store.undoLastTurn();
    assert.deepEqual([result?.restored, result?.notes], [[], ['run_bash: what its commands changed cannot be undone']]);
  });

  it('refuses paths outside the workspace and never restores through a link leading out', async () => {
    store.beginTurn('t', 'chat-1');
    await assert.rejects(store.recordBefore('t', path.join(ws.parent, 'outside.txt'), ws.root), /not inside the workspace/);
    await assert.rejects(store.recordBefore('t', ws.root, ws.root), /not inside the workspace/);
    await tool('t', 'remove', { path: 'notes', recursive: true });
    await store.endTurn('t');
    await fs.mkdir(path.join(ws.parent, 'elsewhere'));
    await fs.symlink(path.join(ws.parent, 'elsewhere'), ws.path('notes'));
    const result = await store.undoLastTurn();
    assert.equal(result?.skipped[0].path, 'notes');
    assert.deepEqual(await fs.readdir(path.join(ws.parent, 'elsewhere')), []);
  });

  async function blobNameOf(content: string): Promise<string> {
    const { createHash } = await import('node:crypto');
    return createHash('sha256').update(content).digest('hex');
  }
});
