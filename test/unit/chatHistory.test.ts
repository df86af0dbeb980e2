import * as assert from 'node:assert/strict';
import { Agent } from '../../src/agent/agent';
import { ChatController, type ChatEnvironment } from '../../src/chat/chatController';
import { newConversation, type StoredConversation } from '../../src/chat/conversation';
import { OpenAIProvider } from '../../src/providers/openai';
import { ToolManager } from '../../src/tools/toolManager';
import type { StateStore } from '../../src/vscode/jsonStateFile';
import { ChatHistory } from '../../src/vscode/chat/chatHistory';
import { ConversationStore } from '../../src/vscode/chat/conversationStore';
import { ModelServer } from '../support/modelServer';

/** The workspace state as a plain map, as the JSON state file keeps it in memory. */
class MemoryState implements StateStore {
  readonly data = new Map<string, unknown>();
  get<T>(key: string, defaultValue: T): T {
    return (this.data.has(key) ? structuredClone(this.data.get(key)) : defaultValue) as T;
  }
  async update(key: string, value: unknown): Promise<void> {
    if (value === undefined) this.data.delete(key);
    else this.data.set(key, structuredClone(value));
  }
}

function chat(title: string, updatedAt: number): StoredConversation {
  const conversation = newConversation(updatedAt);
  conversation.title = title;
  conversation.messages = [{ role: 'user', content: title }];
  conversation.items = [{ kind: 'user', id: `item-${conversation.id}-1`, text: title }];
  return conversation;
}

describe('Chat history: rename and delete in the store', () => {
  it('renames a stored chat and keeps the rest as it was', async () => {
    const store = new ConversationStore(new MemoryState());
    const [a, b] = [chat('Alpha', 1000), chat('Beta', 2000)];
    await store.save(a);
    await store.save(b);
    assert.equal(await store.rename(a.id, 'Alpha, renamed'), true);
    assert.deepEqual(store.list().map((c) => c.title), ['Beta', 'Alpha, renamed']);
    assert.deepEqual(store.get(a.id)?.messages, a.messages);
    assert.equal(await store.rename('nope', 'x'), false);
  });

  it('deletes a chat; deleting the active one leaves none active', async () => {
    const store = new ConversationStore(new MemoryState());
    const [a, b] = [chat('Alpha', 1000), chat('Beta', 2000)];
    await store.save(a);
    await store.save(b);
    assert.equal(store.active()?.id, b.id);
    assert.equal(await store.delete(a.id), true);
    assert.deepEqual(store.list().map((c) => c.title), ['Beta']);
    assert.equal(store.active()?.id, b.id, 'deleting another chat keeps the active one');
    assert.equal(await store.delete(b.id), true);
    assert.deepEqual(store.list(), []);
    assert.equal(store.active(), undefined);
    assert.equal(await store.delete(b.id), false);
  });
});

describe('Chat history: the panel list on the host', () => {
  let server: ModelServer;
  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());

  function setup() {
    const store = new ConversationStore(new MemoryState());
    const manager = new ToolManager({ context: { systemPrompt: '', sessionContext: '', sessionContextFilePath: 'x.md', workspaceRoot: process.cwd() } });
    const env: ChatEnvironment = {
      registry: manager.registry,
      setup: async () => ({ provider: new OpenAIProvider({ apiKey: 'k', baseURL: server.openaiBaseUrl, model: 'm', maxRetries: 0 }), systemPrompt: '', maxToolRounds: 5 }),
      loadAgent: async () => Agent,
      save: (conversation) => void store.save(conversation),
      activeTools: () => [],
      describeModel: () => ({ provider: 'openai', model: 'm' }),
    };
    const holder = { controller: new ChatController(env) };
    return { store, controller: holder.controller, history: new ChatHistory(holder, store) };
  }

  it('lists the chats newest first with the current one named, and opens, renames and deletes them', async () => {
    server.reset();
    const { store, controller, history } = setup();
    server.enqueue({ text: 'one' }, { text: 'two' });
    await controller.send('First chat');
    const first = controller.conversationId;
    controller.newConversation();
    await controller.send('Second chat');
    const second = controller.conversationId;

    let list = history.list(true);
    assert.deepEqual(list.entries.map((e) => [e.title, e.messages]), [['Second chat', 1], ['First chat', 1]]);
    assert.equal(list.currentId, second);

    list = await history.handle({ type: 'openChat', chatId: first });
    assert.equal(controller.conversationId, first);
    assert.equal(list.show, false, 'opening closes the list');

    await history.handle({ type: 'renameChat', chatId: first, title: 'Renamed current' });
    await history.handle({ type: 'renameChat', chatId: second, title: 'Renamed other' });
    assert.equal(controller.state().title, 'Renamed current', 'the live chat has the new title');
    controller.newConversation(); // saves the current chat again: the new title must survive it
    assert.deepEqual(store.list().map((c) => c.title).sort(), ['Renamed current', 'Renamed other']);

    await history.handle({ type: 'openChat', chatId: second });
    list = await history.handle({ type: 'deleteChat', chatId: second });
    assert.notEqual(controller.conversationId, second, 'deleting the current chat starts a new one');
    assert.deepEqual(controller.state().items, []);
    assert.deepEqual(list.entries.map((e) => e.title), ['Renamed current']);
    assert.equal(store.get(second), undefined);
  });

  it('refuses to switch away while a reply is being written', async () => {
    server.reset();
    const { controller, history } = setup();
    server.enqueue({ text: 'done' });
    await controller.send('Earlier');
    const earlier = controller.conversationId;
    controller.newConversation();
    server.enqueue({ chunks: ['a', 'b', 'c'], chunkDelayMs: 100 });
    const turn = controller.send('Now');
    const open = await history.handle({ type: 'openChat', chatId: earlier });
    assert.match(open.problem ?? '', /still being written/);
    const remove = await history.handle({ type: 'deleteChat', chatId: controller.conversationId });
    assert.match(remove.problem ?? '', /still being written/);
    await turn;
    assert.deepEqual(controller.state().items.map((i) => i.kind), ['user', 'assistant']);
  });
});
