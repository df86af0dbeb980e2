import * as assert from 'node:assert/strict';
import { ChatController } from '../../src/chat/chatController';
import { parseWebviewMessage, type TranscriptItem } from '../../src/protocol';
import { ToolManager } from '../../src/tools/toolManager';
import { ModelServer } from '../support/modelServer';
import { scriptedChatEnvironment } from '../support/scriptedChat';
import { contextFor, TempWorkspace } from '../support/workspace';

describe('A model calling a switched-off tool (the card that offers to enable it)', () => {
  let server: ModelServer;
  let ws: TempWorkspace;
  let manager: ToolManager;
  let controller: ChatController;

  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());

  beforeEach(async () => {
    server.reset();
    ws = await TempWorkspace.create({ 'notes.txt': 'hello\n' });
    manager = new ToolManager({ context: contextFor(ws) });
    manager.applyConfig([{ name: 'calculator' }, { name: 'read_file' }]);
    controller = new ChatController(scriptedChatEnvironment({ registry: manager.registry, baseURL: server.openaiBaseUrl }));
  });
  afterEach(() => ws.dispose());

  const toolCards = () => controller.state().items.filter((i): i is Extract<TranscriptItem, { kind: 'tool' }> => i.kind === 'tool');

  it('marks the card of a registered tool that is switched off, and only that one', async () => {
    assert.ok(manager.registry.disable('read_file'));
    server.enqueue(
      { toolCalls: [{ name: 'read_file', arguments: { path: 'notes.txt' } }, { name: 'calculator', arguments: { expression: '1+1' } }, { name: 'teleport', arguments: {} }] },
      { text: 'Done.' },
    );
    await controller.send('Read notes.txt');
    const [read, calc, unknown] = toolCards();
    assert.equal(read.name, 'read_file');
    assert.equal(read.status, 'denied');
    assert.equal(read.disabledTool, true);
    assert.equal(calc.status, 'ok');
    assert.equal(calc.disabledTool, undefined);
    assert.equal(unknown.name, 'teleport');
    assert.equal(unknown.disabledTool, undefined, 'a tool that is not registered cannot be switched on from the card');
    assert.ok(controller.state().turnActions?.regenerate, 'the turn can be asked again once the tool is on');
  });

  it('accepts the panel message only with a tool name', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'enableAndRetry', tool: 'read_file' }), { type: 'enableAndRetry', tool: 'read_file' });
    assert.equal(parseWebviewMessage({ type: 'enableAndRetry', tool: '' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'enableAndRetry' }), undefined);
    assert.equal(parseWebviewMessage({ type: 'enableAndRetry', tool: 'x'.repeat(201) }), undefined);
  });
});
