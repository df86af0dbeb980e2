import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChatController, ChatSetupError } from '../../src/chat/chatController';
import type { StoredConversation } from '../../src/chat/conversation';
import { CONTINUE_PROMPT, STOPPED_NOTICE, turnActionsFor } from '../../src/chat/turnRewind';
import type { TranscriptItem } from '../../src/protocol';
import { parseWebviewMessage } from '../../src/protocol';
import { CheckpointStore } from '../../src/tools/undo/checkpoints';
import { ToolManager } from '../../src/tools/toolManager';
import { ModelServer } from '../support/modelServer';
import { scriptedChatEnvironment } from '../support/scriptedChat';
import { waitFor } from '../support/waitFor';
import { contextFor, TempWorkspace } from '../support/workspace';

type Sent = { role: string; content: string | null; tool_calls?: unknown[] }[];

describe('Regenerate, Edit & resend and Continue (the controller with a scripted model)', () => {
  let server: ModelServer;
  let ws: TempWorkspace;
  let storage: string;
  let controller: ChatController;
  let saved: StoredConversation[];
  let setupError: Error | undefined;

  before(async () => {
    server = await ModelServer.start();
  });
  after(() => server.close());

  beforeEach(async () => {
    server.reset();
    saved = [];
    setupError = undefined;
    ws = await TempWorkspace.create({ 'notes.txt': 'original\n' });
    storage = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-rewind-'));
    const ctx = contextFor(ws);
    const manager = new ToolManager({ context: ctx });
    manager.applyConfig([{ name: 'calculator' }, { name: 'write_file' }]);
    const env = scriptedChatEnvironment({
      registry: manager.registry,
      baseURL: server.openaiBaseUrl,
      setupError: () => setupError,
      extra: { save: (conversation) => saved.push(structuredClone(conversation)), checkpoints: () => CheckpointStore.open(storage, () => [ws.root]) },
    });
    controller = new ChatController(env);
  });
  afterEach(async () => {
    await ws.dispose();
    await fs.rm(storage, { recursive: true, force: true });
  });

  const items = () => controller.state().items;
  const shown = () => items().map((i) => (i.kind === 'assistant' || i.kind === 'user' ? `${i.kind}:${i.text}` : i.kind === 'tool' ? `tool:${i.name}` : i.kind));
  const sent = (index = -1) => server.requests.at(index)!.body.messages as Sent;
  const said = (messages: Sent) => messages.map((m) => `${m.role}:${m.content ?? ''}${m.tool_calls ? '+calls' : ''}`);
  const model = () => controller.snapshot().messages.map((m) => `${m.role}:${m.content}`);

  async function askWithTool(): Promise<void> {
    server.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] }, { text: 'First answer: 42.' });
    await controller.send('What is 6*7?');
  }

  it('offers nothing before the first message, then Edit on the message and Regenerate on the answer', async () => {
    assert.deepEqual(controller.state().turnActions, {});
    await askWithTool();
    const [user, , answer] = items();
    assert.deepEqual(controller.state().turnActions, { edit: user.id, regenerate: answer.id });
  });

  it('Regenerate asks again without the earlier answer or its tool calls, and shows only the new one', async () => {
    await askWithTool();
    server.enqueue({ text: 'Second answer: forty-two.' });
    assert.equal(await controller.rewind({ kind: 'regenerate' }), 'Second answer: forty-two.');
    assert.deepEqual(said(sent()), ['system:Be brief.', 'user:What is 6*7?']);
    assert.deepEqual(shown(), ['user:What is 6*7?', 'assistant:Second answer: forty-two.']);
    assert.deepEqual(model(), ['user:What is 6*7?', 'assistant:Second answer: forty-two.']);
    assert.deepEqual(saved.at(-1)!.messages.map((m) => m.role), ['user', 'assistant'], 'the new answer is what is stored');
  });

  it('a regenerated answer that fails gives the earlier one back, and Retry regenerates again', async () => {
    await askWithTool();
    const before = structuredClone(controller.snapshot().messages);
    server.enqueue({ fault: 'http', status: 500, errorMessage: 'overloaded' });
    await assert.rejects(controller.rewind({ kind: 'regenerate' }));
    assert.deepEqual(shown(), ['user:What is 6*7?', 'tool:calculator', 'assistant:First answer: 42.', 'error']);
    assert.deepEqual(controller.snapshot().messages, before, 'the model keeps the earlier answer');
    assert.equal((items().at(-1) as Extract<TranscriptItem, { kind: 'error' }>).retryable, true);
    assert.deepEqual(saved.at(-1)!.messages, before, 'and so does the stored chat');

    server.enqueue({ text: 'Third time.' });
    assert.equal(await controller.retry(), 'Third time.');
    assert.deepEqual(said(sent()), ['system:Be brief.', 'user:What is 6*7?']);
    assert.deepEqual(shown(), ['user:What is 6*7?', 'assistant:Third time.']);
  });

  it('a regenerated answer stopped before anything arrived gives the earlier one back', async () => {
    await askWithTool();
    const before = structuredClone(items());
    server.enqueue({ fault: 'stall-after-headers' });
    const turn = controller.rewind({ kind: 'regenerate' });
    await waitFor(() => server.requests.length === 3, 'the regenerate request');
    controller.stop();
    await turn;
    assert.deepEqual(items(), before);
    assert.ok(!items().some((i) => i.kind === 'notice' && i.text === STOPPED_NOTICE));
  });

  it('a setup problem during Regenerate keeps the earlier answer too', async () => {
    await askWithTool();
    setupError = new ChatSetupError('No OpenAI API key is set.', 'setApiKey');
    await assert.rejects(controller.rewind({ kind: 'regenerate' }), /No OpenAI API key/);
    assert.deepEqual(shown(), ['user:What is 6*7?', 'tool:calculator', 'assistant:First answer: 42.', 'error']);
  });

  it('Edit & resend replaces the last message and its answer; earlier turns stay', async () => {
    server.enqueue({ text: 'A1' });
    await controller.send('Q1');
    await askWithTool();
    server.enqueue({ text: 'Edited answer.' });
    await controller.rewind({ kind: 'edit', text: 'What is 6*8?' });
    assert.deepEqual(said(sent()), ['system:Be brief.', 'user:Q1', 'assistant:A1', 'user:What is 6*8?']);
    assert.deepEqual(shown(), ['user:Q1', 'assistant:A1', 'user:What is 6*8?', 'assistant:Edited answer.']);
    assert.equal(controller.state().title, 'Q1', 'the title follows the first message only');
    assert.equal(new Set(items().map((i) => i.id)).size, items().length, 'item ids stay unique');
  });

  it('Edit & resend keeps the context attached to the message: the model gets it again, the chips stay', async () => {
    server.enqueue({ text: 'A' }, { text: 'B' });
    const attachment = { kind: 'file' as const, path: 'notes.txt', content: 'original\n' };
    await controller.send('Summarise this', [attachment]);
    await controller.rewind({ kind: 'edit', text: 'Shorten this' });
    const lastUser = sent().at(-1)!;
    assert.equal(lastUser.role, 'user');
    assert.match(lastUser.content ?? '', /<attachment kind="file" path="notes.txt">\noriginal\n/);
    assert.ok(lastUser.content?.endsWith('\n\nShorten this'), lastUser.content ?? '');
    assert.ok(!lastUser.content?.includes('Summarise'), 'the old text is gone');
    const user = items().find((i) => i.kind === 'user');
    assert.deepEqual(user?.kind === 'user' && user.attachments, [{ kind: 'file', path: 'notes.txt' }]);
    assert.equal(controller.state().title, 'Shorten this');
  });

  it('editing the first message renames a chat that still has its automatic title, not a renamed one', async () => {
    server.enqueue({ text: 'A' }, { text: 'B' }, { text: 'C' });
    await controller.send('first question');
    await controller.rewind({ kind: 'edit', text: 'better question' });
    assert.equal(controller.state().title, 'better question');
    controller.snapshot().title = 'My own title';
    await controller.rewind({ kind: 'edit', text: 'best question' });
    assert.equal(controller.state().title, 'My own title');
  });

  it('an edited message that fails stays, with Retry that sends it once', async () => {
    await askWithTool();
    server.enqueue({ fault: 'http', status: 500 });
    await assert.rejects(controller.rewind({ kind: 'edit', text: 'Edited question' }));
    assert.deepEqual(shown(), ['user:Edited question', 'error']);
    assert.deepEqual(saved.at(-1)!.messages.map((m) => `${m.role}:${m.content}`), ['user:Edited question'], 'the edited text is stored');
    server.enqueue({ text: 'Now it works.' });
    await controller.retry();
    assert.deepEqual(said(sent()), ['system:Be brief.', 'user:Edited question']);
    assert.deepEqual(shown(), ['user:Edited question', 'assistant:Now it works.']);
  });

  it('Continue after Stop keeps the partial text, asks the model to go on, and shows one answer', async () => {
    server.enqueue({ chunks: ['The first part', ' of a long', ' answer that', ' goes on'], chunkDelayMs: 300 });
    const turn = controller.send('Tell me a long story');
    await waitFor(() => items().some((i) => i.kind === 'assistant' && i.text.startsWith('The first part')), 'the first chunk');
    controller.stop();
    await turn;
    const partial = (items().find((i) => i.kind === 'assistant') as { text: string }).text;
    const notice = items().at(-1)!;
    assert.deepEqual([notice.kind, (notice as { text: string }).text], ['notice', STOPPED_NOTICE]);
    assert.equal(controller.state().turnActions?.continue, notice.id);

    server.enqueue({ text: 'and here is the rest.' });
    await controller.rewind({ kind: 'continue' });
    assert.deepEqual(said(sent()), ['system:Be brief.', 'user:Tell me a long story', `assistant:${partial}`, `user:${CONTINUE_PROMPT}`]);
    assert.deepEqual(shown(), ['user:Tell me a long story', `assistant:${partial} and here is the rest.`]);
    assert.equal(controller.state().turnActions?.continue, undefined);

    // Regenerate after a continued answer drops both parts and the hidden prompt.
    server.enqueue({ text: 'A short story.' });
    await controller.rewind({ kind: 'regenerate' });
    assert.deepEqual(said(sent()), ['system:Be brief.', 'user:Tell me a long story']);
    assert.deepEqual(shown(), ['user:Tell me a long story', 'assistant:A short story.']);
  });

  it('Continue after a stop before any text goes on from the question itself', async () => {
    server.enqueue({ fault: 'stall-after-headers' });
    const turn = controller.send('Hello?');
    await waitFor(() => server.requests.length === 1, 'the request');
    controller.stop();
    await turn;
    server.enqueue({ text: 'Hello!' });
    await controller.rewind({ kind: 'continue' });
    assert.deepEqual(said(sent()), ['system:Be brief.', 'user:Hello?']);
    assert.deepEqual(shown(), ['user:Hello?', 'assistant:Hello!']);
  });

  it('refuses while a reply is written, and when there is nothing to rewind', async () => {
    await assert.rejects(controller.rewind({ kind: 'regenerate' }), /no message to ask again/);
    await assert.rejects(controller.rewind({ kind: 'continue' }), /no stopped answer/);
    server.enqueue({ chunks: ['a', 'b', 'c'], chunkDelayMs: 50 });
    const turn = controller.send('one');
    await assert.rejects(controller.rewind({ kind: 'regenerate' }), /still being written/);
    await assert.rejects(controller.rewind({ kind: 'edit', text: 'x' }), /still being written/);
    await turn;
    await assert.rejects(controller.rewind({ kind: 'continue' }), /no stopped answer/);
  });

  it('keeps file changes unless asked to undo them first; the turn row with its Undo stays', async () => {
    server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'changed\n' } }] }, { text: 'Wrote it.' });
    await controller.send('Change the notes');
    assert.equal(await fs.readFile(ws.path('notes.txt'), 'utf8'), 'changed\n');
    server.enqueue({ text: 'Kept.' });
    await controller.rewind({ kind: 'regenerate' });
    assert.equal(await fs.readFile(ws.path('notes.txt'), 'utf8'), 'changed\n', 'regenerate alone changes no file');
    assert.deepEqual(shown(), ['turn', 'user:Change the notes', 'assistant:Kept.']);

    server.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: 'notes.txt', content: 'changed again\n' } }] }, { text: 'Wrote it again.' });
    await controller.rewind({ kind: 'edit', text: 'Change the notes again' });
    assert.equal(await fs.readFile(ws.path('notes.txt'), 'utf8'), 'changed again\n');
    server.enqueue({ text: 'Undone and asked again.' });
    await controller.rewind({ kind: 'regenerate', undoFirst: true });
    assert.equal(await fs.readFile(ws.path('notes.txt'), 'utf8'), 'changed\n', "the replaced answer's change was undone");
    const rows = items().filter((i): i is Extract<TranscriptItem, { kind: 'turn' }> => i.kind === 'turn');
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[1].undone?.restored, ['notes.txt']);
  });

  it('derives the buttons from the conversation alone', () => {
    const conversation: StoredConversation = {
      id: 'c', title: 't', createdAt: 0, updatedAt: 0,
      messages: [{ role: 'user', content: 'q' }],
      items: [{ kind: 'user', id: 'u', text: 'q' }, { kind: 'notice', id: 'n', text: STOPPED_NOTICE }],
    };
    assert.deepEqual(turnActionsFor(conversation), { edit: 'u', continue: 'n' });
  });

  it('validates the new panel messages', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'regenerate', extra: 1 }), { type: 'regenerate' });
    assert.deepEqual(parseWebviewMessage({ type: 'continue' }), { type: 'continue' });
    assert.deepEqual(parseWebviewMessage({ type: 'editLast', id: 'e1', text: 'new' }), { type: 'editLast', id: 'e1', text: 'new' });
    assert.deepEqual(parseWebviewMessage({ type: 'renameChat', chatId: 'c', title: '  New name ' }), { type: 'renameChat', chatId: 'c', title: 'New name' });
    assert.deepEqual(parseWebviewMessage({ type: 'deleteChat', chatId: 'c' }), { type: 'deleteChat', chatId: 'c' });
    assert.deepEqual(parseWebviewMessage({ type: 'openChat', chatId: 'c' }), { type: 'openChat', chatId: 'c' });
    for (const bad of [{ type: 'editLast', id: 'e', text: '  ' }, { type: 'editLast', text: 'x' }, { type: 'renameChat', chatId: 'c', title: '' }, { type: 'renameChat', chatId: 'c', title: 'x'.repeat(201) },
      { type: 'deleteChat' }, { type: 'openChat', chatId: 7 }]) {
      assert.equal(parseWebviewMessage(bad), undefined, JSON.stringify(bad));
    }
  });
});
