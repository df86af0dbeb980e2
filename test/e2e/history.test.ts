import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import { CONTINUE_PROMPT } from '../../src/chat/turnRewind';
import type { ModelServer } from '../support/modelServer';
import { scriptedChat, chatPanel } from './scriptedWorkbench';
import type { Workbench } from './workbench';

type Sent = { role: string; content: string | null }[];

describe('Chat history list and turn actions in a real workbench (browser)', function () {
  this.timeout(240_000);
  let model: ModelServer;
  let workbench: Workbench;
  let chat: Frame;
  const { ask, idle } = chatPanel(() => chat);

  const list = () => chat.locator('.history-list');
  const entry = (title: string) => list().locator('.history-entry', { has: chat.locator('.history-title', { hasText: title }) });
  const sentLast = () => (model.requests.at(-1)!.body.messages as Sent).map((m) => `${m.role}:${m.content ?? ''}`);
  const focusedTitle = () => list().locator('.history-entry:focus .history-title').textContent();
  const assistantTexts = async () => (await chat.locator('.message.assistant .body').allTextContents()).map((t) => t.trim());

  before(async () => {
    ({ model, workbench, chat } = await scriptedChat({
      workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'calculator' }], 'toolbelt.systemPrompt': 'Be brief.' },
      sidebarWidth: 520,
    }));
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('lists two chats with relative times and the current one marked', async () => {
    model.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] }, { text: 'First answer: 42.' });
    await ask('First chat question');
    await chat.locator('.message.assistant', { hasText: 'First answer: 42.' }).waitFor();
    await idle();
    await workbench.chatViewAction('New Chat');
    await chat.locator('.welcome').waitFor();
    model.enqueue({ text: 'Second answer.' });
    await ask('Second chat question');
    await chat.locator('.message.assistant', { hasText: 'Second answer.' }).waitFor();
    await idle();

    await workbench.chatViewAction('Chat History');
    await list().waitFor();
    assert.deepEqual(await list().locator('.history-title').allTextContents(), ['Second chat question', 'First chat question']);
    for (const time of await list().locator('.history-time').allTextContents()) assert.match(time, /^(just now|a minute ago|\d+ minutes ago)$/);
    assert.equal(await entry('Second chat question').locator('.history-current').textContent(), 'current');
    assert.equal(await entry('First chat question').locator('.history-current').count(), 0);
    assert.match((await entry('First chat question').locator('.history-meta').textContent()) ?? '', /· 1 message/);
    assert.equal(await focusedTitle(), 'Second chat question', 'the current chat has the focus');
    await workbench.screenshot('history-list-dark');
  });

  it('renames with F2, deletes with Delete after asking, and opens with Enter', async () => {
    await chat.locator('.history-entry:focus').press('ArrowDown');
    assert.equal(await focusedTitle(), 'First chat question');
    await entry('First chat question').press('F2');
    const rename = list().locator('.history-rename-input');
    await rename.fill('Renamed first chat');
    await rename.press('Enter');
    await entry('Renamed first chat').waitFor();
    assert.deepEqual(await list().locator('.history-title').allTextContents(), ['Second chat question', 'Renamed first chat']);

    await entry('Renamed first chat').press('ArrowUp');
    await entry('Second chat question').press('Delete');
    const confirm = list().locator('.history-confirm');
    await confirm.waitFor();
    assert.match((await confirm.textContent()) ?? '', /Delete “Second chat question”\? A new chat starts\./);
    await workbench.screenshot('history-delete-dark');
    await confirm.press('Escape');
    await entry('Second chat question').waitFor();
    assert.equal(await list().locator('.history-entry').count(), 2, 'Escape keeps the chat');
    await entry('Second chat question').press('Delete');
    await list().locator('.history-confirm-delete').press('Enter');
    await list().locator('.history-entry', { hasText: 'Second chat question' }).waitFor({ state: 'detached' });
    assert.deepEqual(await list().locator('.history-title').allTextContents(), ['Renamed first chat']);
    await chat.locator('.welcome').waitFor({ state: 'visible' });
    assert.equal(await chat.locator('.message').count(), 0, 'deleting the current chat started a new one');

    await entry('Renamed first chat').focus();
    await entry('Renamed first chat').press('Enter');
    await list().waitFor({ state: 'hidden' });
    await chat.locator('.message.user', { hasText: 'First chat question' }).waitFor();
    await chat.locator('.message.assistant', { hasText: 'First answer: 42.' }).waitFor();
  });

  it('Regenerate gives a new answer and the model never sees the old one', async () => {
    const before = model.requests.length;
    model.enqueue({ text: 'Regenerated answer: forty-two.' });
    await chat.locator('.message.assistant .turn-regenerate').click();
    await chat.locator('.message.assistant', { hasText: 'Regenerated answer: forty-two.' }).waitFor();
    await idle();
    assert.equal(model.requests.length, before + 1);
    assert.deepEqual(sentLast(), ['system:Be brief.', 'user:First chat question']);
    assert.deepEqual(await assistantTexts(), ['Regenerated answer: forty-two.']);
    assert.equal(await chat.locator('details.tool-card').count(), 0, "the old answer's tool card went with it");
  });

  it('Edit & resend replaces the last message and its answer', async () => {
    await chat.locator('.message.user .turn-edit').click();
    const editor = chat.locator('.message.user textarea.turn-editor-input');
    await editor.waitFor();
    assert.equal(await editor.inputValue(), 'First chat question');
    assert.equal(await chat.locator('.turn-edit').count(), 0, 'no second Edit while editing');
    await editor.fill('First chat question, edited');
    await workbench.screenshot('turn-edit-dark');
    model.enqueue({ text: 'Answer to the edited question.' });
    await editor.press('Enter');
    await chat.locator('.message.assistant', { hasText: 'Answer to the edited question.' }).waitFor();
    await idle();
    assert.deepEqual(sentLast(), ['system:Be brief.', 'user:First chat question, edited']);
    assert.deepEqual(await chat.locator('.message.user .body').allTextContents(), ['First chat question, edited']);
    assert.deepEqual(await assistantTexts(), ['Answer to the edited question.']);
  });

  it('Stop, then Continue goes on from the partial answer in the same bubble', async () => {
    model.enqueue({ chunks: ['Once upon a time', ' there was', ' a very', ' long', ' story'], chunkDelayMs: 1500 });
    await ask('Tell me a long story');
    await chat.locator('.message.assistant', { hasText: 'Once upon a time' }).waitFor();
    assert.equal(await chat.locator('.turn-actions').count(), 0, 'no turn actions while the reply is written');
    await chat.locator('.stop-button').click();
    await idle();
    const go = chat.locator('.notice .turn-continue');
    await go.waitFor();
    const partial = (await assistantTexts()).at(-1)!;
    assert.match(partial, /^Once upon a time/);
    await workbench.screenshot('turn-continue-dark');
    model.enqueue({ text: 'and they lived happily ever after.' });
    await go.click();
    // The new text streams into a bubble of its own, which joins the stopped one when the turn ends.
    await chat.locator('.message.assistant', { hasText: `${partial} and they lived happily ever after.` }).waitFor();
    await idle();
    assert.deepEqual(sentLast().slice(-3), ['user:Tell me a long story', `assistant:${partial}`, `user:${CONTINUE_PROMPT}`]);
    assert.equal((await assistantTexts()).at(-1), `${partial} and they lived happily ever after.`);
    assert.equal(await chat.locator('.notice', { hasText: 'Stopped.' }).count(), 0);
    assert.equal(await chat.locator('.message.user .turn-edit').count(), 1, 'Edit is on the last message only');
    await workbench.screenshot('turn-actions-dark');
  });

  it('looks right in the light theme, and Escape closes the list', async () => {
    await workbench.runCommand('Preferences: Color Theme');
    await workbench.page.locator('.quick-input-widget input').fill('Light Modern');
    await workbench.pickOption('Light Modern');
    await workbench.page.locator('.monaco-workbench.vs').waitFor();
    await workbench.page.waitForTimeout(500);
    await workbench.screenshot('turn-actions-light');
    await workbench.chatViewAction('Chat History');
    await list().waitFor();
    await entry('Renamed first chat').waitFor();
    await workbench.screenshot('history-list-light');
    await chat.locator('.history-entry:focus').press('Escape');
    await list().waitFor({ state: 'hidden' });
    await chat.locator('textarea.message-input:focus').waitFor({ timeout: 5000 });
  });
});
