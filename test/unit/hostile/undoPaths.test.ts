import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { CheckpointBench } from '../../support/checkpointBench';

/**
 * Undo writes only through real folders inside the workspace, and changes protected paths only
 * when the person confirms. Each case swaps something on disk after the turn and checks the disk.
 */
describe('hostile: what undo writes through', () => {
  const bench = CheckpointBench.use();
  const { tool, turn } = bench;

  it('does not restore through a folder swapped for a link into .git/hooks', async () => {
    await bench.ws.write({ 'work/pre-commit': 'echo original\n', '.git/hooks/.keep': '' });
    await turn((t) => tool(t, 'write_file', { path: 'work/pre-commit', content: 'echo agent\n' }));
    // After the turn, `work` becomes a link to .git/hooks: restoring work/pre-commit would write a hook.
    await fs.rm(bench.ws.path('work'), { recursive: true });
    await fs.symlink('.git/hooks', bench.ws.path('work'));
    await fs.writeFile(bench.ws.path('.git/hooks/pre-commit'), 'echo agent\n');
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, []);
    assert.match(result?.skipped.map((s) => s.reason).join('\n') ?? '', /is now a link/);
    assert.equal(await fs.readFile(bench.ws.path('.git/hooks/pre-commit'), 'utf8'), 'echo agent\n', 'the hook was not written');
  });

  it('does not restore through a folder swapped for a link leading out of the workspace', async () => {
    await bench.ws.write({ 'out/file.txt': 'original\n' });
    await turn((t) => tool(t, 'write_file', { path: 'out/file.txt', content: 'agent\n' }));
    await fs.mkdir(`${bench.ws.parent}/elsewhere`);
    await fs.writeFile(`${bench.ws.parent}/elsewhere/file.txt`, 'agent\n');
    await fs.rm(bench.ws.path('out'), { recursive: true });
    await fs.symlink(`${bench.ws.parent}/elsewhere`, bench.ws.path('out'));
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, []);
    assert.equal(await fs.readFile(`${bench.ws.parent}/elsewhere/file.txt`, 'utf8'), 'agent\n');
  });

  it('changes a protected path only when the person confirms, and asks once with its paths', async () => {
    await bench.ws.write({ '.vscode/settings.json': '{"safe": true}\n' });
    await turn(async (t) => {
      await tool(t, 'write_file', { path: '.vscode/settings.json', content: '{"safe": false}\n' });
      await tool(t, 'write_file', { path: 'keep.txt', content: 'agent\n' });
    });
    const asked: string[][] = [];
    const declined = await bench.store.undoLastTurn(undefined, { confirmProtected: async (paths) => (asked.push(paths), false) });
    assert.deepEqual(asked, [['.vscode/settings.json']]);
    assert.deepEqual(declined?.restored, ['keep.txt']);
    assert.match(declined?.skipped[0].reason ?? '', /protected path/);
    assert.equal(await bench.ws.read('.vscode/settings.json'), '{"safe": false}\n', 'left as it was');
  });

  it('without anyone to confirm, leaves protected paths alone; with a yes, puts them back', async () => {
    await bench.ws.write({ '.vscode/tasks.json': 'original\n' });
    await turn((t) => tool(t, 'write_file', { path: '.vscode/tasks.json', content: 'agent\n' }));
    const unasked = await bench.store.undoLastTurn();
    assert.deepEqual(unasked?.restored, []);
    assert.equal(await bench.ws.read('.vscode/tasks.json'), 'agent\n');

    await turn((t) => tool(t, 'write_file', { path: '.vscode/tasks.json', content: 'agent again\n' }));
    const confirmed = await bench.store.undoLastTurn(undefined, { confirmProtected: async () => true });
    assert.deepEqual(confirmed?.restored, ['.vscode/tasks.json']);
    assert.equal(await bench.ws.read('.vscode/tasks.json'), 'agent\n');
  });
});

/**
 * The undo records are read from a folder something else may have written: a forged index must not
 * make undo write outside the workspace folders the caller serves, or copy a file from anywhere
 * into the workspace. Each case forges the index of a real turn, reopens the store, undoes, and
 * checks the disk.
 */
describe('hostile: forged undo records', () => {
  const bench = CheckpointBench.use();
  const { tool, turn } = bench;

  type Index = { version: number; turns: { entries: { path: string; root?: string; before: Record<string, unknown> }[] }[] };
  /** Rewrites the stored index the way a process with access to the store folder could, then reopens the store. */
  const forge = async (change: (index: Index) => void) => {
    const file = path.join(bench.storeDir, 'index.json');
    const index = JSON.parse(await fs.readFile(file, 'utf8')) as Index;
    change(index);
    await fs.writeFile(file, JSON.stringify(index));
    await bench.open();
  };

  it('an entry naming root "/" and a path outside the workspace is left alone: nothing is written there', async () => {
    const victim = path.join(bench.ws.parent, 'outside', 'victim.txt');
    await fs.mkdir(path.dirname(victim));
    await fs.writeFile(victim, 'victim\n');
    await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'agent\n' }));
    await forge((index) => {
      const entry = index.turns[0].entries[0];
      entry.path = victim;
      entry.root = '/';
      // What the turn "left" there is what will be there at undo (nothing), so undo would put the stored copy there.
      (entry as { afterSig?: string }).afterSig = 'absent';
    });
    await fs.rm(victim);
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, []);
    assert.match(result?.skipped[0].reason ?? '', /not inside the workspace folders/);
    assert.equal(await fs.stat(victim).then(() => 'written', () => 'absent'), 'absent', 'nothing was written outside the workspace');
  });

  it('a stored copy named ../../x/id_rsa is refused: no file from elsewhere lands in the workspace', async () => {
    const secret = path.join(bench.ws.parent, 'x', 'id_rsa');
    await fs.mkdir(path.dirname(secret));
    await fs.writeFile(secret, 'PRIVATE KEY\n');
    await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'agent\n' }));
    const traversal = path.relative(path.join(bench.storeDir, 'blobs'), secret);
    await forge((index) => (index.turns[0].entries[0].before.hash = traversal));
    await assert.rejects(bench.store.undoLastTurn(), /damaged .*not a sha256.*nothing was changed/);
    assert.equal(await bench.ws.read('keep.txt'), 'agent\n', 'the workspace file was left as it was');
  });

  it('a stored copy swapped for a link to another file (its name a valid hash) is not followed', async () => {
    const secret = path.join(bench.ws.parent, 'id_rsa');
    await fs.writeFile(secret, 'PRIVATE KEY\n');
    await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'agent\n' }));
    const hash = (JSON.parse(await fs.readFile(path.join(bench.storeDir, 'index.json'), 'utf8')) as Index).turns[0].entries[0].before.hash as string;
    await fs.rm(path.join(bench.storeDir, 'blobs', hash));
    await fs.symlink(secret, path.join(bench.storeDir, 'blobs', hash));
    const result = await bench.store.undoLastTurn();
    assert.deepEqual(result?.restored, []);
    assert.match(result?.skipped[0].reason ?? '', /stored copy is a link/);
    assert.equal(await bench.ws.read('keep.txt'), 'agent\n');
  });

  it('a folder snapshot holding a name with ../ writes nothing outside the folder', async () => {
    await bench.ws.write({ 'dir/a.txt': 'a\n' });
    await turn((t) => tool(t, 'remove', { path: 'dir', recursive: true }));
    await forge((index) => {
      const before = index.turns[0].entries[0].before as { children: Record<string, unknown> };
      before.children['../../escaped.txt'] = before.children['a.txt'];
    });
    await assert.rejects(bench.store.undoLastTurn(), /damaged .*not one path component/);
    assert.equal(await fs.stat(path.join(bench.ws.parent, 'escaped.txt')).then(() => 'written', () => 'absent'), 'absent');
    assert.equal(await bench.ws.exists('dir'), false, 'nothing of the turn was put back either');
  });

  it('a restored file never gets a set-user-id bit, whatever the record says', async () => {
    await turn((t) => tool(t, 'write_file', { path: 'keep.txt', content: 'agent\n' }));
    await forge((index) => (index.turns[0].entries[0].before.mode = 0o4755));
    await bench.store.undoLastTurn();
    assert.equal(await bench.ws.read('keep.txt'), 'keep\n');
    assert.equal((await fs.stat(bench.ws.path('keep.txt'))).mode & 0o7777, 0o755);
  });
});
