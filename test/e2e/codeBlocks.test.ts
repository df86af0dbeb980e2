import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { ModelServer } from '../support/modelServer';
import { waitFor } from '../support/waitFor';
import { scriptedChat, chatPanel } from './scriptedWorkbench';
import type { Workbench } from './workbench';

const TS_CODE = 'export function greet(name: string): string {\n  return `Hello, ${name}!`;\n}\n';
const PY_CODE = 'def shout(text):\n    return text.upper() + "!"\n';
const WIDE_ROW = Array.from({ length: 12 }, (_, i) => `column number ${i} with a long heading`);

/** An answer with a TypeScript block that names its file, a Python block that names none, and a wide table. */
function answer(): string[] {
  return [
    'Here is the helper:\n\n',
    '```ts src/greet.ts\n',
    TS_CODE.slice(0, 30),
    TS_CODE.slice(30),
    '```\n\nAnd a script:\n\n```python\n',
    PY_CODE,
    '```\n\n',
    `| ${WIDE_ROW.join(' | ')} |\n| ${WIDE_ROW.map(() => '---').join(' | ')} |\n| ${WIDE_ROW.map((_, i) => `value ${i}`).join(' | ')} |\n`,
  ];
}

/** A workbench with the chat open on the scripted model (started here unless given); writes always ask. */
function startWorkbench(theme: 'Default Light Modern' | 'Default Dark Modern', model?: ModelServer): Promise<{ model: ModelServer; workbench: Workbench; chat: Frame }> {
  return scriptedChat({
    model,
    theme,
    workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'write_file' }, { name: 'read_file' }], 'toolbelt.approvals.writes': 'always' },
    sidebarWidth: 520,
  });
}

async function askForCode(model: ModelServer, chat: Frame): Promise<void> {
  model.enqueue({ chunks: answer(), chunkDelayMs: 40 });
  await chat.locator('textarea.message-input').fill('Write a greeting helper and a script');
  await chat.locator('textarea.message-input').press('Enter');
  await chat.locator('#toolbelt-chat:not(.busy)').waitFor({ timeout: 60_000 });
  await chat.locator('.message.assistant .code-block[data-highlighted="true"]').nth(1).waitFor();
}

describe('Code blocks in the chat panel (browser)', function () {
  this.timeout(300_000);
  let model: ModelServer;
  let workbench: Workbench;
  let chat: Frame;
  const { idle } = chatPanel(() => chat);

  const block = (nth: number) => chat.locator('.message.assistant .code-block').nth(nth);

  before(async () => {
    ({ model, workbench, chat } = await startWorkbench('Default Light Modern'));
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('gives each block a header with its language, path and buttons that never cover the code, highlights it, and scrolls a wide table', async () => {
    await askForCode(model, chat);
    const ts = block(0);
    assert.equal(await ts.locator('.code-language').textContent(), 'TypeScript');
    assert.equal(await ts.locator('.code-path').textContent(), 'src/greet.ts');
    assert.equal(await block(1).locator('.code-language').textContent(), 'Python');
    const visible = await ts.locator('.code-actions button:visible').allTextContents();
    assert.deepEqual(visible, ['Copy', 'Apply', 'Insert', 'New File'], 'wide enough: every action in the header, no "⋯"');
    assert.equal(await ts.locator('pre').textContent(), TS_CODE);
    assert.ok((await ts.locator('pre .hljs-keyword').count()) >= 2, 'keywords are highlighted');
    assert.ok((await ts.locator('pre .hljs-string').count()) >= 1, 'strings are highlighted');
    assert.equal(await chat.locator('.message.assistant script, .message.assistant [onload], .message.assistant [onerror]').count(), 0);

    const code = await ts.locator('pre').boundingBox();
    for (const name of ['Copy', 'Insert', 'Apply', 'New File']) {
      const button = await ts.locator('.code-actions > button', { hasText: new RegExp(`^${name}$`) }).boundingBox();
      assert.ok(code && button, `${name} and the code are laid out`);
      const overlaps = button.x < code.x + code.width && code.x < button.x + button.width && button.y < code.y + code.height && code.y < button.y + button.height;
      assert.equal(overlaps, false, `${name} (${JSON.stringify(button)}) does not overlap the code (${JSON.stringify(code)})`);
      assert.ok(button.y + button.height <= code.y + 1, `${name} sits above the code`);
    }
    const color = await ts.locator('pre .hljs-keyword').first().evaluate((e) => getComputedStyle(e).color);
    const plain = await ts.locator('pre').evaluate((e) => getComputedStyle(e).color);
    assert.notEqual(color, plain, 'keywords have a colour of their own');

    const table = chat.locator('.message.assistant .table-scroll');
    const sizes = await table.evaluate((e) => ({ scroll: e.scrollWidth, client: e.clientWidth, overflow: getComputedStyle(e).overflowX, table: e.querySelector('table')!.getBoundingClientRect().width }));
    assert.equal(sizes.overflow, 'auto');
    assert.ok(sizes.scroll > sizes.client, `the table is wider than its box and scrolls (${sizes.scroll} > ${sizes.client})`);
    assert.ok(sizes.table >= sizes.scroll - 1, 'the table keeps its full width instead of being clipped');
    await table.evaluate((e) => (e.scrollLeft = e.scrollWidth));
    assert.ok((await table.evaluate((e) => e.scrollLeft)) > 0, 'it scrolls sideways');
    await table.evaluate((e) => (e.scrollLeft = 0));
    await workbench.screenshot('code-blocks-light');
  });

  it('Insert at Cursor says what to do without an editor, then puts the code at the cursor of the open one', async () => {
    const original = await workbench.readWorkspaceFile('src/hello.ts');
    await block(1).locator('button.insert-code').click();
    await workbench.notification(/Insert at Cursor needs an open editor/).waitFor({ timeout: 30_000 });

    await workbench.page.keyboard.press('Control+P');
    await workbench.page.locator('.quick-input-widget input').fill('hello.ts');
    await workbench.pickOption('hello.ts');
    const editor = workbench.page.locator('.editor-instance .monaco-editor').first();
    await editor.waitFor();
    await editor.locator('.view-line').first().waitFor();
    // On a loaded machine the extension host may learn of the new editor after the click: then it
    // says "needs an open editor" again and inserts nothing, and the click is repeated.
    const needsEditor = workbench.notification(/Insert at Cursor needs an open editor/);
    const inserted = editor.locator('.view-line', { hasText: 'def shout(text):' });
    for (let attempt = 1; ; attempt++) {
      await workbench.runCommand('Notifications: Clear All Notifications');
      await needsEditor.waitFor({ state: 'detached', timeout: 30_000 });
      await block(1).locator('button.insert-code').click();
      const outcome = await waitFor(async () => ((await inserted.count()) > 0 ? 'inserted' : (await needsEditor.count()) > 0 ? 'no editor yet' : undefined), 'the code inserted, or the notification', 60_000);
      if (outcome === 'inserted') break;
      assert.ok(attempt < 4, 'the extension host learnt of the open editor');
      await workbench.page.waitForTimeout(2000);
    }
    await workbench.page.keyboard.press('Control+S');
    await waitFor(async () => (await workbench.readWorkspaceFile('src/hello.ts')) === PY_CODE + original, 'the inserted code saved, as whole lines, at the top of src/hello.ts', 30_000);
    await workbench.screenshot('code-blocks-inserted');
  });

  it('Apply to File shows the new file as a diff to Keep, writes it on Keep through the approval the workspace asks for, and Undo of the turn removes it', async () => {
    const target = path.join(workbench.workspace, 'src', 'greet.ts');
    assert.equal(existsSync(target), false);
    await block(0).locator('button.apply-code').click();
    const proposal = chat.locator('.apply-card.status-pending').last();
    await proposal.waitFor({ timeout: 30_000 });
    assert.match((await proposal.textContent()) ?? '', /greet\.ts\s*\+3 −0[^]*Creates the file/);
    await workbench.page.locator('.tab.active', { hasText: /greet\.ts/ }).waitFor({ timeout: 30_000 });
    assert.equal(existsSync(target), false, 'nothing is written before Keep');
    await proposal.locator('button.apply-keep').click();
    const card = chat.locator('details.tool-card[data-tool="write_file"]').last();
    const approval = card.locator('.approval');
    await approval.waitFor({ timeout: 30_000 });
    assert.match((await approval.textContent()) ?? '', /src\/greet\.ts/);
    assert.equal(existsSync(target), false, 'nothing is written before the approval');
    await workbench.screenshot('code-blocks-apply-approval');
    await approval.locator('button', { hasText: /^Allow$/ }).click();
    await card.locator('.tool-meta', { hasText: /done/ }).waitFor();
    await idle();
    assert.equal(await workbench.readWorkspaceFile('src/greet.ts'), TS_CODE);
    const row = chat.locator('.turn-changes').last();
    await row.waitFor();
    assert.match((await row.textContent()) ?? '', /Changed 1 file: src\/greet\.ts/);
    await row.locator('button.undo-turn').click();
    await row.locator('.turn-undone').waitFor({ timeout: 30_000 });
    await waitFor(() => !existsSync(target), 'src/greet.ts removed by Undo', 30_000);
  });

  it('Apply to File asks for the path of a block that names none, with a name in its language filled in', async () => {
    await block(1).locator('button.apply-code').click();
    const box = workbench.page.locator('.quick-input-widget input');
    await box.waitFor();
    assert.equal(await box.inputValue(), 'new-file.py');
    await box.fill('tools/shout.py');
    await box.press('Enter');
    await chat.locator('.apply-card.status-pending button.apply-keep').last().click({ timeout: 30_000 });
    const approval = chat.locator('details.tool-card[data-tool="write_file"]').last().locator('.approval');
    await approval.waitFor({ timeout: 30_000 });
    await approval.locator('button', { hasText: /^Allow$/ }).click();
    await idle();
    assert.equal(await workbench.readWorkspaceFile('tools/shout.py'), PY_CODE);
  });

  it('New File opens the code in an untitled editor in the block\'s language', async () => {
    await block(1).locator('button.new-file').click();
    const tab = workbench.page.locator('.tab.active', { hasText: /Untitled/ });
    await tab.waitFor({ timeout: 30_000 });
    const editor = workbench.page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.view-line', { hasText: 'return text.upper()' }).waitFor();
    await workbench.page.locator('.statusbar-item[id="status.editor.mode"]', { hasText: 'Python' }).waitFor({ timeout: 30_000 });
    await workbench.screenshot('code-blocks-new-file');
  });
});

describe('Code blocks in the dark theme (browser)', function () {
  this.timeout(240_000);
  let model: ModelServer;
  let workbench: Workbench;

  before(async () => {
    model = await ModelServer.start();
  });
  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('reads well in the dark theme: tokens coloured apart from the text', async () => {
    let chat: Frame;
    ({ workbench, chat } = await startWorkbench('Default Dark Modern', model));
    await askForCode(model, chat);
    const keyword = await chat.locator('.code-block pre .hljs-keyword').first().evaluate((e) => getComputedStyle(e).color);
    const string = await chat.locator('.code-block pre .hljs-string').first().evaluate((e) => getComputedStyle(e).color);
    const plain = await chat.locator('.code-block pre').first().evaluate((e) => getComputedStyle(e).color);
    assert.equal(new Set([keyword, string, plain]).size, 3, `three colours: ${keyword}, ${string}, ${plain}`);
    await workbench.screenshot('code-blocks-dark');
  });
});
