import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
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
