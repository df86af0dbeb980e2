import * as assert from 'node:assert/strict';
import type { Frame } from 'playwright-core';
import type { ModelServer } from '../support/modelServer';
import { waitFor } from '../support/waitFor';
import { scriptedChat, chatPanel } from './scriptedWorkbench';
import type { Workbench } from './workbench';

/** Review of a write in VS Code's diff editor, and Undo of a turn, in the real workbench. */
describe('Trust in what the agent changes (browser)', function () {
  this.timeout(240_000);
  let model: ModelServer;
  let workbench: Workbench;
  let chat: Frame;
  const { input, idle } = chatPanel(() => chat);
  let original: string;


  before(async () => {
    ({ model, workbench, chat } = await scriptedChat({
      workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'write_file' }, { name: 'read_file' }], 'toolbelt.approvals.writes': 'always' },
      sidebarWidth: 560,
    }));
    original = await workbench.readWorkspaceFile('README.md');
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('offers Review on a write, shows the change in the diff editor, and Accept there writes it', async () => {
    model.enqueue({ text: 'I will update the README. ', toolCalls: [{ name: 'write_file', arguments: { path: 'README.md', content: '# Fixture workspace\n\nUpdated by the agent.\n' } }] }, { text: 'Updated.' });
    await input().fill('Update the README');
    await input().press('Enter');
    const review = chat.locator('details.tool-card[data-tool="write_file"] button.review-change');
    await review.waitFor({ timeout: 60_000 });
    await review.click();
    const diff = workbench.page.locator('.monaco-diff-editor');
    await diff.first().waitFor({ timeout: 30_000 });
    await workbench.page.locator('.tab', { hasText: 'proposed by Toolbelt' }).first().waitFor({ timeout: 30_000 });
    await workbench.page.locator('.monaco-diff-editor .view-line', { hasText: 'Updated by the agent.' }).first().waitFor({ timeout: 30_000 });
    await workbench.screenshot('trust-review-diff');
    assert.equal(await workbench.readWorkspaceFile('README.md'), original, 'nothing is written while the person reviews');
    await workbench.page.locator('.editor-actions a.action-label[aria-label="Accept This Change"]').first().click();
    await idle();
    assert.equal(await workbench.readWorkspaceFile('README.md'), '# Fixture workspace\n\nUpdated by the agent.\n');
  });

  it('shows what the turn changed with Undo, and Undo puts the file back', async () => {
    const row = chat.locator('.turn-changes').last();
    await row.waitFor({ timeout: 30_000 });
    assert.match((await row.textContent()) ?? '', /Changed 1 file: README\.md/);
    await workbench.screenshot('trust-undo-offered');
    await row.locator('button.undo-turn').click();
    await row.locator('.turn-undone', { hasText: 'Undone: restored README.md.' }).waitFor({ timeout: 30_000 });
    await waitFor(async () => (await workbench.readWorkspaceFile('README.md')) === original, 'README.md restored');
    await workbench.screenshot('trust-undo-done');
  });
});
