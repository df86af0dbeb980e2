import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { DEFAULT_SENSITIVE_GLOBS } from '../../src/tools/sensitiveFiles';
import type { ToolbeltApi } from '../../src/vscode/api';
import { ModelServer } from '../support/modelServer';
import { activateToolbelt, setRegistry, waitFor } from './helpers';

const SENSITIVE = ['secrets/**', '*.token'];
const ALLOWED = ['echo'];
const DENIED = ['touch'];

async function setWorkspace(values: Record<string, unknown>): Promise<void> {
  const config = vscode.workspace.getConfiguration('toolbelt');
  for (const [key, value] of Object.entries(values)) await config.update(key, value, vscode.ConfigurationTarget.Workspace);
}

describe('Sensitive files and command rules from workspace settings (trusted)', () => {
  let api: ToolbeltApi;
  let model: ModelServer;
  const folder = () => vscode.workspace.workspaceFolders![0].uri.fsPath;

  before(async () => {
    api = await activateToolbelt();
    model = await ModelServer.start();
  });

  after(async () => {
    await setWorkspace({ 'tools.sensitiveFiles': undefined, 'runBash.allowedCommands': undefined, 'runBash.deniedCommands': undefined });
    await setWorkspace({ provider: undefined, baseUrl: undefined, model: undefined });
    await setRegistry(undefined);
    await model.close();
  });

  it('declares the three settings, restricted in untrusted workspaces', () => {
    const pkg = vscode.extensions.getExtension('toolbelt.toolbelt')!.packageJSON;
    const restricted: string[] = pkg.capabilities.untrustedWorkspaces.restrictedConfigurations;
    for (const key of ['toolbelt.tools.sensitiveFiles', 'toolbelt.runBash.allowedCommands', 'toolbelt.runBash.deniedCommands']) assert.ok(restricted.includes(key), key);
    const config = vscode.workspace.getConfiguration('toolbelt');
    assert.ok((config.inspect<string[]>('tools.sensitiveFiles')?.defaultValue ?? []).includes('.env'));
    assert.deepEqual(config.inspect('runBash.allowedCommands')?.defaultValue, []);
  });

  it('picks up workspace values live; the allow-list waits for the person', async () => {
    assert.equal(api.tools.policy().commandPolicy, undefined, 'no rules: run_bash asks as always');
    assert.ok(api.tools.policy().sensitiveGlobs.includes('.env'));
    await setWorkspace({ 'tools.sensitiveFiles': SENSITIVE, 'runBash.allowedCommands': ALLOWED, 'runBash.deniedCommands': DENIED });
    const policy = await waitFor(() => {
      const now = api.tools.policy();
      return now.commandPolicy?.denied.includes('touch') ? now : undefined;
    }, 'the workspace rules to apply');
    assert.deepEqual(policy.sensitiveGlobs, [...DEFAULT_SENSITIVE_GLOBS, ...SENSITIVE], 'the workspace adds to the built-in list');
    assert.deepEqual(policy.commandPolicy, { allowed: [], denied: DENIED });
    assert.deepEqual(policy.pendingWorkspaceCommands, ALLOWED);
  });

  it('a workspace list that leaves built-in entries out removes nothing, and the Problems view says so on the setting', async () => {
    await setWorkspace({ 'tools.sensitiveFiles': [] });
    const settings = vscode.Uri.file(path.join(folder(), '.vscode', 'settings.json'));
    const warning = await waitFor(
      () => vscode.languages.getDiagnostics(settings).find((d) => d.source === 'Toolbelt' && /toolbelt\.tools\.sensitiveFiles leaves out "\.env"/.test(d.message)),
      'a warning on toolbelt.tools.sensitiveFiles in the Problems view',
    );
    assert.equal(warning.severity, vscode.DiagnosticSeverity.Warning);
    const text = (await fs.readFile(settings.fsPath, 'utf8')).split('\n');
    assert.match(text[warning.range.start.line], /"toolbelt\.tools\.sensitiveFiles"/, 'placed on the setting');
    assert.ok(api.tools.policy().sensitiveGlobs.includes('.env'), '.env stays sensitive');
    await setWorkspace({ 'tools.sensitiveFiles': SENSITIVE });
    await waitFor(() => !vscode.languages.getDiagnostics(settings).some((d) => /leaves out/.test(d.message)), 'the warning to go once the list only adds');
  });

  it('a toolbelt.sandbox.* value the policy cannot use is a warning on its line too (one reading for every rule)', async () => {
    const settings = vscode.Uri.file(path.join(folder(), '.vscode', 'settings.json'));
    await setWorkspace({ 'sandbox.readOnlyPaths': ['ci/', 42] });
    const warning = await waitFor(
      () => vscode.languages.getDiagnostics(settings).find((d) => d.source === 'Toolbelt' && /toolbelt\.sandbox\.readOnlyPaths: entries that are not strings were ignored/.test(d.message)),
      'a warning on toolbelt.sandbox.readOnlyPaths in the Problems view',
    );
    const text = (await fs.readFile(settings.fsPath, 'utf8')).split('\n');
    assert.match(text[warning.range.start.line], /"toolbelt\.sandbox\.readOnlyPaths"/, 'placed on the setting');
    await setWorkspace({ 'sandbox.readOnlyPaths': undefined });
    await waitFor(() => !vscode.languages.getDiagnostics(settings).some((d) => /readOnlyPaths/.test(d.message)), 'the warning to go with the setting');
  });

  it('refuses a denied command in a chat turn without running it', async () => {
    await setWorkspace({ provider: 'openai', baseUrl: model.openaiBaseUrl, model: 'scripted-model', 'runBash.deniedCommands': DENIED });
    await vscode.commands.executeCommand('toolbelt.setApiKey', 'openai', 'sk-integration');
    await setRegistry([{ name: 'run_bash' }]);
    await waitFor(() => api.tools.list().length === 1, 'run_bash registered');
    assert.equal((await api.tools.enable('run_bash')).ok, true);
    const marker = path.join(folder(), 'h9-denied-marker');
    model.reset();
    model.enqueue({ toolCalls: [{ name: 'run_bash', arguments: { command: 'echo start && touch h9-denied-marker' } }] }, { text: 'Refused, as told.' });
    assert.equal(await api.chat.send('Make the marker.'), 'Refused, as told.');
    // The chat's earlier turns (other suites) are in the history too: this turn's result is the last.
    const results = (model.requests[1].body.messages as { role: string; content: string }[]).filter((m) => m.role === 'tool').map((m) => m.content);
    assert.match(results.at(-1) ?? '', /the command rules \(toolbelt\.runBash\) deny `touch h9-denied-marker`/);
    assert.equal(await fs.stat(marker).then(() => true, () => false), false, 'nothing ran');
  });
});
