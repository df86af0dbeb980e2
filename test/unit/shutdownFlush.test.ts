import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { JsonStateFile } from '../../src/vscode/jsonStateFile';
import { ConversationStore } from '../../src/vscode/chat/conversationStore';
import { FlushRegistry } from '../../src/vscode/storage';
import { newConversation } from '../../src/chat/conversation';

/** A store whose writes land only when the test says so. */
class ManualStore {
  readonly landed: string[] = [];
  private readonly waiting: (() => void)[] = [];
  write(label: string): Promise<void> {
    return new Promise((resolve) => this.waiting.push(() => (this.landed.push(label), resolve())));
  }
  releaseAll(): void {
    for (const release of this.waiting.splice(0)) release();
  }
}

describe('Shutdown flush', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-flush-'));
  });
  afterEach(() => fs.rm(dir, { recursive: true, force: true }));

  it('flushes newest first, so the chat hands its save to the state file before the file flushes', async () => {
    const order: string[] = [];
    const registry = new FlushRegistry();
    registry.add({ flush: async () => void order.push('file') });
    registry.add({ flush: async () => void order.push('chat') });
    assert.deepEqual(await registry.flushAll(), []);
    assert.deepEqual(order, ['chat', 'file']);
  });

  it('waits for a pending write before resolving', async () => {
    const store = new ManualStore();
    const registry = new FlushRegistry();
    const pending = store.write('history');
    registry.add({ flush: () => pending });
    let done = false;
    const flushing = registry.flushAll().then(() => (done = true));
    await new Promise((r) => setImmediate(r));
    assert.equal(done, false, 'still waiting for the write');
    store.releaseAll();
    await flushing;
    assert.deepEqual(store.landed, ['history']);
  });

  it('a failing or hanging flushable is reported and does not keep the others from flushing', async () => {
    const registry = new FlushRegistry();
    const flushed: string[] = [];
    registry.add({ flush: async () => void flushed.push('first') });
    registry.add({ flush: () => new Promise<void>(() => undefined) });
    registry.add({
      flush: () => {
        throw new Error('disk full');
      },
    });
    const problems = await registry.flushAll(50);
    assert.deepEqual(flushed, ['first']);
    assert.equal(problems.length, 2);
    assert.match(problems[0], /disk full/);
    assert.match(problems[1], /longer than 50 ms/);
  });

  it('a removed flushable is not flushed', async () => {
    const registry = new FlushRegistry();
    let called = false;
    registry.add({ flush: async () => void (called = true) }).dispose();
    await registry.flushAll();
    assert.equal(called, false);
    assert.equal(registry.size, 0);
  });

  it('JsonStateFile.flush resolves only when the last queued write is on disk', async () => {
    const file = path.join(dir, 'state.json');
    const state = new JsonStateFile(file);
    for (let i = 0; i < 20; i++) void state.update(`k${i}`, 'x'.repeat(10_000));
    void state.update('last', 'value');
    await state.flush();
    const onDisk = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    assert.equal(onDisk.last, 'value');
    assert.equal(Object.keys(onDisk).length, 21);
  });

  it('a chat saved just before shutdown is on disk after the flush, with its active id', async () => {
    const file = path.join(dir, 'chats.json');
    const state = new JsonStateFile(file);
    const registry = new FlushRegistry();
    registry.add(state);
    const conversation = newConversation();
    conversation.messages.push({ role: 'user', content: 'remember me' });
    void new ConversationStore(state).save(conversation); // not awaited, as the chat does
    await registry.flushAll();
    const reread = new ConversationStore(new JsonStateFile(file));
    assert.equal(reread.active()?.messages[0].content, 'remember me');
  });
});
