import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import { INVENTORY } from '../fixtures/inventory';
import type { ModelServer } from '../support/modelServer';
import { waitFor } from '../support/waitFor';
import { chatPanel, scriptedChat } from './scriptedWorkbench';
import type { Workbench } from './workbench';

/** Deep enough that its path is cut at 290 px. */
const FILE = 'src/features/warehouse/stock/inventory.ts';
const TOTAL = [
  'export function total(items: Item[], options: { includeTax: boolean; taxRate: number } = { includeTax: false, taxRate: 0 }): number {',
  '  const net = items.reduce((sum, i) => sum + i.price * i.count, 0);',
  '  return options.includeTax ? net * (1 + options.taxRate) : net;',
  '}',
  '',
].join('\n');
const MERGED = INVENTORY.replace(/export function total[^]*$/, TOTAL);

const THEMES = [
  ['light', 'Default Light Modern'],
  ['dark', 'Default Dark Modern'],
] as const;

for (const [themeName, theme] of THEMES) {
  describe(`The chat panel at 290 px and 440 px, ${themeName} theme (browser)`, function () {
    this.timeout(420_000);
    let model: ModelServer;
    let workbench: Workbench;
    let chat: Frame;
    const { ask, idle } = chatPanel(() => chat);
    const shot = (name: string) => workbench.screenshot(`panel-${name}-${themeName}`);
    const box = async (selector: string) => (await chat.locator(selector).last().boundingBox())!;
    /** The vertical middles of the elements, rounded: one value when they sit in one row. */
    const rows = async (selector: string) => new Set((await chat.locator(selector).evaluateAll((all) => all.map((e) => e.getBoundingClientRect()).map((r) => r.top + r.height / 2))).map((y) => Math.round(y / 4)));

    before(async () => {
      ({ model, workbench, chat } = await scriptedChat({
        theme,
        workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'write_file' }, { name: 'read_file' }] },
        sidebarWidth: 290,
      }));
      await fs.mkdir(path.join(workbench.workspace, path.dirname(FILE)), { recursive: true });
      await fs.writeFile(path.join(workbench.workspace, FILE), INVENTORY);
    });

    after(async () => {
      await workbench?.close();
      await model?.close();
    });

    /**
     * The newest thing in the transcript and the buttons under it come into view above the input, not
     * behind it. The panel follows growth (Regenerate added after a reply, a highlighted block) on the
     * next frame, so the check allows a few frames; a transcript stuck short of its end still fails.
     */
    async function assertNewestVisible(what: string): Promise<void> {
      const overhang = async () => {
        const scroller = await box('.transcript-scroller');
        const last = await chat.locator('.transcript > *').last().boundingBox();
        assert.ok(last, 'the transcript has items');
        return last.y + last.height - (scroller.y + scroller.height);
      };
      await waitFor(async () => (await overhang()) <= 1, `${what}: the newest item in view`, 3_000).catch(async (error: Error) => {
        assert.fail(`${error.message}; it ends ${await overhang()} px below the transcript`);
      });
      assert.equal(await chat.locator('.scroll-to-bottom-bar').isVisible(), false, `${what}: no "Jump to latest" while at the end`);
    }

    it('290 px: a one-line code header (⋯ for the rest, the file name kept whole), code unwrapped, and the end of a reply above the input', async () => {
      const sidebar = await workbench.page.locator('.part.sidebar').boundingBox();
      assert.ok(sidebar && Math.abs(sidebar.width - 290) <= 12, `the side bar is about 290 px (${sidebar?.width})`);
      model.enqueue({ chunks: ['The total ignored the counts. Here is the fix:\n\n', `\`\`\`ts ${FILE}\n`, TOTAL, '```\n\n', 'It multiplies by the count and can add tax.\n'] });
      await ask('The total is wrong, fix it');
      await idle();
      const block = chat.locator('.message.assistant .code-block').last();
      const header = block.locator('.code-header');
      assert.ok((await header.boundingBox())!.height <= 26, 'the header is one line');
      assert.deepEqual(await block.locator('.code-actions button:visible').allTextContents(), ['Copy', 'Apply', '⋯']);
      const name = block.locator('.code-path .path-name');
      assert.equal(await name.textContent(), 'inventory.ts');
      assert.ok(await name.evaluate((e) => e.scrollWidth <= e.clientWidth && e.getBoundingClientRect().right <= e.parentElement!.getBoundingClientRect().right + 0.5), 'the file name is whole');
      assert.ok(await block.locator('.code-path .path-folder').evaluate((e) => e.scrollWidth > e.clientWidth), 'the folders are cut');
      const pre = block.locator('pre');
      assert.equal(await pre.evaluate((e) => getComputedStyle(e).whiteSpace), 'pre');
      assert.ok(await pre.evaluate((e) => e.scrollWidth > e.clientWidth), 'the long signature scrolls instead of wrapping');
      await chat.locator('.turn-regenerate').waitFor();
      await assertNewestVisible('after a reply');
      const regenerate = await box('.turn-regenerate');
      const composer = await box('.composer');
      assert.ok(regenerate.y + regenerate.height <= composer.y, 'Regenerate is above the input');
      await shot('290-code');

      await block.locator('.code-more-button').click();
      await block.locator('.code-menu [role=menuitem].menu-insert-code').waitFor();
      await shot('290-code-menu');
      await workbench.page.keyboard.press('Escape');
      await block.locator('.code-menu').waitFor({ state: 'hidden' });
    });

    it('290 px: Apply merges the snippet into its file and waits for Keep with a diff; nothing is written before, the rest of the file survives', async () => {
      const block = chat.locator('.message.assistant .code-block').last();
      await block.locator('button.apply-code').click();
      const proposal = chat.locator('.apply-card.status-pending').last();
      await proposal.waitFor({ timeout: 30_000 });
      assert.match((await proposal.locator('.apply-summary').textContent()) ?? '', /^Replaces total\. The rest of the file stays\.$/);
      assert.match((await proposal.locator('.apply-counts').textContent()) ?? '', /^\+3 −2$/);
      assert.equal(await proposal.locator('.path-name').textContent(), 'inventory.ts');
      assert.ok(await proposal.locator('.path-name').evaluate((e) => e.getBoundingClientRect().right <= e.parentElement!.getBoundingClientRect().right + 0.5), 'the file name is whole');
      assert.equal((await rows('.apply-card.status-pending .apply-buttons button')).size, 1, 'Keep, Undo and Show Diff in one row');
      await workbench.page.locator('.tab.active', { hasText: /inventory\.ts/ }).waitFor({ timeout: 30_000 });
      await workbench.page.locator('.editor-instance .monaco-diff-editor').first().waitFor({ timeout: 30_000 });
      await assertNewestVisible('with the proposal');
      await shot('290-apply-diff');
      assert.equal(await workbench.readWorkspaceFile(FILE), INVENTORY, 'nothing written before Keep');

      await proposal.locator('button.apply-keep').click();
      await chat.locator('.apply-card.status-kept').last().waitFor({ timeout: 30_000 });
      await idle();
      assert.equal(await workbench.readWorkspaceFile(FILE), MERGED, 'only total changed: the interface and addItem are there');
      const row = chat.locator('.turn-changes').last();
      await row.locator('button.undo-turn').waitFor();
      await assertNewestVisible('after Keep');
      await shot('290-apply-kept');
      await row.locator('button.undo-turn').click();
      await row.locator('.turn-undone').waitFor({ timeout: 30_000 });
      await waitFor(async () => (await workbench.readWorkspaceFile(FILE)) === INVENTORY, 'Undo this turn put the file back', 30_000);
    });

    it('290 px: an approval card keeps its buttons in one row; "for this chat" is in the ▾ menu', async () => {
      model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: '.vscode/tasks.json', content: '{\n  "version": "2.0.0",\n  "tasks": [{ "label": "build", "type": "npm", "script": "build" }]\n}\n' } }] }, { text: 'I left the tasks alone.' });
      await ask('Add a build task');
      const approval = chat.locator('.approval').last();
      await approval.waitFor({ timeout: 60_000 });
      assert.equal(await approval.locator('.approval-buttons button:visible').count(), 4, 'Allow, ▾, Deny, Review');
      assert.equal((await rows('.approval .approval-buttons button:visible')).size, 1, 'one row');
      await approval.locator('button.allow-more').click();
      await approval.locator('.approval-menu button.allow-for-chat').waitFor();
      await assertNewestVisible('with the approval menu open');
      await shot('290-approval');
      await approval.locator('button.deny').click();
      await idle();
      await assertNewestVisible('after the reply');
    });

    it('290 px: scrolled up, "Jump to latest" takes a row of its own above the input and covers no text', async () => {
      model.enqueue({ chunks: Array.from({ length: 40 }, (_, i) => `Line ${i + 1} of a long answer that wraps at this width.\n\n`) });
      await ask('Write a long answer');
      await idle();
      await assertNewestVisible('after a long answer');
      await chat.locator('.transcript-scroller').evaluate((e) => (e.scrollTop = 0));
      const bar = chat.locator('.scroll-to-bottom-bar');
      await bar.waitFor({ state: 'visible' });
      const [barBox, scroller, composer] = [await bar.boundingBox(), await box('.transcript-scroller'), await box('.composer')];
      assert.ok(barBox && barBox.y >= scroller.y + scroller.height - 1, 'below the transcript, not over it');
      assert.ok(barBox.y + barBox.height <= composer.y + 1, 'above the input');
      const background = await chat.locator('.scroll-to-bottom').evaluate((e) => getComputedStyle(e).backgroundColor);
      assert.notEqual(background, 'rgba(0, 0, 0, 0)', 'the button has a background');
      await shot('290-jump-to-latest');
      await chat.locator('.scroll-to-bottom').click();
      await bar.waitFor({ state: 'hidden' });
      await assertNewestVisible('after Jump to latest');
    });

    it('440 px: every code action in the header and the approval buttons in one row', async () => {
      await workbench.widenSidebar(440);
      const block = chat.locator('.message.assistant .code-block').first();
      await waitFor(async () => (await block.locator('.code-actions button:visible').allTextContents()).join(',') === 'Copy,Apply,Insert,New File', 'all four actions', 30_000);
      assert.ok((await block.locator('.code-header').boundingBox())!.height <= 26, 'the header is one line');
      assert.ok(await block.locator('.code-path .path-name').evaluate((e) => e.getBoundingClientRect().right <= e.parentElement!.getBoundingClientRect().right + 0.5), 'the file name is whole');
      model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: '.vscode/settings.json', content: '{}\n' } }] }, { text: 'Left it.' });
      await ask('Reset the settings');
      const approval = chat.locator('.approval').last();
      await approval.waitFor({ timeout: 60_000 });
      assert.equal((await rows('.approval .approval-buttons button:visible')).size, 1, 'one row');
      await shot('440-approval');
      await approval.locator('button.deny').click();
      await idle();
      await assertNewestVisible('at 440 px');
      await chat.locator('.transcript-scroller').evaluate((e) => (e.scrollTop = e.scrollHeight));
      await shot('440-end');
    });
  });
}
