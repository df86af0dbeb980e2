import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ROOT, Workbench } from './workbench';

/**
 * "Protect Other Agents on This Workspace…" in a real workbench: the person picks Claude Code in
 * the multi-select, the files land in the workspace, and the Tools view's Agents section shows
 * Claude Code protected, its loss report and the decision `toolbelt hook` logged for it.
 */
describe('Protect Other Agents on This Workspace… and the Agents section (browser)', function () {
  this.timeout(300_000);
  let workbench: Workbench;
  let scratch: string;
  const savedPath = process.env.PATH;

  before(async () => {
    scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'toolbelt-agents-e2e-'));
    // `toolbelt` on the extension host's PATH (code-server passes the runner's PATH on), so the command does not stop to offer installing it.
    await fs.mkdir(path.join(scratch, 'bin'));
    await fs.writeFile(path.join(scratch, 'bin', 'toolbelt'), `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, 'dist', 'cli.js'))} "$@"\n`, { mode: 0o755 });
    process.env.PATH = `${path.join(scratch, 'bin')}:${savedPath}`;
    workbench = await Workbench.start({
      workspaceSettings: { 'toolbelt.runBash.deniedCommands': ['rm'] },
      env: { TOOLBELT_STATE_DIR: path.join(scratch, 'state') },
    });
  });
  after(async () => {
    process.env.PATH = savedPath;
    await workbench?.close();
    if (scratch) await fs.rm(scratch, { recursive: true, force: true });
  });

  it('picks Claude Code, writes its hook and sandbox, and the Agents section shows it protected with its decisions', async () => {
    await workbench.openToolbelt();
    await workbench.runCommand('Toolbelt: Protect Other Agents on This Workspace…');
    const row = workbench.page.locator('.quick-input-list .monaco-list-row', { hasText: 'Claude Code' }).first();
    // The extension host may not get the runner's PATH: then the command first says `toolbelt` is missing (a modal), and the person goes on.
    const anyway = workbench.page.locator('.monaco-dialog-box .monaco-button', { hasText: /^Protect Anyway$/ }).first();
    const first = await Promise.race([row.waitFor({ timeout: 30_000 }).then(() => 'pick'), anyway.waitFor({ timeout: 30_000 }).then(() => 'dialog')]);
    if (first === 'dialog') {
      await workbench.screenshot('protect-agents-not-on-path');
      await anyway.click();
      await row.waitFor({ timeout: 30_000 });
    }
    assert.match((await row.textContent()) ?? '', /not protected/);
    assert.match((await row.textContent()) ?? '', /its own sandbox: toolbelt\.runBash\.deniedCommands "rm"/);
    await row.click();
    await workbench.screenshot('protect-agents-pick');
    await workbench.page.locator('.quick-input-widget .monaco-button', { hasText: /^OK$/ }).first().click();
    await workbench.notification(/Claude Code is protected: 1 file written/).waitFor({ timeout: 30_000 });

    const settings = JSON.parse(await workbench.readWorkspaceFile('.claude/settings.json')) as { hooks: unknown; permissions: { deny: string[] } };
    assert.ok(JSON.stringify(settings.hooks).includes('toolbelt hook claude-code'));
    assert.ok(settings.permissions.deny.includes('Bash(rm:*)'));
    assert.ok(!JSON.stringify(settings).includes(workbench.workspace), 'no path of this machine');

    // Claude Code's own Bash call, through the hook as Claude Code runs it: denied and logged.
    const event = { session_id: 'e2e-session', cwd: workbench.workspace, hook_event_name: 'PreToolUse', permission_mode: 'bypassPermissions', tool_name: 'Bash', tool_input: { command: 'rm -rf src' } };
    const hook = spawnSync('/bin/sh', ['-c', 'toolbelt hook claude-code'], { input: JSON.stringify(event), encoding: 'utf8', env: { ...process.env, CLAUDE_PROJECT_DIR: workbench.workspace, TOOLBELT_STATE_DIR: path.join(scratch, 'state') } });
    assert.match(hook.stdout, /"permissionDecision":\s*"deny"/, hook.stderr);

    // The Tools view: Active and Available folded away, the Agents section open down to the decision.
    const tree = workbench.toolsTree;
    for (const group of ['Active', 'Available']) {
      const groupRow = tree.locator('[role=treeitem][aria-level="1"]', { hasText: new RegExp(`^\\s*${group}`) }).first();
      if ((await groupRow.getAttribute('aria-expanded')) === 'true') await groupRow.click();
    }
    const agents = tree.locator('[role=treeitem][aria-level="1"]', { hasText: /^\s*Agents/ }).first();
    await agents.waitFor({ timeout: 30_000 });
    await agents.filter({ hasText: /1 of 5 protected/ }).waitFor({ timeout: 30_000 });
    await agents.click();
    const claude = tree.locator('[role=treeitem][aria-level="2"]', { hasText: /^\s*Claude Code/ }).first();
    await claude.filter({ hasText: /protected · 1 call judged/ }).waitFor({ timeout: 30_000 });
    await claude.click();
    await tree.locator('[role=treeitem][aria-level="3"]', { hasText: /toolbelt\.runBash\.deniedCommands "rm"\s*by its permissions \+ the hook/ }).first().waitFor({ timeout: 30_000 });
    const decisions = tree.locator('[role=treeitem][aria-level="3"]', { hasText: /^\s*Recent decisions/ }).first();
    await decisions.click();
    await tree.locator('[role=treeitem][aria-level="4"]', { hasText: /deny Bash\s*rm -rf src/ }).first().waitFor({ timeout: 30_000 });
    await workbench.widenSidebar(640);
    await tree.locator('[role=treeitem][aria-level="4"]', { hasText: /deny Bash/ }).first().waitFor();
    await workbench.page.mouse.move(900, 200);
    const file = await workbench.screenshot('protect-agents-tools-view');
    console.log(`    screenshot: ${file}`);
  });
});
