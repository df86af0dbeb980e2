import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CheckpointStore } from '../../src/tools/undo/checkpoints';
import { bytes, CheckpointBench } from '../support/checkpointBench';

const modeOf = async (file: string) => (await fs.lstat(file)).mode & 0o7777;

/** What undo puts back after each file tool, and what it leaves alone (the person's later edits, paths it cannot read). */
describe('checkpoint undo', () => {
  const bench = CheckpointBench.use();
  const { open, tool, turn } = bench;

  it('undoes a created file by deleting it, with the folders the write created', async () => {
    await turn((t) => tool(t, 'write_file', { path: 'gen/deep/new.txt', content: 'fresh' }));
    assert.equal(await bench.ws.read('gen/deep/new.txt'), 'fresh');
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, ['gen', 'gen/deep', 'gen/deep/new.txt']);
    assert.deepEqual(result?.removed, ['gen', 'gen/deep', 'gen/deep/new.txt'], 'said as removed: the turn had created them');
    assert.deepEqual(result?.unchanged, []);
    assert.deepEqual(result?.skipped, []);
    assert.equal(await bench.ws.exists('gen'), false);
    assert.deepEqual((await fs.readdir(bench.ws.root)).sort(), ['keep.txt', 'notes', 'src'], 'nothing of the store lands in the workspace');
  });

  it('restores an overwritten file byte for byte and mode for mode', async () => {
    const original = Buffer.from('line one\r\nline two\n\u00e9\n', 'utf8');
    await fs.writeFile(bench.ws.path('run.sh'), original);
    await fs.chmod(bench.ws.path('run.sh'), 0o751);
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'run.sh', content: 'echo replaced\n' });
      await fs.chmod(bench.ws.path('run.sh'), 0o600);
    });
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, ['run.sh']);
    assert.deepEqual([result?.removed, result?.unchanged], [[], []], 'an overwritten file is restored, not removed');
    assert.ok((await fs.readFile(bench.ws.path('run.sh'))).equals(original));
    assert.equal(await modeOf(bench.ws.path('run.sh')), 0o751);
  });

  it('undoes a move to a new name: the destination goes, the source comes back', async () => {
    await turn((t) => tool(t, 'move', { source: 'src/app.ts', destination: 'lib/app.ts' }));
    assert.equal(await bench.ws.exists('src/app.ts'), false);
    await bench.store.undoLastTurn();
    assert.equal(await bench.ws.read('src/app.ts'), 'export const app = 1;\n');
    assert.equal(await bench.ws.exists('lib'), false);
  });

  it('undoes a move over an existing file: both sides get their old content', async () => {
    await bench.ws.write({ 'b.txt': 'old b\n' });
    await turn((t) => tool(t, 'move', { source: 'keep.txt', destination: 'b.txt', overwrite: true }));
    assert.equal(await bench.ws.read('b.txt'), 'keep\n');
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored.sort(), ['b.txt', 'keep.txt']);
    assert.equal(await bench.ws.read('b.txt'), 'old b\n');
    assert.equal(await bench.ws.read('keep.txt'), 'keep\n');
  });

  it('undoes a move of a folder into a new parent', async () => {
    await bench.ws.write({ 'notes/sub/a.md': 'a\n' });
    await turn((t) => tool(t, 'move', { source: 'notes', destination: 'archive/2026/notes' }));
    await bench.store.undoLastTurn();
    assert.equal(await bench.ws.read('notes/todo.md'), '# todo\n- one\n');
    assert.equal(await bench.ws.read('notes/sub/a.md'), 'a\n');
    assert.equal(await bench.ws.exists('archive'), false);
  });

  it('brings back a removed file with its mode', async () => {
    await fs.chmod(bench.ws.path('keep.txt'), 0o444);
    await turn((t) => tool(t, 'remove', { path: 'keep.txt' }));
    assert.equal(await bench.ws.exists('keep.txt'), false);
    await bench.store.undoLastTurn();
    assert.equal(await bench.ws.read('keep.txt'), 'keep\n');
    assert.equal(await modeOf(bench.ws.path('keep.txt')), 0o444);
  });

  it('brings back a removed tree: nested files, modes, empty folders and symlinks as links', async () => {
    await bench.ws.write({ 'tree/a.txt': 'A', 'tree/inner/b.bin': '', 'tree/inner/deeper/c.txt': 'C' });
    await fs.writeFile(bench.ws.path('tree/inner/b.bin'), bytes(300, 7));
    await fs.mkdir(bench.ws.path('tree/empty'));
    await fs.chmod(bench.ws.path('tree/inner/deeper/c.txt'), 0o700);
    await fs.chmod(bench.ws.path('tree/inner/deeper'), 0o750);
    await fs.writeFile(path.join(bench.ws.parent, 'outside.txt'), 'outside secret');
    await fs.symlink('../a.txt', bench.ws.path('tree/inner/to-a'));
    await fs.symlink(path.join(bench.ws.parent, 'outside.txt'), bench.ws.path('tree/out-link'));
    await fs.symlink(bench.ws.parent, bench.ws.path('tree/out-dir'));
    await turn((t) => tool(t, 'remove', { path: 'tree', recursive: true }));
    assert.equal(await bench.ws.exists('tree'), false);

    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, ['tree']);
    assert.equal(await bench.ws.read('tree/a.txt'), 'A');
    assert.ok((await fs.readFile(bench.ws.path('tree/inner/b.bin'))).equals(bytes(300, 7)));
    assert.equal(await bench.ws.read('tree/inner/deeper/c.txt'), 'C');
    assert.equal(await modeOf(bench.ws.path('tree/inner/deeper/c.txt')), 0o700);
    assert.equal(await modeOf(bench.ws.path('tree/inner/deeper')), 0o750);
    assert.deepEqual(await fs.readdir(bench.ws.path('tree/empty')), []);
    assert.equal(await fs.readlink(bench.ws.path('tree/inner/to-a')), '../a.txt');
    assert.equal(await fs.readlink(bench.ws.path('tree/out-link')), path.join(bench.ws.parent, 'outside.txt'));
    assert.ok((await fs.lstat(bench.ws.path('tree/out-dir'))).isSymbolicLink());
    const stored = await fs.readdir(path.join(bench.storeDir, 'blobs'));
    for (const blob of stored) assert.notEqual(await fs.readFile(path.join(bench.storeDir, 'blobs', blob), 'utf8'), 'outside secret');
  });

  it('undoes mkdir -p by removing the folders it created', async () => {
    await turn((t) => tool(t, 'mkdir', { path: 'x/y/z' }));
    assert.ok(await bench.ws.exists('x/y/z'));
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, ['x', 'x/y', 'x/y/z']);
    assert.equal(await bench.ws.exists('x'), false);
  });

  it('keeps a created folder the person has since put a file in, and says so', async () => {
    await turn((t) => tool(t, 'mkdir', { path: 'x/y/z' }));
    await bench.ws.write({ 'x/y/mine.txt': 'mine' });
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, ['x/y/z']);
    assert.deepEqual(result?.skipped.map((s) => s.path), ['x', 'x/y']);
    assert.match(result?.skipped[1].reason ?? '', /not empty/);
    assert.equal(await bench.ws.read('x/y/mine.txt'), 'mine');
    assert.equal(await bench.ws.exists('x/y/z'), false);
  });

  it('puts a file changed several times in one turn back to its state before the first change', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'first' });
      await tool(t, 'write_file', { path: 'keep.txt', content: 'second' });
      await tool(t, 'move', { source: 'keep.txt', destination: 'moved.txt' });
      await tool(t, 'write_file', { path: 'keep.txt', content: 'third' });
    });
    assert.equal(bench.store.turns()[0].paths.filter((p) => p === 'keep.txt').length, 1);
    await bench.store.undoLastTurn();
    assert.equal(await bench.ws.read('keep.txt'), 'keep\n');
    assert.equal(await bench.ws.exists('moved.txt'), false);
  });

  it('undoes a write inside a folder that the same turn later removed', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'notes/todo.md', content: 'rewritten' });
      await tool(t, 'write_file', { path: 'notes/added.md', content: 'added' });
      await tool(t, 'remove', { path: 'notes', recursive: true });
      await tool(t, 'write_file', { path: 'notes/todo.md', content: 'again' });
    });
    await bench.store.undoLastTurn();
    assert.deepEqual(await fs.readdir(bench.ws.path('notes')), ['todo.md']);
    assert.equal(await bench.ws.read('notes/todo.md'), '# todo\n- one\n');
  });

  it('says which files were already as before the turn (the person put them back) instead of claiming it restored them', async () => {
    await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'agent' }));
    await bench.ws.write({ 'keep.txt': 'keep\n' });
    const result = await bench.store.undoLastTurn();
    assert.deepEqual([result?.restored, result?.unchanged, result?.removed], [['keep.txt'], ['keep.txt'], []]);
  });

  it('does not overwrite a file the person edited after the turn, and keeps the before copy', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
      await tool(t, 'write_file', { path: 'src/app.ts', content: 'agent app' });
    });
    await bench.ws.write({ 'keep.txt': 'person' });
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, ['src/app.ts']);
    assert.equal(result?.skipped.length, 1);
    const [skip] = result?.skipped ?? [];
    assert.equal(skip.path, 'keep.txt');
    assert.match(skip.reason, /changed after the turn/);
    assert.equal(await bench.ws.read('keep.txt'), 'person');
    assert.equal(await fs.readFile(skip.before as string, 'utf8'), 'keep\n');
    assert.equal(await fs.readFile(skip.absolute as string, 'utf8'), 'person');
    const reopened = await CheckpointStore.open(bench.storeDir, bench.roots, {}, bench.clock);
    assert.equal(await fs.readFile(skip.before as string, 'utf8'), 'keep\n', 'the copy outlives the undo for the diff');
    assert.deepEqual(reopened.turns()[0].undone, true);
  });

  it('leaves a file the person deleted after the turn deleted', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
      await tool(t, 'write_file', { path: 'notes/todo.md', content: 'agent todo' });
    });
    await fs.rm(bench.ws.path('keep.txt'));
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.skipped.map((s) => [s.path, s.reason]), [['keep.txt', 'deleted after the turn']]);
    assert.equal(await bench.ws.exists('keep.txt'), false);
    assert.equal(await bench.ws.read('notes/todo.md'), '# todo\n- one\n');
  });

  it('restores binary content exactly', async () => {
    const binary = Buffer.concat([bytes(256, 0), Buffer.from([0, 0, 0xff, 0xfe]), bytes(4096, 3)]);
    await fs.writeFile(bench.ws.path('image.bin'), binary);
    await fs.writeFile(bench.ws.path('other.bin'), bytes(1000, 9));
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'image.bin', content: 'text now' });
      await tool(t, 'remove', { path: 'other.bin' });
    });
    await bench.store.undoLastTurn();
    assert.ok((await fs.readFile(bench.ws.path('image.bin'))).equals(binary));
    assert.ok((await fs.readFile(bench.ws.path('other.bin'))).equals(bytes(1000, 9)));
  });

  it('never deletes the only copy of a big file when undoing its move', async () => {
    await open({ maxFileBytes: 1000 });
    await bench.ws.write({ 'data/small.txt': 'small' });
    await fs.writeFile(bench.ws.path('data/big.dat'), bytes(5000, 2));
    await turn((t) => tool(t, 'move', { source: 'data', destination: 'moved' }));
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.skipped.map((s) => s.path), ['moved', 'data/big.dat']);
    assert.match(result?.skipped[0].reason ?? '', /moved\/big\.dat, of which no copy was kept/);
    assert.match(result?.skipped[1].reason ?? '', /no copy was kept/);
    assert.ok((await fs.readFile(bench.ws.path('moved/big.dat'))).equals(bytes(5000, 2)));
    assert.equal(await bench.ws.read('data/small.txt'), 'small', 'the rest of the source came back');
  });

  it('finishes an undo when a path can no longer be read, leaving it alone', async () => {
    await turn(async (t) => {
      await tool(t, 'write_file', { path: 'loop/f.txt', content: 'f' });
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent' });
    });
    await fs.rm(bench.ws.path('loop'), { recursive: true });
    await fs.symlink('loop', bench.ws.path('loop'));
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, ['keep.txt']);
    assert.deepEqual(result?.skipped.map((s) => s.path), ['loop', 'loop/f.txt']);
    assert.match(result?.skipped[1].reason ?? '', /could not be read/);
    assert.equal(await fs.readlink(bench.ws.path('loop')), 'loop');
  });

  it('refuses paths outside the workspace and never restores through a link leading out', async () => {
    bench.store.beginTurn('t', 'chat-1');
    await assert.rejects(bench.store.recordBefore('t', path.join(bench.ws.parent, 'outside.txt'), bench.ws.root), /not inside the workspace/);
    await assert.rejects(bench.store.recordBefore('t', bench.ws.root, bench.ws.root), /not inside the workspace/);
    await tool('t', 'remove', { path: 'notes', recursive: true });
    await bench.store.endTurn('t');
    await fs.mkdir(path.join(bench.ws.parent, 'elsewhere'));
    await fs.symlink(path.join(bench.ws.parent, 'elsewhere'), bench.ws.path('notes'));
    const result = await bench.store.undoLastTurn();
    assert.equal(result?.skipped[0].path, 'notes');
    assert.deepEqual(await fs.readdir(path.join(bench.ws.parent, 'elsewhere')), []);
  });
});
