import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { activateToolbelt, setRegistry, waitFor } from './helpers';

/** toolbelt.policy.tests in settings.json: an example the policy decides otherwise is an error on that example. */
describe('toolbelt.policy.tests as diagnostics in settings.json', () => {
  let api: ToolbeltApi;
  const config = () => vscode.workspace.getConfiguration('toolbelt');
  const settingsUri = () => vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, '.vscode', 'settings.json');
  const policyDiagnostics = () => vscode.languages.getDiagnostics(settingsUri()).filter((d) => d.source === 'Toolbelt policy test');

  before(async () => {
    api = await activateToolbelt();
    await config().update('runBash.deniedCommands', ['rm'], vscode.ConfigurationTarget.Workspace);
    await setRegistry([{ name: 'run_bash' }, { name: 'read_file' }]);
    await waitFor(() => api.tools.list().length === 2, 'two tools');
  });

  after(async () => {
    await config().update('policy.tests', undefined, vscode.ConfigurationTarget.Workspace);
    await config().update('runBash.deniedCommands', undefined, vscode.ConfigurationTarget.Workspace);
    await setRegistry(undefined);
  });

  it('marks the example whose verdict the policy does not give, and clears it once it matches', async () => {
    await config().update(
      'policy.tests',
      [
        { tool: 'run_bash', args: { command: 'rm -rf build' }, expect: 'deny' },
        { tool: 'read_file', args: { path: 'README.md' }, expect: 'allow' },
        { tool: 'run_bash', args: { command: 'rm -rf build' }, expect: 'allow' },
      ],
      vscode.ConfigurationTarget.Workspace,
    );
    await vscode.workspace.openTextDocument(settingsUri());
    const [only] = await waitFor(() => {
      const found = policyDiagnostics();
      return found.length === 1 ? found : undefined;
    }, 'one failing example marked', 20_000);
    assert.match(only.message, /toolbelt\.policy\.tests\[2\]: run_bash \{"command":"rm -rf build"\} expected allow, got deny/);
    assert.equal(only.severity, vscode.DiagnosticSeverity.Error);
    const document = await vscode.workspace.openTextDocument(settingsUri());
    assert.match(document.getText(only.range), /"expect": "allow"/, 'the range is the failing example itself');

    await config().update('policy.tests', [{ tool: 'run_bash', args: { command: 'rm -rf build' }, expect: 'deny' }], vscode.ConfigurationTarget.Workspace);
    await waitFor(() => policyDiagnostics().length === 0, 'the marks cleared', 20_000);
  });

  it("judges another agent's own tool as its hook does, never as a Toolbelt tool that is not active", async () => {
    await config().update(
      'policy.tests',
      [
        { tool: 'run_in_terminal', args: { command: 'rm -rf build', explanation: 'x', goal: 'x', isBackground: false }, expect: 'deny' },
        { tool: 'Read', args: { file_path: 'README.md' }, expect: 'allow' },
        { tool: 'Read', args: { file_path: '.env' }, expect: 'allow' },
      ],
      vscode.ConfigurationTarget.Workspace,
    );
    await vscode.workspace.openTextDocument(settingsUri());
    const [only] = await waitFor(() => {
      const found = policyDiagnostics();
      return found.length === 1 && /tests\[2\]/.test(found[0].message) ? found : undefined;
    }, 'only the wrong expectation marked', 20_000);
    assert.match(only.message, /toolbelt\.policy\.tests\[2\]: Read \{"file_path":"\.env"\} expected allow, got ask/);
  });
});
