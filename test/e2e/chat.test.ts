import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import type { ModelServer } from '../support/modelServer';
import { scriptedChat, chatPanel } from './scriptedWorkbench';
import type { Workbench } from './workbench';

const QUESTION = 'What is 6*7, and what does the README say?';

describe('Chat panel in a real workbench (browser)', function () {
  this.timeout(240_000);
  let model: ModelServer;
  let workbench: Workbench;
  let chat: Frame;
  const { input, ask, idle, card } = chatPanel(() => chat);


  before(async () => {
    ({ model, workbench, chat } = await scriptedChat({
      workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'calculator' }, { name: 'read_file' }, { name: 'run_bash' }] },
      sidebarWidth: 560,
    }));
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('shows the model and the active tools before the first message', async () => {
    await chat.locator('.model-switch', { hasText: 'openai · scripted-model' }).waitFor();
    assert.match((await chat.locator('.welcome').textContent()) ?? '', /2 tools: calculator, read_file/);
    await workbench.screenshot('chat-empty');
  });

  it('adds a line with Shift+Enter instead of sending', async () => {
    await input().fill('line one');
    await input().press('Shift+Enter');
    await input().pressSequentially('line two');
    assert.equal(await input().inputValue(), 'line one\nline two');
    assert.equal(model.requests.length, 0);
    await input().fill('');
  });

  it('answers with tool calls shown as cards, and renders markdown', async () => {
    model.enqueue(
      { text: 'Let me check both. ', toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }, { name: 'read_file', arguments: { path: 'README.md' } }] },
      { chunks: ['**6 × 7 = 42.**\n\n', 'The README says:\n\n', '```md\n# Fixture workspace\n```\n'] },
    );
    await ask(QUESTION);
    await card('calculator').locator('.tool-meta', { hasText: /done/ }).waitFor();
    await card('read_file').locator('.tool-meta', { hasText: /done/ }).waitFor();
    await chat.locator('.message.assistant strong', { hasText: '6 × 7 = 42.' }).waitFor();
    await idle();
    assert.equal(await chat.locator('.message.user .body').first().textContent(), QUESTION);
    assert.equal(await card('calculator').locator('.tool-args').textContent(), '6*7');
    await card('calculator').locator('summary').click();
    assert.match((await card('calculator').locator('.section pre').last().textContent()) ?? '', /^42$/);
    assert.equal(await chat.locator('.code-block .copy-button').count(), 1);
    const sent = model.requests[1].body.messages as { role: string; content: string }[];
    assert.deepEqual(sent.filter((m) => m.role === 'tool').map((m) => m.content.split('\n')[0]), ['42', '# Fixture workspace']);
    await workbench.screenshot('chat-tool-cards');
  });

  it('asks before run_bash inside the card, and runs it only when allowed', async () => {
    await workbench.setToolsViewExpanded(true);
    await workbench.checkbox('run_bash').click();
    await workbench.waitForChecked('run_bash', true);
    await workbench.waitForActiveSummary('3 of 3 enabled');
    await workbench.setToolsViewExpanded(false);
    model.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo approved > approved.txt && cat approved.txt' } }] }, { text: 'Done: the file says approved.' });
    await ask('Create approved.txt with bash');
    const approval = card('run_bash').locator('.approval');
    await approval.waitFor();
    assert.equal(await approval.locator('.approval-command').textContent(), 'echo approved > approved.txt && cat approved.txt');
    assert.equal(existsSync(path.join(workbench.workspace, 'approved.txt')), false, 'nothing ran before the approval');
    assert.equal(await approval.locator('button.allow-for-chat').textContent(), 'Allow this exact command for this chat');
    await workbench.screenshot('chat-approval');
    await approval.locator('button', { hasText: /^Allow$/ }).click();
    await card('run_bash').locator('.tool-meta', { hasText: /done/ }).waitFor();
    await idle();
    assert.equal(await fs.readFile(path.join(workbench.workspace, 'approved.txt'), 'utf8'), 'approved\n');
  });

  it('offers to enable a switched-off tool the model called, then asks again', async () => {
    await workbench.setToolsViewExpanded(true);
    await workbench.checkbox('calculator').click();
    await workbench.waitForChecked('calculator', false);
    await workbench.waitForActiveSummary('2 of 3 enabled');
    await workbench.setToolsViewExpanded(false);
    model.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] }, { text: 'The calculator is off.' });
    await ask('Use the calculator for 6*7');
    const calculatorCards = chat.locator('details.tool-card[data-tool="calculator"]');
    const refused = calculatorCards.last();
    const enable = refused.locator('button.enable-retry');
    await enable.waitFor();
    assert.equal(await enable.textContent(), 'Enable calculator and Retry');
    await idle();
    await workbench.screenshot('chat-enable-and-retry');
    const before = model.requests.length;
    model.enqueue({ toolCalls: [{ name: 'calculator', arguments: { expression: '6*7' } }] }, { text: 'It is 42.' });
    await enable.click();
    await chat.locator('.message.assistant', { hasText: 'It is 42.' }).waitFor({ timeout: 60_000 });
    await idle();
    await workbench.setToolsViewExpanded(true);
    await workbench.waitForChecked('calculator', true);
    await workbench.setToolsViewExpanded(false);
    const asked = model.requests[before].body.messages as { role: string; content: string | null }[];
    assert.equal(asked.at(-1)?.content, 'Use the calculator for 6*7', 'asked again from the message, without the refused call');
    assert.equal(await calculatorCards.last().locator('.tool-meta', { hasText: /done/ }).count(), 1);
  });

  it('does not run a denied command and tells the model', async () => {
    model.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'touch denied.txt' } }] }, { text: 'Understood, I did not run it.' });
    await ask('Now create denied.txt');
    const approval = card('run_bash', 1).locator('.approval');
    await approval.waitFor();
    await approval.locator('button', { hasText: 'Deny' }).click();
    await card('run_bash', 1).locator('.tool-meta', { hasText: /denied/ }).waitFor();
    await idle();
    assert.equal(existsSync(path.join(workbench.workspace, 'denied.txt')), false);
    const sent = model.requests.at(-1)!.body.messages as { role: string; content: string }[];
    assert.match(sent.at(-1)!.content, /The user declined/);
  });

  it('stops a long answer with the stop button', async () => {
    model.enqueue({ chunks: Array.from({ length: 400 }, (_, i) => `word${i} `), chunkDelayMs: 25 });
    await ask('Tell me a very long story');
    await chat.locator('.message.assistant.streaming').waitFor();
    await chat.locator('.message.assistant.streaming', { hasText: 'word20' }).waitFor();
    await workbench.screenshot('chat-streaming');
    await chat.locator('button.stop-button').click();
    await chat.locator('.notice', { hasText: 'Stopped.' }).waitFor();
    await idle();
    const text = (await chat.locator('.message.assistant').last().textContent()) ?? '';
    assert.ok(!text.includes('word399'), 'the answer was cut short');
  });

  it('shows a failed request in place and retries it without sending the message twice', async () => {
    model.enqueue({ fault: 'http', status: 500 }, { fault: 'http', status: 500 }, { fault: 'http', status: 500 });
    await ask('This one fails first');
    const error = chat.locator('.error-item');
    await error.waitFor();
    assert.match((await error.textContent()) ?? '', /server error \(HTTP 500\)/);
    await workbench.screenshot('chat-error');
    model.enqueue({ text: 'Second time lucky.' });
    await error.locator('button', { hasText: 'Retry' }).click();
    await chat.locator('.message.assistant', { hasText: 'Second time lucky.' }).waitFor();
    await idle();
    assert.equal(await chat.locator('.error-item').count(), 0);
    const sent = model.requests.at(-1)!.body.messages as { role: string; content: string }[];
    assert.equal(sent.filter((m) => m.role === 'user' && m.content === 'This one fails first').length, 1);
  });

  it('keeps the conversation after a window reload', async () => {
    await workbench.reload();
    await workbench.openToolbelt();
    chat = await workbench.chatFrame();
    await chat.locator('.message.user', { hasText: QUESTION }).waitFor();
    await chat.locator('.message.assistant', { hasText: 'Second time lucky.' }).waitFor();
    assert.ok((await chat.locator('details.tool-card').count()) >= 4);
  });

  it('starts a new chat and finds the old one in the history', async () => {
    await workbench.chatViewAction('New Chat');
    await chat.locator('.welcome').waitFor();
    assert.equal(await chat.locator('.message').count(), 0);
    await workbench.runCommand('Toolbelt: Open an Earlier Chat…');
    await workbench.pickOption(QUESTION);
    await chat.locator('.message.user', { hasText: QUESTION }).waitFor();
  });

  it('explains a missing API key with a button instead of a stack trace', async () => {
    const settingsFile = path.join(workbench.workspace, '.vscode', 'settings.json');
    const settings = JSON.parse(await fs.readFile(settingsFile, 'utf8'));
    // Gemini's own service needs a key (a custom or local server is asked without one), and none is set.
    await fs.writeFile(settingsFile, JSON.stringify({ ...settings, 'toolbelt.provider': 'gemini', 'toolbelt.baseUrl': '' }, null, 2));
    try {
      await chat.locator('.model-switch', { hasText: /^gemini/ }).waitFor({ timeout: 30_000 });
      await ask('Hello Gemini');
      const error = chat.locator('.error-item');
      await error.waitFor();
      assert.match((await error.textContent()) ?? '', /No Gemini API key is set/);
      assert.equal(await error.locator('button', { hasText: 'Set API Key' }).count(), 1);
      assert.doesNotMatch((await error.textContent()) ?? '', /at \w+ \(/);
      await workbench.screenshot('chat-missing-key');
    } finally {
      await fs.writeFile(settingsFile, JSON.stringify(settings, null, 2));
    }
  });

  it('follows the light theme', async () => {
    await workbench.runCommand('Preferences: Color Theme');
    await workbench.page.locator('.quick-input-widget input').fill('Light Modern');
    await workbench.pickOption('Light Modern');
    await workbench.page.locator('.monaco-workbench.vs').waitFor();
    await chat.locator('.model-switch', { hasText: /^openai/ }).waitFor({ timeout: 30_000 });
    await workbench.screenshot('chat-light');
  });
});
