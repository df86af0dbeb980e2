import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolCallRecord } from '../../src/tools/toolCallLog';
import type { ToolbeltApi } from '../../src/vscode/api';
import { ModelServer } from '../support/modelServer';
import { activateToolbelt, setChatSettings, setRegistry, waitFor } from './helpers';

describe('The tool-call log in a real extension host', () => {
  let api: ToolbeltApi;
  let model: ModelServer;

  before(async () => {
    api = await activateToolbelt();
    model = await ModelServer.start();
    await setChatSettings({ provider: 'openai', baseUrl: model.openaiBaseUrl, model: 'scripted-model' });
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-integration');
    await setRegistry([{ name: 'read_file' }]);
    await waitFor(() => api.tools.list().length === 1, 'read_file registered');
  });

  after(async () => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await setChatSettings({ provider: undefined, baseUrl: undefined, model: undefined });
    await setRegistry(undefined);
    await model.close();
  });

  it('records each call of a chat turn with its status, cut arguments and who approved it', async () => {
    const outside = `/outside/${'deep/'.repeat(60)}secret.txt`;
    const before = (await api.tools.log()).length;
    model.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'src/hello.ts' } }, { name: 'read_file', arguments: { path: outside } }] },
      { text: 'Read one, the other is outside.' },
    );
    assert.equal(await api.chat.send('Read src/hello.ts and a file outside the workspace.'), 'Read one, the other is outside.');

    const records = (await api.tools.log()).slice(before);
    assert.equal(records.length, 2, JSON.stringify(records));
    const [ok, refused] = records;
    assert.deepEqual(
      records.map((r) => [r.tool, r.status, r.approvedBy]),
      [
        ['read_file', 'ok', 'auto'],
        ['read_file', 'refused', 'refused'],
      ],
    );
    assert.deepEqual(ok.args, { path: 'src/hello.ts' });
    assert.equal(refused.args.path, `${outside.slice(0, 200)}… [cut: ${outside.length} characters]`);
    assert.equal(ok.resultChars, (await vscode.workspace.fs.readFile(vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, 'src/hello.ts'))).byteLength);
    assert.ok(ok.chatId && ok.chatId !== 'none', 'the chat turn names its chat');
    assert.equal(refused.chatId, ok.chatId);
    for (const record of records) {
      assert.ok(Date.parse(record.time) > Date.now() - 60_000, record.time);
      assert.equal(typeof record.durationMs, 'number');
    }
  });

  it('toolbelt.showToolLog opens the log file, which holds the same records as JSON lines', async () => {
    const records = await api.tools.log();
    await vscode.commands.executeCommand('toolbelt.showToolLog');
    await waitFor(() => vscode.window.activeTextEditor?.document.uri.fsPath.endsWith('tool-calls.jsonl') === true, 'the log open in an editor');
    const file = vscode.window.activeTextEditor!.document.uri.fsPath;
    assert.ok(path.isAbsolute(file));
    const lines = (await fs.readFile(file, 'utf8')).trim().split('\n');
    const last = lines.slice(-2).map((line) => JSON.parse(line) as ToolCallRecord);
    assert.deepEqual(last, records.slice(-2));
    assert.ok(!lines.some((line) => line.includes('export function hello')), 'no result text in the log');
  });
});
