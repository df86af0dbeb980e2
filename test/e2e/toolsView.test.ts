import * as assert from 'node:assert/strict';
import { Workbench } from './workbench';

const REGISTRY = [{ name: 'calculator' }, { name: 'read_file', description: 'Reads files for the team' }, { name: 'run_bash' }, { name: 'write_file' }];

describe('Tools view in a real workbench (browser)', function () {
  this.timeout(180_000);
  let workbench: Workbench;

  before(async () => {
    workbench = await Workbench.start({ workspaceSettings: { 'toolbelt.tools.registry': REGISTRY } });
  });
  after(async () => {
    await workbench?.close();
  });

  it('shows active tools with checkboxes and the available ones', async () => {
    await workbench.openToolbelt();
    for (const name of ['calculator', 'read_file', 'run_bash', 'write_file']) await workbench.toolRow(name).waitFor();
    assert.equal(await workbench.checkbox('calculator').getAttribute('aria-checked'), 'true');
    assert.equal(await workbench.checkbox('run_bash').getAttribute('aria-checked'), 'false');
    assert.match((await workbench.toolRow('read_file').textContent()) ?? '', /Reads files for the team/);
    await workbench.toolRow('list_dir').waitFor();
    assert.equal(await workbench.checkbox('list_dir').count(), 0, 'available tools have no checkbox');
    await workbench.screenshot('tools-view-dark');
  });

  it('toggles a tool with its checkbox without touching settings.json', async () => {
    const before = await workbench.readWorkspaceFile('.vscode/settings.json');
    await workbench.waitForActiveSummary('3 of 4 enabled');
    await workbench.checkbox('calculator').click();
    await workbench.waitForChecked('calculator', false);
    await workbench.waitForActiveSummary('2 of 4 enabled');
    await workbench.checkbox('run_bash').click();
    await workbench.waitForChecked('run_bash', true);
    await workbench.waitForActiveSummary('3 of 4 enabled');
    assert.equal(await workbench.readWorkspaceFile('.vscode/settings.json'), before);
    await workbench.screenshot('tools-view-toggled');
  });

  it('keeps the toggles after a window reload', async () => {
    await workbench.reload();
    await workbench.openToolbelt();
    await workbench.toolRow('calculator').waitFor();
    assert.equal(await workbench.checkbox('calculator').getAttribute('aria-checked'), 'false');
    assert.equal(await workbench.checkbox('run_bash').getAttribute('aria-checked'), 'true');
  });

  it('adds an available tool with its inline + action, writing {name} to settings.json', async () => {
    const row = workbench.toolRow('list_dir');
    await row.hover();
    await row.locator('.action-label[aria-label="Enable Tool"]').click();
    await workbench.checkbox('list_dir').waitFor();
    assert.equal(await workbench.checkbox('list_dir').getAttribute('aria-checked'), 'true');
    const settings = JSON.parse(await workbench.readWorkspaceFile('.vscode/settings.json'));
    assert.deepEqual(settings['toolbelt.tools.registry'].at(-1), { name: 'list_dir' });
  });

  it('picks up a settings.json edit live', async () => {
    const { promises: fs } = await import('node:fs');
    const path = await import('node:path');
    await fs.writeFile(
      path.join(workbench.workspace, '.vscode', 'settings.json'),
      JSON.stringify({ 'toolbelt.tools.registry': [{ name: 'generate_uuid' }, { name: 'teleport' }] }, null, 2),
    );
    await workbench.checkbox('generate_uuid').waitFor({ timeout: 30_000 });
    await workbench.toolRow('calculator').locator('[role=checkbox]').waitFor({ state: 'detached' });
    await workbench.notification(/unknown tool "teleport"/).waitFor({ timeout: 30_000 });
    await workbench.screenshot('tools-view-warning');
  });

  it('reads well in the light theme', async () => {
    await workbench.runCommand('Preferences: Color Theme');
    await workbench.page.locator('.quick-input-widget input').fill('Light Modern');
    await workbench.pickOption('Light Modern');
    await workbench.page.locator('.monaco-workbench.vs').waitFor();
    await workbench.openToolbelt();
    await workbench.screenshot('tools-view-light');
  });
});
