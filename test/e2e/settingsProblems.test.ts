import * as assert from 'node:assert/strict';
import { Workbench } from './workbench';

describe('Registry problems on settings.json (browser)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async () => {
    workbench = await Workbench.start({
      workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'calculator' }, { name: 'teleport' }, { name: 'write_file', type: 'builtin' }] },
    });
  });
  after(async () => {
    await workbench?.close();
  });

  it('tells once, in plain words, and reveals the entry underlined in settings.json and in Problems', async () => {
    await workbench.openToolbelt();
    const toast = workbench.notification(/2 problems in this workspace's tool settings/);
    await toast.waitFor({ timeout: 30_000 });
    const text = (await toast.textContent()) ?? '';
    assert.match(text, /The first: Entry 2 of this workspace's tool settings: unknown tool "teleport"/);
    assert.doesNotMatch(text, /toolbelt\.tools\.registry\[/, 'no setting path with an index');
    assert.equal(await workbench.page.locator('.notification-toast').filter({ hasText: /tool settings/ }).count(), 1, 'one toast');

    await toast.locator('a.monaco-button, .monaco-button', { hasText: 'Reveal in settings.json' }).first().click();
    const editor = workbench.page.locator('.editor-instance .monaco-editor').first();
    await editor.locator('.squiggly-warning').first().waitFor({ timeout: 30_000 });
    assert.ok((await editor.locator('.squiggly-warning').count()) >= 2, 'both entries underlined');
    assert.match((await workbench.page.locator('.tab.active').textContent()) ?? '', /settings\.json/);

    await workbench.page.keyboard.press('Control+Shift+M');
    const problems = workbench.page.locator('.markers-panel');
    await problems.locator('.monaco-list-row', { hasText: /unknown tool "teleport"/ }).first().waitFor({ timeout: 30_000 });
    assert.match((await problems.textContent()) ?? '', /"write_file" in the tool settings: "type" is deprecated and ignored/);
    await workbench.screenshot('settings-problems-dark');
  });

  it('while the person types in settings.json: squiggles and the status bar, no toast; a quick fix for a near name; all withdrawn once fixed', async () => {
    const page = workbench.page;
    await page.keyboard.press('Control+Shift+M'); // the Problems view away again
    await workbench.runCommand('Notifications: Clear All Notifications');
    const editor = page.locator('.editor-instance .monaco-editor').first();
    // Replace the whole file in its editor, as a person does (text inserted as typed, without the editor's auto-closing).
    await editor.click();
    await page.keyboard.press('Control+A');
    await page.keyboard.press('Delete');
    await page.keyboard.insertText('{\n"toolbelt.tools.registry": [\n{ "name": "calculator" },\n{ "name": "serch_text" }\n]\n}\n');
    await page.keyboard.press('Control+S');
    await editor.locator('.squiggly-warning').first().waitFor({ timeout: 30_000 });
    const status = page.locator('.statusbar-item', { hasText: /1 tool settings problem$/ });
    await status.waitFor({ timeout: 30_000 });
    await page.waitForTimeout(3000); // longer than the toast's quiet period
    assert.equal(await workbench.notification(/tool settings/).count(), 0, 'no toast while the file is being edited');
    await workbench.screenshot('settings-problems-typing-dark');

    await editor.locator('.view-line', { hasText: 'serch_text' }).click();
    await page.keyboard.press('Control+.');
    await page.locator('.action-widget .monaco-list-row, .context-view .action-label', { hasText: 'Change to "search_text"' }).first().click({ timeout: 30_000 });
    await editor.locator('.view-line', { hasText: '"search_text"' }).waitFor();
    await page.keyboard.press('Control+S');
    await status.waitFor({ state: 'detached', timeout: 30_000 });
    await editor.locator('.squiggly-warning').first().waitFor({ state: 'detached', timeout: 30_000 });
    assert.match(await workbench.readWorkspaceFile('.vscode/settings.json'), /"name": "search_text"/);
  });
});
