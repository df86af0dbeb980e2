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

  it('moves beside the editor, where the whole tree fits and the chat keeps its column, and back under the chat', async () => {
    const toolsHeader = workbench.page.locator('.part.sidebar .pane-header', { hasText: /^Tools/ });
    const beside = workbench.page.locator('.part.auxiliarybar [role=tree][aria-label="Tools"]');
    await workbench.runCommand('Toolbelt: Show Tools Beside the Editor');
    await beside.locator('[role=treeitem][aria-label^="generate_uuid,"]').waitFor({ timeout: 30_000 });
    // Every row of Available, first to last: the tree is not squeezed into a sliver under the chat.
    for (const name of ['calculator', 'list_dir', 'remove', 'run_bash']) await beside.locator(`[role=treeitem][aria-label^="${name},"]`).waitFor({ timeout: 10_000 });
    await toolsHeader.first().waitFor({ state: 'detached' });
    const sidebar = await workbench.page.locator('.part.sidebar').boundingBox();
    const chatInput = await (await workbench.chatFrame()).locator('textarea').first().boundingBox();
    assert.ok(sidebar && chatInput && chatInput.y > sidebar.y + sidebar.height * 0.8, 'the chat has the side bar to itself: its input sits at the bottom');
    await workbench.screenshot('tools-view-beside-editor');

    await workbench.runCommand('Toolbelt: Move Tools Back Under the Chat');
    await toolsHeader.first().waitFor({ timeout: 30_000 });
    await beside.waitFor({ state: 'detached' });
  });
});

describe('Tools view with an MCP server from .vscode/mcp.json (browser)', function () {
  this.timeout(180_000);
  let workbench: Workbench;
  const server = (state: string) => workbench.toolsTree.locator(`[role=treeitem][aria-label^="MCP server fixture, ${state}"]`);

  before(async () => {
    workbench = await Workbench.start({ workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'calculator' }, { name: 'fixture/echo' }] } });
    const { promises: fs } = await import('node:fs');
    const path = await import('node:path');
    const goodServer = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'mcp', 'goodServer.js');
    const mcpJson = { servers: { fixture: { command: process.execPath, args: [goodServer] } } };
    await fs.writeFile(path.join(workbench.workspace, '.vscode', 'mcp.json'), JSON.stringify(mcpJson, null, 2));
  });
  after(async () => {
    await workbench?.close();
  });

  it('shows the server beside the builtins, not started, without calling its waiting tool unknown', async () => {
    await workbench.openToolbelt();
    // The builtins' long Available list pushes the server out of the (virtual) tree: fold the chat away to make room.
    await workbench.toolsTree.locator('[role=treeitem]').first().waitFor({ timeout: 60_000 });
    await workbench.page.locator('.part.sidebar .pane-header', { hasText: /^Chat/ }).first().click();
    await server('not started').waitFor({ timeout: 60_000 });
    await workbench.toolRow('fixture/echo').waitFor({ state: 'detached' }); // folded in the server, not started
    assert.equal(await workbench.notification(/unknown tool "fixture\/echo"/).count(), 0, 'a waiting tool is not reported as unknown');
    assert.match((await server('not started').textContent()) ?? '', /fixture\s*not started/);
    await workbench.screenshot('tools-view-mcp-not-started');
  });

  it('asks with a modal when the server is expanded, then shows it running with its tools', async () => {
    await server('not started').click(); // a click expands a tree row
    const dialog = workbench.page.locator('.monaco-dialog-box');
    await dialog.waitFor({ timeout: 30_000 });
    assert.match((await dialog.textContent()) ?? '', /Start the MCP server "fixture" defined in \.vscode\/mcp\.json\?[\s\S]*Command: \S+ \S+goodServer\.js/);
    await workbench.screenshot('tools-view-mcp-approval');
    await dialog.locator('.monaco-button', { hasText: 'Start server' }).click();
    await server('running').waitFor({ timeout: 30_000 });
    await workbench.toolRow('fixture/echo').waitFor();
    assert.match((await workbench.toolRow('fixture/echo').textContent()) ?? '', /asks before each call · says read-only/);
    assert.equal(await workbench.checkbox('fixture/echo').getAttribute('aria-checked'), 'true');
    await workbench.screenshot('tools-view-mcp-running');
  });
});
