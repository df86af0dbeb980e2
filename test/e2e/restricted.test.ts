import * as assert from 'node:assert/strict';
import { Workbench } from './workbench';

describe('Tools view in an untrusted workspace (browser)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async () => {
    workbench = await Workbench.start({
      trust: true,
      workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'calculator' }, { name: 'write_file' }] },
    });
  });
  after(async () => {
    await workbench?.close();
  });

  it('locks write tools in restricted mode and refuses the checkbox', async () => {
    await workbench.openToolbelt();
    await workbench.toolRow('write_file').waitFor();
    assert.equal(await workbench.checkbox('write_file').getAttribute('aria-checked'), 'false');
    assert.equal(await workbench.toolRow('write_file').locator('.codicon-lock').count(), 1);
    assert.equal(await workbench.checkbox('calculator').getAttribute('aria-checked'), 'true');
    await workbench.checkbox('write_file').click();
    await workbench.notification(/cannot be enabled until you trust this workspace/).waitFor();
    await workbench.waitForChecked('write_file', false);
    await workbench.screenshot('tools-view-restricted');
  });

  it('enables the write tools at once when the workspace is trusted', async () => {
    // The "Restricted Mode" status bar item opens the trust editor, as a person would.
    await workbench.page.mouse.move(700, 300); // a tool row's hover would cover the status bar
    await workbench.page.locator('.statusbar-item', { hasText: 'Restricted Mode' }).first().click();
    await workbench.page.locator('.workspace-trust-editor .monaco-button', { hasText: /^Trust$/ }).first().click();
    await workbench.waitForChecked('write_file', true, 30_000);
    assert.equal(await workbench.toolRow('write_file').locator('.codicon-lock').count(), 0);
  });
});
