import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Agent } from '../../src/agent/agent';
import { ChatController, type ChatEnvironment } from '../../src/chat/chatController';
import type { HostMessage, TranscriptItem } from '../../src/protocol';
import { OpenAIProvider } from '../../src/providers/openai';
import { CheckpointStore } from '../../src/tools/undo/checkpoints';
import { ToolManager } from '../../src/tools/toolManager';
import type { ConfirmationRequest } from '../../src/tools/types';
import { ModelServer } from '../support/modelServer';
import { contextFor, TempWorkspace } from '../support/workspace';

type TurnItem = Extract<TranscriptItem, { kind: 'tool' | 'turn' }>;

describe('Per-turn undo and write review through the chat', () => {
  let server: ModelServer;
  let ws: TempWorkspace;
  let storage: string;
  let controller: ChatController;
  let asked: ConfirmationRequest[];
  let writeApprovals: 'protected' | 'always';

  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());

  beforeEach(async () => {
    server.reset();
    asked = [];
    writeApprovals = 'protected';
    ws = await TempWorkspace.create({ 'b.txt': 'old b\n', 'c.txt': 'c moves\n', 'e/inner/deep.txt': 'deep\n', 'e/top.txt': 'top\n' });
    await fs.chmod(ws.path('b.txt'), 0o755);
    storage = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-checkpoints-'));
    const ctx = contextFor(ws);
    Object.defineProperty(ctx, 'writeApprovals', { get: () => writeApprovals });
    const manager = new ToolManager({ context: ctx });
    manager.applyConfig([{ name: 'write_file' }, { name: 'move' }, { name: 'remove' }, { name: 'mkdir' }]);
    manager.enable('remove');
    const env: ChatEnvironment = {
      registry: manager.registry,
      setup: async () => ({ provider: new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', maxRetries: 0 }), systemPrompt: 'Be brief.', maxToolRounds: 5 }),
      loadAgent: async () => Agent,
      save: () => undefined,
      activeTools: () => manager.registry.getEnabledSchemas().map((s) => s.function.name),
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
    // Approve every card as a person would, once it shows.
    controller.onMessage((message: HostMessage) => {
      if (message.type === 'item' && message.item.kind === 'tool' && message.item.approval) {
        const id = message.item.approval.requestId;
        setImmediate(() => controller.decide(id, 'allow'));
      }
    });
  });
  afterEach(async () => {
    await ws.dispose();
    await fs.rm(storage, { recursive: true, force: true });
  });

  const turnRow = () => controller.state().items.find((i) => i.kind === 'turn') as TurnItem | undefined;

  async function changeEverything(): Promise<void> {
    server.enqueue(
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: 'a.txt', content: 'brand new\n' } },
          { name: 'write_file', arguments: { path: 'b.txt', content: 'new b\n' } },
          { name: 'move', arguments: { source: 'c.txt', destination: 'd.txt' } },
          { name: 'remove', arguments: { path: 'e', recursive: true } },
          { name: 'mkdir', arguments: { path: 'f/g' } },
        ],
      },
      { text: 'Done.' },
    );
    await controller.send('change things');
  }

  it('undoes a turn byte for byte and mode for mode, and says what it changed', async () => {
    await changeEverything();
    assert.equal(await ws.read('b.txt'), 'new b\n');
    assert.equal(await ws.exists('e'), false);
    const row = turnRow();
    assert.ok(row && row.kind === 'turn');
    for (const file of ['a.txt', 'b.txt', 'c.txt', 'd.txt', 'e']) assert.ok(row.files.includes(file), `${file} in ${row.files.join(', ')}`);

    const result = await controller.undoLastTurn();
    assert.deepEqual(result.skipped, []);
    assert.equal(await ws.exists('a.txt'), false, 'a created file is removed');
    assert.equal(await ws.read('b.txt'), 'old b\n');
    assert.equal((await fs.stat(ws.path('b.txt'))).mode & 0o777, 0o755);
    assert.equal(await ws.read('c.txt'), 'c moves\n');
    assert.equal(await ws.exists('d.txt'), false);
    assert.equal(await ws.read('e/inner/deep.txt'), 'deep\n');
    assert.equal(await ws.read('e/top.txt'), 'top\n');
    assert.equal(await ws.exists('f'), false);
    const undone = turnRow();
    assert.ok(undone?.kind === 'turn' && undone.undone);
    assert.ok(undone.undone.restored.includes('b.txt'));
  });

  it('skips a file the person changed after the turn and offers the comparison', async () => {
    await changeEverything();
    await ws.write({ 'b.txt': 'my own edit\n' });
    let compared: string[] | undefined;
    (controller as unknown as { env: ChatEnvironment }).env.compare = (before, current) => (compared = [before, current]);
    const result = await controller.undoLastTurn();
    assert.deepEqual(result.skipped, ['b.txt']);
    assert.equal(await ws.read('b.txt'), 'my own edit\n', 'the person\'s edit is kept');
    assert.equal(await ws.exists('a.txt'), false, 'the rest is undone');
    const row = turnRow();
    assert.ok(row?.kind === 'turn' && row.undone?.skipped[0].comparable);
    assert.equal(controller.compare(row.turnId, 'b.txt'), true);
    assert.equal(compared?.[1], ws.path('b.txt'));
    assert.equal(await fs.readFile(compared![0], 'utf8'), 'old b\n', 'the left side is the file before the turn');
  });

  it('with writeApprovals "always", asks before every write with the proposed content for review', async () => {
    writeApprovals = 'always';
    server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'reviewed\n' } }] }, { text: 'Written.' });
    await controller.send('write b');
    const write = asked.find((r) => r.tool === 'write_file');
    assert.equal(write?.reason, 'write');
    assert.deepEqual(write?.proposed, { absolute: ws.path('b.txt'), display: 'b.txt', content: 'reviewed\n' });
    assert.equal(await ws.read('b.txt'), 'reviewed\n');
  });

  it('a declined write changes nothing and records nothing to undo', async () => {
    writeApprovals = 'always';
    controller.onMessage((message) => {
      if (message.type === 'item' && message.item.kind === 'tool' && message.item.approval) controller.decide(message.item.approval.requestId, 'deny');
    });
    server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'b.txt', content: 'never\n' } }] }, { text: 'Ok.' });
    await controller.send('write b');
    assert.equal(await ws.read('b.txt'), 'old b\n');
    assert.equal(turnRow(), undefined);
    assert.deepEqual(await controller.undoLastTurn(), { restored: [], skipped: [] });
  });
});
