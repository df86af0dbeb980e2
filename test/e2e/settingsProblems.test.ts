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
});
