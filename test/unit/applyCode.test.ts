import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '../../src/agent/agent';
import { ChatController, type ChatEnvironment } from '../../src/chat/chatController';
import type { TranscriptItem } from '../../src/protocol';
import { CheckpointStore } from '../../src/tools/undo/checkpoints';
import type { ToolRunReport } from '../../src/tools/registry';
import { ToolManager } from '../../src/tools/toolManager';
import type { ConfirmationRequest } from '../../src/tools/types';
import { contextFor, TempWorkspace } from '../support/workspace';

/** Apply to File: the person's own write_file call, through the same approval, undo and log as the model's. */
describe('Apply to File through the chat (the person\'s own write_file call)', () => {
  let ws: TempWorkspace;
  let storage: string;
  let controller: ChatController;
  let asked: ConfirmationRequest[];
  let runs: ToolRunReport[];
  let decision: 'allow' | 'deny';
  let writeApprovals: 'protected' | 'always';
  let manager: ToolManager;

  beforeEach(async () => {
    asked = [];
    runs = [];
    decision = 'allow';
    writeApprovals = 'protected';
    ws = await TempWorkspace.create({ 'src/a.ts': 'export const a = 0;\n', '.vscode/settings.json': '{}\n' });
    storage = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-apply-'));
    const ctx = contextFor(ws);
    Object.defineProperty(ctx, 'writeApprovals', { get: () => writeApprovals });
    manager = new ToolManager({ context: ctx });
    manager.applyConfig([{ name: 'write_file' }]);
    manager.registry.onDidRun((report) => runs.push(report));
    const env: ChatEnvironment = {
      registry: manager.registry,
      setup: async () => {
        throw new Error('no model is needed to apply code');
      },
      loadAgent: async () => Agent,
      save: () => undefined,
      activeTools: () => [],
      describeModel: () => ({ provider: 'openai', model: 'm' }),
      checkpoints: () => CheckpointStore.open(storage, () => [ws.root]),
    };
    controller = new ChatController(env);
    // The chat is the caller of its turns' calls: its confirm is what they ask.
    const confirm = controller.confirm.bind(controller);
    controller.confirm = (request) => {
      asked.push(request);
      return confirm(request);
    };
    controller.onMessage((message) => {
      if (message.type === 'item' && message.item.kind === 'tool' && message.item.approval) {
        const id = message.item.approval.requestId;
        setImmediate(() => controller.decide(id, decision));
      }
    });
  });
  afterEach(async () => {
    await ws.dispose();
    await fs.rm(storage, { recursive: true, force: true });
  });

  const card = () => controller.state().items.find((i) => i.kind === 'tool') as Extract<TranscriptItem, { kind: 'tool' }> | undefined;
  const turnRow = () => controller.state().items.find((i) => i.kind === 'turn') as Extract<TranscriptItem, { kind: 'turn' }> | undefined;

  it('writes the file without asking, shows a card and an undo row, logs the call, and Undo puts the file back', async () => {
    const result = await controller.runPersonToolCall('write_file', { path: 'src/a.ts', content: 'export const a = 1;\n' });
    assert.equal(result.status, 'ok');
    assert.equal(await ws.read('src/a.ts'), 'export const a = 1;\n');
    assert.deepEqual(asked, [], 'an ordinary path does not ask: the click was the consent');
    assert.equal(card()?.name, 'write_file');
    assert.equal(card()?.status, 'ok');
    assert.deepEqual(turnRow()?.files, ['src/a.ts']);
    assert.deepEqual(runs.map((r) => [r.name, r.args.path, r.result.status]), [['write_file', 'src/a.ts', 'ok']]);
    assert.equal(controller.busy, false);

    const undone = await controller.undoTurn(turnRow()!.turnId);
    assert.deepEqual(undone.restored, ['src/a.ts']);
    assert.equal(await ws.read('src/a.ts'), 'export const a = 0;\n');
  });

  it('asks in the card before writing a protected path; denied, nothing changes', async () => {
    decision = 'deny';
    const result = await controller.runPersonToolCall('write_file', { path: '.vscode/settings.json', content: '{"x": 1}\n' });
    assert.equal(asked[0]?.reason, 'protected');
    assert.equal(result.status, 'refused');
    assert.equal(card()?.status, 'denied');
    assert.equal(await ws.read('.vscode/settings.json'), '{}\n');
    assert.equal(turnRow(), undefined, 'nothing to undo');
  });

  it('honours toolbelt.approvals.writes "always": even an ordinary path asks, with the content to review', async () => {
    writeApprovals = 'always';
    await controller.runPersonToolCall('write_file', { path: 'src/new.ts', content: 'new\n' });
    assert.equal(asked[0]?.reason, 'write');
    assert.equal(asked[0]?.proposed?.content, 'new\n');
    assert.equal(await ws.read('src/new.ts'), 'new\n');
  });

  it('refuses a second apply while one runs', async () => {
    writeApprovals = 'always';
    const first = controller.runPersonToolCall('write_file', { path: 'src/one.ts', content: '1\n' });
    assert.equal(controller.busy, true);
    await assert.rejects(controller.runPersonToolCall('write_file', { path: 'src/two.ts', content: '2\n' }), /still being written/);
    assert.equal((await first).status, 'ok');
    assert.equal(await ws.exists('src/two.ts'), false);
  });

  it('a disabled write_file writes nothing', async () => {
    manager.registry.disable('write_file');
    const result = await controller.runPersonToolCall('write_file', { path: 'src/b.ts', content: 'b\n' });
    assert.equal(result.status, 'refused');
    assert.equal(await ws.exists('src/b.ts'), false);
  });
});
