import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { ModelServer } from '../support/modelServer';
import { activateToolbelt, setChatSettings, setRegistry, waitFor } from './helpers';

/** Per-turn undo through the API in the real host: files back byte for byte and mode for mode. */
describe('Undo a chat turn in a real extension host', () => {
  let api: ToolbeltApi;
  let model: ModelServer;
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = (relative: string) => path.join(root(), relative);

  before(async () => {
    api = await activateToolbelt();
    model = await ModelServer.start();
    await setChatSettings({ provider: 'openai', baseUrl: model.openaiBaseUrl, model: 'scripted-model' });
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-undo');
    await setRegistry([{ name: 'write_file' }, { name: 'move' }, { name: 'mkdir' }]);
    await waitFor(() => api.tools.list().length === 3, 'three tools');
    await vscode.commands.executeCommand('toolbelt.newChat');
  });

  after(async () => {
    await setChatSettings({ provider: undefined, baseUrl: undefined, model: undefined });
    await setRegistry(undefined);
    await model.close();
    for (const name of ['undo-a.sh', 'undo-b.txt', 'undo-c.txt', 'undo-moved.txt', 'undo-dir']) await fs.rm(file(name), { recursive: true, force: true });
  });

  it('puts back what a turn wrote, moved and created, and skips a file the person changed since', async () => {
    await fs.writeFile(file('undo-a.sh'), '#!/bin/sh\necho original\n');
    await fs.chmod(file('undo-a.sh'), 0o755);
    await fs.writeFile(file('undo-b.txt'), 'b before\n');
    await fs.writeFile(file('undo-c.txt'), 'c moves\n');
    model.enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'undo-a.sh', content: '#!/bin/sh\necho changed\n' } },
          { name: 'write_file', arguments: { path: 'undo-b.txt', content: 'b by the agent\n' } },
          { name: 'move', arguments: { source: 'undo-c.txt', destination: 'undo-moved.txt' } },
          { name: 'mkdir', arguments: { path: 'undo-dir/nested' } },
        ],
      },
      { text: 'Changed.' },
    );
    await api.chat.send('Change some files');
    assert.equal(await fs.readFile(file('undo-a.sh'), 'utf8'), '#!/bin/sh\necho changed\n');
    await fs.writeFile(file('undo-b.txt'), 'b by the person\n');

    const result = await api.chat.undoLastTurn();
    assert.deepEqual(result.skipped, ['undo-b.txt']);
    for (const restored of ['undo-a.sh', 'undo-c.txt', 'undo-moved.txt']) assert.ok(result.restored.includes(restored), `${restored} in ${result.restored.join(', ')}`);
    assert.equal(await fs.readFile(file('undo-a.sh'), 'utf8'), '#!/bin/sh\necho original\n');
    assert.equal((await fs.stat(file('undo-a.sh'))).mode & 0o777, 0o755, 'the mode is back too');
    assert.equal(await fs.readFile(file('undo-b.txt'), 'utf8'), 'b by the person\n', 'the person\'s edit is kept');
    assert.equal(await fs.readFile(file('undo-c.txt'), 'utf8'), 'c moves\n');
    await assert.rejects(fs.stat(file('undo-moved.txt')));
    await assert.rejects(fs.stat(file('undo-dir')));

    const log = await api.tools.log();
    const calls = log.slice(-4);
    assert.deepEqual(calls.map((c) => [c.tool, c.status]), [['write_file', 'ok'], ['write_file', 'ok'], ['move', 'ok'], ['mkdir', 'ok']]);
    assert.deepEqual(await api.chat.undoLastTurn(), { restored: [], skipped: [] }, 'nothing left to undo');
  });
});
