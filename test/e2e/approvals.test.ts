import * as assert from 'node:assert/strict';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Frame } from 'playwright-core';
import type { ModelServer } from '../support/modelServer';
import { scriptedChat, chatPanel } from './scriptedWorkbench';
import type { Workbench } from './workbench';

const TASKS = '{\n  "version": "2.0.0",\n  "tasks": [{ "label": "build", "type": "npm", "script": "build" }]\n}\n';

/**
 * A workbench with the chat open on the scripted model (started here unless given), write_file
 * and run_bash registered, remove only available.
 */
function startWorkbench(theme: 'Default Dark Modern' | 'Default Light Modern', model?: ModelServer): Promise<{ model: ModelServer; workbench: Workbench; chat: Frame }> {
  return scriptedChat({
    model,
    theme,
    workspaceSettings: { 'toolbelt.tools.registry': [{ name: 'calculator' }, { name: 'read_file' }, { name: 'write_file' }, { name: 'run_bash' }] },
    sidebarWidth: 600,
    toolsExpanded: true,
  });
}

describe('Approvals that read well, and risk at a glance (browser)', function () {
  this.timeout(300_000);
  let model: ModelServer;
  let workbench: Workbench;
  let chat: Frame;
  const { input, ask, idle, card } = chatPanel(() => chat);

  const focusedClass = () => chat.evaluate<string>('document.activeElement ? String(document.activeElement.className) : ""');

  before(async () => {
    ({ model, workbench, chat } = await startWorkbench('Default Dark Modern'));
  });

  after(async () => {
    await workbench?.close();
    await model?.close();
  });

  it('shows delete and run with icons of their own, and which tools ask each time', async () => {
    await workbench.setToolsViewExpanded(true);
    await workbench.toolRow('run_bash').waitFor();
    assert.equal(await workbench.toolRow('run_bash').locator('.codicon-terminal').count(), 1, 'run_bash: terminal');
    assert.equal(await workbench.toolRow('remove').locator('.codicon-trash').count(), 1, 'remove (available): trash');
    assert.equal(await workbench.toolRow('write_file').locator('.codicon-edit').count(), 1, 'write_file: pencil');
    assert.equal(await workbench.toolRow('read_file').locator('.codicon-eye').count(), 1, 'read_file: eye');
    assert.equal(await workbench.toolRow('remove').locator('.codicon-edit').count(), 0, 'remove is no longer a pencil');
    assert.match((await workbench.toolRow('run_bash').textContent()) ?? '', /asks each time/);
    assert.match((await workbench.toolRow('remove').textContent()) ?? '', /asks each time/, 'an Available row says it too');
    assert.doesNotMatch((await workbench.toolRow('write_file').textContent()) ?? '', /asks each time/);
    await workbench.screenshot('approvals-tree-dark');
  });

  it('says once what run_bash can do when it is turned on', async () => {
    await workbench.checkbox('run_bash').click();
    await workbench.waitForChecked('run_bash', true);
    const note = workbench.notification(/run_bash is on\. The model can now run shell commands/);
    await note.waitFor({ timeout: 30_000 });
    assert.match((await note.textContent()) ?? '', /toolbelt\.runBash\.allowedCommands[\s\S]*toolbelt\.runBash\.deniedCommands/);
    await workbench.screenshot('approvals-run-bash-note');
    await note.locator('.codicon-notifications-clear, .codicon-close').first().click().catch(() => undefined);
    // Off and on again: the note was for once, per workspace. Each click waits for the extension's
    // summary: a click while the tree is still refreshing after the last one never reaches the
    // extension, and the checkbox alone shows its own flip before the extension has it.
    await workbench.waitForActiveSummary('4 of 4 enabled');
    await workbench.checkbox('run_bash').click();
    await workbench.waitForChecked('run_bash', false);
    await workbench.waitForActiveSummary('3 of 4 enabled');
    await workbench.checkbox('run_bash').click();
    await workbench.waitForChecked('run_bash', true);
    await workbench.waitForActiveSummary('4 of 4 enabled');
    assert.equal(await workbench.notification(/run_bash is on/).count(), 0, 'not shown a second time');
    // npm test installs bubblewrap: the row says how commands run here.
    await workbench.toolRow('run_bash').filter({ hasText: /runs commands · sandboxed, network off · asks each time/ }).waitFor({ timeout: 20_000 });
    await workbench.setToolsViewExpanded(false);
  });

  it('a protected write: the content as text, why it asks, what "for this chat" covers; Enter allows', async () => {
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: '.vscode/tasks.json', content: TASKS } }] }, { text: 'Wrote the task.' });
    await ask('Add a build task');
    const approval = card('write_file').locator('.approval');
    await approval.waitFor();
    assert.match(await focusedClass(), /\bapproval\b/, 'the card took the keyboard: the composer was empty');
    assert.equal(await approval.locator('.approval-proposed pre').textContent(), TASKS, 'the proposed content as text, not an escaped JSON string');
    assert.doesNotMatch((await approval.textContent()) ?? '', /\\n/, 'no escaped newlines anywhere in the question');
    assert.equal(await approval.locator('.approval-why').textContent(), 'It changes a protected path: .vscode/ holds workspace settings and tasks that change what tools and commands run.');
    assert.equal(await approval.locator('button.allow-for-chat').textContent(), 'Allow writes to ".vscode/tasks.json" for this chat');
    assert.match((await approval.locator('.approval-scope').textContent()) ?? '', /Covers write_file on exactly this path, whatever the content, in this chat only; other paths and other tools still ask\./);
    assert.equal(existsSync(path.join(workbench.workspace, '.vscode', 'tasks.json')), false, 'nothing written before the decision');
    await workbench.screenshot('approvals-protected-write-dark');

    await workbench.page.keyboard.press('Enter');
    await card('write_file').locator('.tool-meta', { hasText: /done/ }).waitFor();
    await idle();
    assert.equal(await fs.readFile(path.join(workbench.workspace, '.vscode', 'tasks.json'), 'utf8'), TASKS);
    assert.match((await card('write_file').locator('.tool-meta').textContent()) ?? '', /^done · \d+ ms · allowed by you$/);
    await card('write_file').locator('summary').click();
    assert.match((await card('write_file').locator('.approval-decision').textContent()) ?? '', /^Allowed by you at \d{1,2}:\d{2}:\d{2}/);
    assert.equal(await card('write_file').locator('.section', { hasText: /^content/ }).locator('pre').textContent(), TASKS, 'the arguments show the content as text too');
  });

  it('a command: shown as code; Escape denies and the turn goes on', async () => {
    model.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'touch escaped.txt' } }] }, { text: 'Fine, I did not run it.' });
    await ask('Create escaped.txt');
    const approval = card('run_bash').locator('.approval');
    await approval.waitFor();
    assert.match(await focusedClass(), /\bapproval\b/);
    assert.equal(await approval.locator('pre.approval-command code').textContent(), 'touch escaped.txt');
    assert.doesNotMatch((await approval.textContent()) ?? '', /`/, 'no raw backticks');
    assert.match((await approval.locator('.approval-scope').textContent()) ?? '', /this exact command text, in this chat only/);
    assert.match((await approval.textContent()) ?? '', /It runs sandboxed, network off: it can change files only in this workspace/, 'the person knows what the command could reach');
    assert.doesNotMatch((await approval.textContent()) ?? '', /anything your account can/);
    await workbench.screenshot('approvals-command-dark');

    await workbench.page.keyboard.press('Escape');
    await card('run_bash').locator('.tool-meta', { hasText: /denied/ }).waitFor();
    await idle();
    assert.equal(existsSync(path.join(workbench.workspace, 'escaped.txt')), false);
    const sent = model.requests.at(-1)!.body.messages as { role: string; content: string }[];
    assert.match(sent.at(-1)!.content, /The user declined/);
    assert.equal(await chat.locator('.message.assistant', { hasText: 'Fine, I did not run it.' }).count(), 1, 'Escape denied the call, it did not stop the turn');
    await card('run_bash').locator('summary').click();
    assert.match((await card('run_bash').locator('.approval-decision').textContent()) ?? '', /^Denied by you at /);
  });

  it('does not take the keyboard from someone writing a message', async () => {
    model.enqueue({ chunks: ['Checking first. '], chunkDelayMs: 400, toolCalls: [{ name: 'run_bash', arguments: { command: 'touch typed.txt' } }] }, { text: 'Created.' });
    await ask('Create typed.txt');
    await input().pressSequentially('next question');
    const approval = card('run_bash', 1).locator('.approval');
    await approval.waitFor();
    assert.match(await focusedClass(), /message-input/, 'the composer keeps the focus');
    assert.equal(await input().inputValue(), 'next question', 'and everything typed');
    await approval.locator('button', { hasText: /^Allow$/ }).click();
    await idle();
    assert.equal(existsSync(path.join(workbench.workspace, 'typed.txt')), true);
    await input().fill('');
  });

  it('looks right in the light theme too', async () => {
    await workbench.close();
    ({ workbench, chat } = await startWorkbench('Default Light Modern', model));
    await workbench.setToolsViewExpanded(true);
    await workbench.toolRow('remove').waitFor();
    await workbench.screenshot('approvals-tree-light');
    await workbench.setToolsViewExpanded(false);
    model.enqueue({ toolCalls: [{ name: 'write_file', arguments: { path: '.vscode/tasks.json', content: TASKS } }] }, { text: 'Left it.' });
    await ask('Add a build task');
    const approval = card('write_file').locator('.approval');
    await approval.waitFor();
    await workbench.screenshot('approvals-protected-write-light');
    await approval.locator('button', { hasText: 'Deny' }).click();
    await idle();
    assert.equal(existsSync(path.join(workbench.workspace, '.vscode', 'tasks.json')), false);
  });
});
