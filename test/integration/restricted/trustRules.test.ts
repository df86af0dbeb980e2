import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { activateToolbelt } from '../helpers';

const KEYS = ['tools.sensitiveFiles', 'runBash.allowedCommands', 'runBash.deniedCommands'] as const;

describe('Sensitive files and command rules in an untrusted workspace', () => {
  after(async () => {
    const config = vscode.workspace.getConfiguration('toolbelt');
    for (const key of KEYS) await config.update(key, undefined, vscode.ConfigurationTarget.Workspace);
  });

  it('ignores the workspace\'s values of all three settings', async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await activateToolbelt();
    const config = vscode.workspace.getConfiguration('toolbelt');
    await config.update('tools.sensitiveFiles', [], vscode.ConfigurationTarget.Workspace);
    await config.update('runBash.allowedCommands', ['rm -rf', '/.*/'], vscode.ConfigurationTarget.Workspace);
    await config.update('runBash.deniedCommands', ['ls'], vscode.ConfigurationTarget.Workspace);
    const file = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'settings.json');
    const written = JSON.parse(await fs.readFile(file, 'utf8')) as Record<string, unknown>;
    assert.deepEqual(written['toolbelt.runBash.allowedCommands'], ['rm -rf', '/.*/'], 'the workspace value is in settings.json');
    assert.deepEqual(written['toolbelt.tools.sensitiveFiles'], []);
    const fresh = vscode.workspace.getConfiguration('toolbelt');
    // VS Code itself leaves restricted workspace values out...
    assert.deepEqual(fresh.get('runBash.allowedCommands'), []);
    assert.ok((fresh.get<string[]>('tools.sensitiveFiles') ?? []).includes('.env'));
    // ...and so do the tools.
    const policy = api.tools.policy();
    assert.ok(policy.sensitiveGlobs.includes('.env'));
    assert.ok(policy.sensitiveGlobs.includes('id_rsa*'));
    assert.equal(policy.commandPolicy, undefined);
    assert.equal(policy.pendingWorkspaceCommands, undefined);
  });
});
