import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { ModelServer } from '../support/modelServer';
import { activateToolbelt, setChatSettings, setRegistry, waitFor } from './helpers';
import { ScriptedChatModel, toolbeltTurn } from './scriptedLmModel';

const PANEL_MARKER = 'panel-conversation-7f3a';
const AGENT_MARKER = 'toolbelt-participant-91c2';

/**
 * Each call carries its caller: while a panel turn waits on an approval, calls from VS Code's
 * chat and from @toolbelt land in their own undo records, log records and session context.
 */
describe('One call, one caller: the panel, VS Code\'s chat and @toolbelt at the same time', () => {
  let api: ToolbeltApi;
  let model: ModelServer;
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const file = (relative: string) => path.join(root(), relative);
  const sessionFile = () => file(path.join('callers-sessions', 'context.md'));

  before(async () => {
    api = await activateToolbelt();
    model = await ModelServer.start();
    await setChatSettings({ provider: 'openai', baseUrl: model.openaiBaseUrl, model: 'scripted-model', sessionContextFile: 'callers-sessions/context.md' });
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-callers');
    await setRegistry([{ name: 'write_file' }, { name: 'save_session_context' }]);
    await waitFor(() => api.tools.list().length === 2, 'two tools');
    await vscode.commands.executeCommand('toolbelt.newChat');
  });

  after(async () => {
    await setChatSettings({ provider: undefined, baseUrl: undefined, model: undefined, sessionContextFile: undefined });
    await setRegistry(undefined);
    await model.close();
    for (const name of ['callers-panel.txt', 'callers-vscode.txt', 'callers-agent.txt', 'callers-sessions', '.vscode/callers-protected.json']) {
      await fs.rm(file(name), { recursive: true, force: true });
    }
  });

  it('files each write in its own undo and log record, and saves each session context from its own chat', async () => {
    model.enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'callers-panel.txt', content: 'by the panel\n' } },
          // A protected path: the panel turn waits on the person's approval here.
          { name: 'write_file', arguments: { path: '.vscode/callers-protected.json', content: '{}' } },
        ],
      },
      { text: 'Done.' },
    );
    const panelTurn = api.chat.send(`Write the panel file (${PANEL_MARKER})`);
    await waitFor(async () => (await api.tools.log()).some((r) => r.tool === 'write_file' && r.args.path === 'callers-panel.txt'), 'the panel turn to write its file');

    // Copilot's agent (any vscode.lm caller) while the panel turn waits.
    await vscode.lm.invokeTool('toolbelt_write_file', { input: { path: 'callers-vscode.txt', content: 'by VS Code chat\n' }, toolInvocationToken: undefined });
    await vscode.lm.invokeTool('toolbelt_save_session_context', { input: { reason: 'from VS Code chat' }, toolInvocationToken: undefined });
    const savedByVscodeChat = await fs.readFile(sessionFile(), 'utf8');
    assert.ok(!savedByVscodeChat.includes(PANEL_MARKER), "VS Code's chat did not save the panel's conversation");
    assert.match(savedByVscodeChat, /VS Code's chat/);

    // @toolbelt while the panel turn waits.
    const agentModel = new ScriptedChatModel([
      [new vscode.LanguageModelToolCallPart('c1', 'write_file', { path: 'callers-agent.txt', content: 'by @toolbelt\n' })],
      [new vscode.LanguageModelToolCallPart('c2', 'save_session_context', { reason: 'from @toolbelt' })],
      [new vscode.LanguageModelTextPart('Saved.')],
    ]);
    const { result } = await toolbeltTurn(agentModel, `Save this (${AGENT_MARKER})`);
    assert.deepEqual(result, {});
    const savedByAgent = await fs.readFile(sessionFile(), 'utf8');
    assert.ok(savedByAgent.includes(AGENT_MARKER), `@toolbelt saved its own conversation:\n${savedByAgent}`);
    assert.ok(!savedByAgent.includes(PANEL_MARKER), '@toolbelt did not save the panel conversation');

    // The panel's approval is never given: Stop ends the turn, and the protected file is not written.
    await vscode.commands.executeCommand('toolbelt.chat.stop');
    await panelTurn.catch(() => undefined);

    const log = await api.tools.log();
    const record = (p: string) => log.filter((r) => r.tool === 'write_file' && r.args.path === p).at(-1);
    const panelChat = record('callers-panel.txt')!.chatId;
    assert.notEqual(panelChat, 'none');
    assert.equal(record('callers-panel.txt')?.caller, 'Toolbelt chat');
    assert.equal(record('callers-vscode.txt')?.chatId, 'vscode-chat');
    assert.equal(record('callers-vscode.txt')?.caller, "VS Code's chat");
    assert.match(record('callers-agent.txt')?.chatId ?? '', /^participant:/);
    assert.equal(record('callers-agent.txt')?.caller, '@toolbelt');
    assert.equal(record('.vscode/callers-protected.json')?.chatId, panelChat);
    assert.equal(record('.vscode/callers-protected.json')?.status, 'cancelled');
    await assert.rejects(fs.stat(file('.vscode/callers-protected.json')));

    // Undo of the panel turn puts back only the panel's own write.
    const undone = await api.chat.undoLastTurn();
    assert.deepEqual(undone.restored, ['callers-panel.txt']);
    await assert.rejects(fs.stat(file('callers-panel.txt')));
    assert.equal(await fs.readFile(file('callers-vscode.txt'), 'utf8'), 'by VS Code chat\n');
    assert.equal(await fs.readFile(file('callers-agent.txt'), 'utf8'), 'by @toolbelt\n');
  });
});
