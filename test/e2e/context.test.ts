import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import type { ModelServer } from '../support/modelServer';
import { startWithScriptedModel, chatPanel } from './scriptedWorkbench';
import type { Workbench } from './workbench';

/** Context from the editor (chips, the `#` picker) and the panel's layout (height, keybinding, scroll-to-bottom). */
describe('Chat context and layout in a real workbench (browser)', function () {
  this.timeout(240_000);
  let model: ModelServer;
  let workbench: Workbench;
  let chat: Frame;
  const { input, idle } = chatPanel(() => chat);

  const editorText = () => workbench.page.locator('.editor-instance .monaco-editor .view-lines').first();
  const composerChips = () => chat.locator('.composer-chips .context-chip');
  const picker = () => workbench.page.locator('.quick-input-widget', { hasText: 'Add context to the message' });
  const transcriptHeight = () => chat.locator('.transcript-scroller').evaluate((e) => e.clientHeight);
  /** The class of the chat's focused element, when the chat's document has the focus. */
  const focusedInChat = () =>
    chat.locator('body').evaluate((body) => (body.ownerDocument.hasFocus() ? (body.ownerDocument.activeElement?.className ?? '') : ''));
  const lastUserMessage = () => (model.requests.at(-1)!.body.messages as { role: string; content: string }[]).filter((m) => m.role === 'user').at(-1)!.content;

  /** Opens the picker with the composer's button and picks the file named `name`. */
  async function attachFromPicker(name: string): Promise<void> {
    await chat.locator('button.add-context').click();
    await picker().waitFor();
    await workbench.page.locator('.quick-input-widget input').fill(name);
    await workbench.pickOption(name);
  }

  async function waitUntil(check: () => Promise<boolean>, what: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`Timed out: ${what}`);
      await workbench.page.waitForTimeout(100);
    }
  }

  before(async () => {
    // Toolbelt is opened by the first test, which checks how its Tools view starts.
    ({ model, workbench } = await startWithScriptedModel({ workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'calculator' }] } }));
    const file = (name: string) => path.join(workbench.workspace, name);
    await fs.writeFile(file('big.log'), Array.from({ length: 3000 }, (_, i) => `log line ${i + 1}`).join('\n') + '\n');
    await fs.writeFile(file('logo.bin'), Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 1, 2, 3]));
    await fs.writeFile(file('.env'), 'API_TOKEN=do-not-send\n');
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('starts with the Tools view collapsed, so the chat has the height', async () => {
    await workbench.openToolbelt({ expandTools: false });
    await workbench.widenSidebar(520);
    const toolsHeader = workbench.page.locator('.part.sidebar .pane-header', { hasText: /^Tools/ }).first();
    assert.equal(await toolsHeader.getAttribute('aria-expanded'), 'false');
    chat = await workbench.chatFrame();
    await chat.locator('.model-switch', { hasText: `${new URL(model.origin).host} · scripted-model` }).waitFor();
    const collapsed = await transcriptHeight();
    await workbench.screenshot('context-layout-tools-collapsed');
    await workbench.setToolsViewExpanded(true);
    await waitUntil(async () => (await transcriptHeight()) < collapsed - 100, 'the transcript shrinks when Tools expands');
    const expanded = await transcriptHeight();
    await workbench.setToolsViewExpanded(false);
    await waitUntil(async () => (await transcriptHeight()) === collapsed, 'the transcript gets its height back');
    assert.ok(collapsed > expanded + 100, `collapsed ${collapsed}px vs expanded ${expanded}px`);
    assert.ok(collapsed > 500, `the transcript gets most of the 860px window (${collapsed}px)`);
  });

  it('opens and focuses the chat with Ctrl+Alt+K from the editor', async () => {
    await workbench.page.keyboard.press('Control+P');
    await workbench.page.locator('.quick-input-widget input').fill('hello.ts');
    await workbench.page.locator('.quick-input-list [role=option]', { hasText: 'hello.ts' }).first().click();
    await editorText().click();
    await waitUntil(async () => !(await focusedInChat()).includes('message-input'), 'the editor has the focus');
    await workbench.page.keyboard.press('Control+Alt+K');
    await waitUntil(async () => (await focusedInChat()).includes('message-input'), 'the message box has the focus');
  });

  it('attaches the selection with # and a big file with the button; the model gets both with paths and the cut', async () => {
    // Lines 1-2 of src/hello.ts, selected in the editor.
    await editorText().click();
    await workbench.page.keyboard.press('Control+Home');
    await workbench.page.keyboard.press('Shift+ArrowDown');
    await workbench.page.keyboard.press('Shift+ArrowDown');
    await workbench.page.keyboard.press('Control+Alt+K');
    await waitUntil(async () => (await focusedInChat()).includes('message-input'), 'the message box has the focus');
    // `#` lists what can be attached right at the input (no picker at the top of the window), narrowed as you type.
    await input().pressSequentially('Explain #');
    const list = chat.locator('.hash-menu');
    await list.locator('.hash-option.kind-selection', { hasText: 'Selection' }).waitFor();
    assert.equal(await picker().count(), 0, 'no quick pick at the top of the window');
    await list.locator('.hash-option.kind-file', { hasText: 'README.md' }).first().waitFor();
    await input().pressSequentially('hel');
    await list.locator('.hash-option.kind-file', { hasText: 'README.md' }).waitFor({ state: 'detached' });
    const options = await list.locator('.hash-option .hash-label').allTextContents();
    assert.deepEqual(options.slice(0, 2), ['Selection', 'hello.ts'], `the selection, then the open editor (${options.join(', ')})`);
    assert.ok(options.includes('Browse files…'));
    await workbench.screenshot('context-picker');
    await list.locator('.hash-option.kind-selection').click();
    await composerChips().filter({ hasText: 'hello.ts:1-2' }).waitFor();
    assert.equal(await input().inputValue(), 'Explain ', 'the #hel that opened the list is gone');

    await attachFromPicker('big.log');
    const big = composerChips().filter({ hasText: 'big.log' });
    await big.waitFor();
    assert.match((await big.textContent()) ?? '', /truncated/);
    assert.match((await big.getAttribute('title')) ?? '', /Truncated: lines 1-2000 of 3,000 attached/);
    await workbench.screenshot('context-chips-composer');

    model.enqueue({ text: 'It greets by name; the log repeats itself.' });
    await input().pressSequentially('these two');
    await input().press('Enter');
    await chat.locator('.message.assistant', { hasText: 'It greets by name' }).waitFor();
    await idle();
    assert.equal(await composerChips().count(), 0, 'the composer is empty after sending');
    const sent = lastUserMessage();
    assert.match(sent, /<attachment kind="selection" path="src\/hello\.ts" lines="1-2">\nexport function hello\(name: string\): string \{\n {2}return `Hello, \$\{name\}!`;\n<\/attachment>/);
    assert.match(sent, /<attachment kind="file" path="big\.log">\nlog line 1\n[^]*\nlog line 2000\n\[Truncated: lines 1-2000 of 3,000 attached \(an attachment carries at most 2,000 lines\)\.\]\n<\/attachment>/);
    assert.ok(!sent.includes('log line 2001'));
    assert.match(sent, /<\/attachments>\n\nExplain these two$/);
    const userMessage = chat.locator('.message.user').last();
    assert.equal(await userMessage.locator('.body').textContent(), 'Explain these two');
    assert.deepEqual(await userMessage.locator('.context-chip .chip-label').allTextContents(), ['hello.ts:1-2', 'big.log']);
    await workbench.screenshot('context-chips-sent');
  });

  it('removes a chip with its × and with Backspace or Delete when focused', async () => {
    await attachFromPicker('README.md');
    await composerChips().filter({ hasText: 'README.md' }).waitFor();
    await composerChips().locator('.chip-remove').click();
    assert.equal(await composerChips().count(), 0);

    await attachFromPicker('README.md');
    await attachFromPicker('hello.ts');
    await waitUntil(async () => (await composerChips().count()) === 2, 'two chips');
    await composerChips().first().focus();
    await composerChips().first().press('Delete');
    assert.deepEqual(await composerChips().locator('.chip-label').allTextContents(), ['hello.ts']);
    await input().focus();
    await input().press('Home');
    await input().press('Backspace'); // at the start of the message: steps onto the last chip
    await composerChips().first().press('Backspace');
    assert.equal(await composerChips().count(), 0);
  });

  it('refuses a binary file with the reason, and asks before attaching a sensitive one', async () => {
    await attachFromPicker('logo.bin');
    await chat.locator('.composer-status', { hasText: 'logo.bin looks like a binary file (11 B); only text can be attached.' }).waitFor();
    assert.equal(await composerChips().count(), 0);

    await attachFromPicker('.env');
    const dialog = workbench.page.locator('.monaco-dialog-box', { hasText: 'Attach .env? It may hold secrets.' });
    await dialog.waitFor();
    await workbench.screenshot('context-sensitive-dialog');
    await dialog.locator('.monaco-button', { hasText: 'Cancel' }).click();
    await chat.locator('.composer-status', { hasText: 'Not attached: you chose not to send .env to the model.' }).waitFor();
    assert.equal(await composerChips().count(), 0);
  });

  it('offers a scroll-to-bottom button after the person scrolls up during a reply, and it brings the end into view', async () => {
    const scroller = chat.locator('.transcript-scroller');
    const toBottom = chat.locator('button.scroll-to-bottom');
    model.enqueue({ chunks: Array.from({ length: 120 }, (_, i) => `Paragraph ${i + 1} of a long answer.\n\n`), chunkDelayMs: 25 });
    await input().fill('Write a long answer');
    await input().press('Enter');
    await chat.locator('.message.assistant.streaming', { hasText: 'Paragraph 40 ' }).waitFor();
    assert.equal(await toBottom.isVisible(), false, 'following the stream, no button');
    await scroller.evaluate((e) => (e.scrollTop = 0));
    await toBottom.waitFor({ state: 'visible' });
    await idle();
    assert.ok((await scroller.evaluate((e) => e.scrollTop)) < 50, 'the reply did not pull the person back down');
    await workbench.screenshot('context-scroll-to-bottom');
    await toBottom.click();
    await toBottom.waitFor({ state: 'hidden' });
    const last = chat.locator('.message.assistant p', { hasText: 'Paragraph 120 of a long answer.' });
    const [lastBox, scrollerBox] = await Promise.all([last.boundingBox(), scroller.boundingBox()]);
    assert.ok(lastBox && scrollerBox && lastBox.y + lastBox.height <= scrollerBox.y + scrollerBox.height + 1, 'the last paragraph is in view');
  });

  it('looks right in the light theme', async () => {
    await attachFromPicker('big.log');
    await attachFromPicker('hello.ts');
    await editorText().click();
    await workbench.runCommand('Preferences: Color Theme');
    await workbench.page.locator('.quick-input-widget input').fill('Light Modern');
    await workbench.pickOption('Light Modern');
    await workbench.page.locator('.monaco-workbench.vs').waitFor();
    await chat.locator('.transcript-scroller').evaluate((e) => (e.scrollTop = e.scrollHeight - e.clientHeight - 400));
    await chat.locator('button.scroll-to-bottom').waitFor({ state: 'visible' });
    await workbench.screenshot('context-light');
  });
});
