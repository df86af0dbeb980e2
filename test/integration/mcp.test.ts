import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { ModelServer } from '../support/modelServer';
import { activateToolbelt, setChatSettings, setRegistry, waitFor } from './helpers';
import { answerApprovals, processesTagged, removeMcpJson, restoreApprovals, writeMcpJson } from './mcpFixture';

const SERVER = 'fixture';
const TAG = `toolbelt-mcp-${process.pid}-${Date.now()}`;
/** A server of .vscode/mcp.json: VS Code starts it too, and its row says so. */
const SHARED = ' · ⚠ also run by VS Code';

type Row = ReturnType<ToolbeltApi['views']['toolsTree']>[number];

describe('MCP servers from .vscode/mcp.json in a real extension host', () => {
  let api: ToolbeltApi;
  let model: ModelServer;
  const row = (id: string): Row | undefined => api.views.toolsTree().find((r) => r.id === id);
  const echo = () => api.tools.list().find((t) => t.name === `${SERVER}/echo`);

  before(async () => {
    api = await activateToolbelt();
    model = await ModelServer.start();
    await setChatSettings({ provider: 'openai', baseUrl: model.openaiBaseUrl, model: 'scripted-model' });
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-integration');
    api.tools.list(); // loads the host, which registers the tool sources
    await waitFor(async () => (await vscode.commands.getCommands(true)).includes('toolbelt.mcp.testing.approvals'), 'the tool sources registered');
    await answerApprovals(true);
    await writeMcpJson(SERVER, TAG);
    await setRegistry([{ name: 'calculator' }, { name: `${SERVER}/echo` }]);
  });

  after(async () => {
    await vscode.commands.executeCommand('toolbelt.mcp.stop', SERVER).then(undefined, () => undefined);
    await removeMcpJson();
    await restoreApprovals();
    await setRegistry(undefined);
    await setChatSettings({ provider: undefined, baseUrl: undefined, model: undefined });
    await model.close();
  });

  it('lists the registered tool as waiting, the server as not started, and spawns nothing', async () => {
    await waitFor(() => row(`source:${SERVER}`), 'the server in the tree');
    assert.equal(echo()?.state, 'waiting');
    assert.equal(echo()?.enabled, false);
    assert.equal(row(`source:${SERVER}`)?.description, `not started${SHARED}`);
    assert.equal(row(`source:${SERVER}`)?.contextValue, 'toolbelt.mcpServer.notStarted.shared', 'a server of .vscode/mcp.json, which VS Code starts too');
    assert.match(row(`active:${SERVER}:${SERVER}/echo`)?.description ?? '', /^waiting: fixture has not started yet/);
    assert.equal(row('group:active')?.description?.startsWith('1 of 1 enabled'), true, 'the builtins keep their own group');
    assert.deepEqual(await processesTagged(TAG), []);
    assert.deepEqual(await answerApprovals(), [], 'nothing asked before a start');
  });

  it('asks before the first start, then lists, enables and offers the tool', async () => {
    await vscode.commands.executeCommand('toolbelt.mcp.start', SERVER);
    const asks = await answerApprovals();
    assert.equal(asks.length, 1);
    assert.equal(asks[0].changed, false);
    assert.match(asks[0].detail, new RegExp(`^Command: ${process.execPath.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\S+goodServer\\.js --tag=${TAG}$`, 'm'));
    assert.match(asks[0].detail, /Defined in: \.vscode\/mcp\.json/);
    const tool = await waitFor(() => (echo()?.state === 'ready' ? echo() : undefined), 'fixture/echo ready');
    assert.equal(tool.enabled, true);
    assert.equal(tool.runWithoutAsking, false);
    assert.equal((await processesTagged(TAG)).length, 1);
    assert.match(row(`source:${SERVER}`)?.description ?? '', /^running · \d+ tools · sandboxed, network off · ⚠ also run by VS Code$/);
    assert.match(row(`active:${SERVER}:${SERVER}/echo`)?.description ?? '', /^asks before each call · says read-only/);
    assert.ok(api.tools.available().tools.some((t) => t.name === `${SERVER}/add`), 'its other tools are available');
    assert.ok(row(`available:${SERVER}:${SERVER}/add`), 'and listed under the server');
  });

  it('runs a chat turn through the API that calls the tool and gets its result', async () => {
    await vscode.commands.executeCommand('toolbelt.tools.toggleAskBeforeCall', `${SERVER}/echo`);
    await waitFor(() => echo()?.runWithoutAsking === true, 'run without asking');
    assert.match(row(`active:${SERVER}:${SERVER}/echo`)?.description ?? '', /^runs without asking/);
    model.reset();
    model.enqueue({ toolCalls: [{ name: `${SERVER}_echo`, arguments: { text: 'hello from the fixture' } }] }, { text: 'The server said hello.' });
    const reply = await api.chat.send('Ask the fixture server to echo a greeting.');
    assert.equal(reply, 'The server said hello.');
    const [first, second] = model.requests;
    assert.ok((first.body.tools as { function: { name: string } }[]).some((t) => t.function.name === `${SERVER}_echo`), 'offered to the model');
    const toolMessage = (second.body.messages as { role: string; content: string }[]).find((m) => m.role === 'tool');
    assert.equal(toolMessage?.content, 'hello from the fixture');
    const record = await waitFor(async () => (await api.tools.log()).filter((r) => r.tool === `${SERVER}_echo`).at(-1), 'the call in the log (under the name the model called)');
    assert.equal(record.containment, 'sandboxed, network off', 'the call log says how the server ran');
  });

  it('does not ask again for the same definition, asks again when the command changes, and honours a refusal', async () => {
    await vscode.commands.executeCommand('toolbelt.mcp.restart', SERVER);
    await waitFor(() => echo()?.state === 'ready', 'running again');
    assert.equal((await answerApprovals()).length, 1, 'the remembered approval covers an unchanged definition');

    await writeMcpJson(SERVER, TAG, ['--changed']);
    await waitFor(() => row(`source:${SERVER}`)?.description === `not started${SHARED}`, 'the changed server replaced');
    assert.deepEqual(await waitFor(async () => ((await processesTagged(TAG)).length === 0 ? [] : undefined), 'the old process stopped'), []);
    await answerApprovals(false);
    await vscode.commands.executeCommand('toolbelt.mcp.start', SERVER);
    const asks = await answerApprovals();
    assert.equal(asks.length, 2);
    assert.equal(asks[1].changed, true);
    assert.match(asks[1].detail, /--changed/);
    assert.equal(row(`source:${SERVER}`)?.description, `failed: you did not allow it to start${SHARED}`);
    assert.deepEqual(await processesTagged(TAG), [], 'nothing spawned after a refusal');
    assert.equal(echo()?.state, 'waiting');

    await answerApprovals(true);
    await vscode.commands.executeCommand('toolbelt.mcp.restart', SERVER);
    await waitFor(() => echo()?.state === 'ready', 'approved and running');
    assert.equal((await answerApprovals()).length, 3);
  });

  it('stops the server from the tree action', async () => {
    await vscode.commands.executeCommand('toolbelt.mcp.stop', SERVER);
    assert.equal(row(`source:${SERVER}`)?.description, `stopped${SHARED}`);
    await waitFor(async () => (await processesTagged(TAG)).length === 0, 'the process gone');
  });

  it('starts the server by itself when a chat turn needs its tool', async () => {
    assert.equal(echo()?.state, 'waiting');
    model.reset();
    model.enqueue({ toolCalls: [{ name: `${SERVER}_echo`, arguments: { text: 'started for the turn' } }] }, { text: 'Done.' });
    assert.equal(await api.chat.send('Echo once more.'), 'Done.');
    assert.equal((await processesTagged(TAG)).length, 1, 'the server runs again');
    assert.match(row(`source:${SERVER}`)?.description ?? '', /^running/);
    // The same chat goes on: the newest tool message is this turn's.
    const toolMessages = (model.requests[1].body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool');
    assert.equal(toolMessages.at(-1)?.content, 'started for the turn');
  });
});
