import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import type { ModelServer } from '../support/modelServer';
import { openChat, scriptedChat, chatPanel } from './scriptedWorkbench';
import { Workbench } from './workbench';

const QUESTION = 'Hello there, are you connected?';

describe('Connect a model, from the first failed send (browser, light theme)', function () {
  this.timeout(240_000);
  let model: ModelServer;
  let workbench: Workbench;
  let chat: Frame;
  const { ask, idle } = chatPanel(() => chat);

  const quickInput = () => workbench.page.locator('.quick-input-widget');
  const host = () => new URL(model.origin).host;

  before(async () => {
    // Nothing configured: no provider, no key, no workspace settings.
    ({ model, workbench, chat } = await scriptedChat({ unconfigured: true, theme: 'Default Light Modern', env: { OPENAI_API_KEY: '', GEMINI_API_KEY: '' }, sidebarWidth: 560 }));
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('offers Connect a Model in the empty panel', async () => {
    await chat.locator('.welcome button.connect-model', { hasText: 'Connect a Model…' }).waitFor();
    assert.equal(await chat.locator('.trust-banner').isVisible(), false, 'no restricted-mode line in a trusted workspace');
    await workbench.screenshot('connect-empty-light');
  });

  it('fails the first send with nothing configured and offers Connect a Model first', async () => {
    await ask(QUESTION);
    const card = chat.locator('.error-item');
    await card.waitFor();
    assert.match((await card.locator('p').textContent()) ?? '', /No OpenAI API key is set/);
    assert.deepEqual(await card.locator('button').allTextContents(), ['Connect a Model', 'Set API Key', 'Retry']);
    assert.equal(model.requests.length, 0);
    await idle();
    await workbench.screenshot('connect-first-error-light');
  });

  it('walks provider → base URL (finding /v1 by itself) → model → a test shown in the flow, then retries the message by itself', async () => {
    model.modelLists.models.openai = ['scripted-model', 'other-model'];
    // The first test fails (404) and says so in the flow; the second gets a call of its ping tool; the retried turn gets the answer.
    model.enqueue({ fault: 'http', status: 404, errorMessage: 'no such model' }, { toolCalls: [{ name: 'ping', arguments: {} }] }, { text: 'Yes, connected through the scripted server.' });
    await chat.locator('.error-item button', { hasText: 'Connect a Model' }).click();

    await quickInput().locator('.quick-input-title', { hasText: 'Connect a Model' }).waitFor();
    await workbench.pickOption('OpenAI-compatible server');

    const box = quickInput().locator('input');
    await quickInput().locator('.quick-input-message', { hasText: /base URL/ }).waitFor();
    // The server's address without /v1: the model list is found at /v1 and the address follows.
    await box.fill(model.origin);
    await box.press('Enter');

    await quickInput().locator('.quick-input-list [role=option]', { hasText: 'other-model' }).waitFor({ timeout: 30_000 });
    assert.match((await quickInput().locator('.quick-input-title').textContent()) ?? '', /\(3\/4\)/, 'a step counter: provider, base URL, model, test');
    await quickInput().getByText(`Found at ${model.openaiBaseUrl}: the address now ends in /v1`).waitFor();
    await workbench.screenshot('connect-model-list-light');

    // A typed name is checked against the list shown.
    await workbench.pickOption('Type a model name…');
    await quickInput().locator('.quick-input-message', { hasText: 'The model name as' }).waitFor();
    await box.fill('scripted-modle');
    await quickInput().locator('.quick-input-message', { hasText: 'did not list "scripted-modle" among its 2 models: did you mean scripted-model?' }).waitFor();
    await workbench.screenshot('connect-typed-name-light');
    await box.press('Enter');

    const failed = quickInput().locator('.quick-input-list [role=option]', { hasText: 'The test request failed' });
    await failed.waitFor({ timeout: 60_000 });
    assert.match((await quickInput().locator('.quick-input-title').textContent()) ?? '', /\(4\/4\)/, 'the test is a step of its own');
    assert.match((await failed.textContent()) ?? '', /does not know the model "scripted-modle"[^]*HTTP 404/);
    await workbench.screenshot('connect-test-failed-light');
    assert.equal(await workbench.notification(/test request failed/i).count(), 0, 'no toast: the failure is in the flow');
    await workbench.pickOption('Back: pick another model');
    await quickInput().locator('.quick-input-list [role=option]', { hasText: 'other-model' }).waitFor({ timeout: 30_000 });
    await workbench.pickOption('scripted-model');

    await workbench.notification(new RegExp(`connected to ${host().replace(/\./g, '\\.')} · scripted-model\\. Streaming works\\. Tool calls work\\.`)).waitFor({ timeout: 60_000 });
    await chat.locator('.message.assistant', { hasText: 'Yes, connected through the scripted server.' }).waitFor({ timeout: 60_000 });
    await idle();

    const [failedProbe, probe, retried] = model.requests;
    assert.equal(failedProbe.body.model, 'scripted-modle');
    assert.deepEqual((probe.body.tools as { function: { name: string } }[]).map((t) => t.function.name), ['ping'], 'the test offered one tool');
    assert.equal(probe.stream, true, 'the test streamed');
    const users = (retried.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'user');
    assert.deepEqual(users.map((m) => m.content), [QUESTION], 'the earlier message was sent once, by the retry');
    assert.equal(await chat.locator('.error-item').count(), 0, 'the fixed error is gone');
    assert.equal(await chat.locator('.message.user').count(), 1);
    await chat.locator('.model-switch', { hasText: `${new URL(model.origin).host} · scripted-model` }).waitFor();
    await workbench.screenshot('connect-answered-light');
  });

  it('shows the current model first with a check, provider names and key state in the switcher', async () => {
    await chat.locator('.model-switch').click();
    const options = quickInput().locator('.quick-input-list [role=option]');
    await options.first().waitFor();
    const first = options.first();
    assert.equal((await first.locator('.label-name').first().textContent())?.trim(), 'scripted-model');
    assert.equal(await first.locator('.codicon-check').count(), 1);
    assert.match((await first.textContent()) ?? '', new RegExp(`${host().replace(/\./g, '\\.')} · current`));
    const labels = (await options.locator('.label-name').allTextContents()).map((l) => l.trim());
    for (const name of ['OpenAI', 'Ollama', 'Gemini', 'VS Code', 'Connect a Model…']) assert.ok(labels.includes(name), `${name} in ${labels.join(', ')}`);
    assert.match((await options.filter({ has: workbench.page.locator('.label-name', { hasText: /^OpenAI$/ }) }).textContent()) ?? '', /no API key set/);
    assert.match((await options.filter({ has: workbench.page.locator('.label-name', { hasText: /^Ollama$/ }) }).textContent()) ?? '', /no API key needed/);
    await workbench.screenshot('connect-switcher-light');
    await workbench.page.keyboard.press('Escape');
  });

  it('names the local server in a 500, says it retried, and keeps Retry on the newest error only', async () => {
    model.enqueue(...Array.from({ length: 3 }, () => ({ fault: 'http' as const, status: 500, errorMessage: 'model crashed' })));
    await ask('First failing question');
    const cards = chat.locator('.error-item');
    await cards.first().waitFor({ timeout: 60_000 });
    await idle();
    assert.equal(
      (await cards.first().locator('p').textContent())?.trim(),
      `The server at ${host()} had a server error (HTTP 500): model crashed. Try again. Toolbelt tried 3 times.`,
    );
    assert.deepEqual(await cards.first().locator('button:visible').allTextContents(), ['Switch Model', 'Retry']);

    model.enqueue(...Array.from({ length: 3 }, () => ({ fault: 'reset' as const })));
    await ask('Second failing question');
    await cards.nth(1).waitFor({ timeout: 60_000 });
    await idle();
    assert.equal(await cards.first().locator('.retry-button:visible').count(), 0, 'the older card lost its Retry');
    assert.equal(await cards.nth(1).locator('.retry-button:visible').count(), 1);
    // A network failure's hint names the setting, rendered as code.
    assert.equal(await cards.nth(1).locator('p code', { hasText: 'toolbelt.baseUrl' }).count(), 1);
    assert.deepEqual(await cards.nth(1).locator('.error-action').allTextContents(), ['Connect a Model', 'Switch Model', 'Open Settings']);
    await workbench.screenshot('connect-errors-light');
  });

  it('connects to an Ollama server from the switcher, with a model from /api/tags', async () => {
    model.enqueue({ toolCalls: [{ name: 'ping', arguments: {} }] }, { text: 'Ollama answers the retried question.' });
    await chat.locator('.model-switch').click();
    await workbench.pickOption('Ollama');
    const box = quickInput().locator('input');
    await quickInput().locator('.quick-input-message', { hasText: /Ollama's address/ }).waitFor();
    await box.fill(model.ollamaBaseUrl);
    await box.press('Enter');
    await quickInput().locator('.quick-input-list [role=option]', { hasText: 'text-only:latest' }).waitFor({ timeout: 30_000 });
    await workbench.pickOption('scripted-ollama:latest');
    await workbench.notification(/connected to Ollama · scripted-ollama:latest\. Streaming works\. Tool calls work\./).waitFor({ timeout: 60_000 });
    await chat.locator('.message.assistant', { hasText: 'Ollama answers the retried question.' }).waitFor({ timeout: 60_000 });
    await chat.locator('.model-switch', { hasText: 'Ollama · scripted-ollama:latest' }).waitFor();
    const last = model.requests.at(-1)!;
    assert.equal(last.format, 'ollama');
    assert.equal((last.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'user').at(-1)?.content, 'Second failing question');
    await workbench.screenshot('connect-ollama-light');
  });
});

describe('Restricted mode in the chat panel (browser, dark theme)', function () {
  this.timeout(240_000);
  let workbench: Workbench;
  let chat: Frame;

  before(async () => {
    workbench = await Workbench.start({
      trust: true,
      theme: 'Default Dark Modern',
      workspaceSettings: { 'toolbelt.provider': 'ollama', 'toolbelt.baseUrl': 'http://127.0.0.1:9/v1', 'toolbelt.model': 'workspace-model' },
      env: { OPENAI_API_KEY: '', GEMINI_API_KEY: '' },
    });
    chat = await openChat(workbench, { sidebarWidth: 560 });
  });

  after(async () => {
    await workbench?.close();
  });

  it('says which workspace settings are ignored, and the error offers Connect a Model', async () => {
    const banner = chat.locator('.trust-banner');
    await banner.waitFor();
    const text = (await banner.locator('.trust-text').textContent()) ?? '';
    assert.match(text, /^Restricted mode: this workspace's baseUrl, provider, model, systemPrompt, sessionContextFile, tools\.sensitiveFiles, runBash\.allowedCommands, runBash\.deniedCommands, sandbox\.\*, mcp\.servers settings are ignored/);
    await chat.locator('textarea.message-input').fill('Which model is this?');
    await chat.locator('textarea.message-input').press('Enter');
    const card = chat.locator('.error-item');
    await card.waitFor({ timeout: 60_000 });
    assert.match((await card.textContent()) ?? '', /No OpenAI API key is set/, "the workspace's ollama setting is ignored");
    await chat.locator('.error-item button.error-action', { hasText: 'Connect a Model' }).waitFor();
    await workbench.screenshot('connect-restricted-dark');
  });

  it('opens Workspace Trust from the Trust button', async () => {
    await chat.locator('.trust-banner button', { hasText: 'Trust…' }).click();
    await workbench.page.locator('.workspace-trust-editor').first().waitFor({ timeout: 30_000 });
    await workbench.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first().click();
    await chat.locator('.trust-banner').waitFor({ state: 'hidden', timeout: 30_000 });
  });
});
