import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { activateToolbelt, setRegistry, waitFor } from './helpers';

const SETTINGS_WITH_PROBLEMS = `{
  // Tools for the chat
  "toolbelt.tools.registry": [
    { "name": "calculator" },
    { "name": "teleport" },
    { "name": "write_file", "type": "builtin" }
  ]
}
`;

describe('Registry problems on settings.json', function () {
  let api: ToolbeltApi;
  let settingsUri: vscode.Uri;
  let original: Uint8Array | undefined;

  before(async () => {
    api = await activateToolbelt();
    settingsUri = vscode.Uri.joinPath(vscode.workspace.workspaceFolders![0].uri, '.vscode', 'settings.json');
    original = await vscode.workspace.fs.readFile(settingsUri).then(undefined, () => undefined);
  });

  after(async () => {
    // Through the open document: writing the file under it would make the next settings write fail as "newer".
    if (original) await writeSettings(new TextDecoder().decode(original));
    await setRegistry(undefined);
    await waitFor(() => api.tools.list().length === 0 && toolbeltDiagnostics(settingsUri).length === 0, 'the registry and its squiggles gone');
  });

  async function writeSettings(text: string): Promise<vscode.TextDocument> {
    const document = await vscode.workspace.openTextDocument(settingsUri);
    if (document.getText() !== text) {
      const edit = new vscode.WorkspaceEdit();
      edit.replace(settingsUri, new vscode.Range(document.positionAt(0), document.positionAt(document.getText().length)), text);
      assert.ok(await vscode.workspace.applyEdit(edit));
    }
    // save() answers false when there is nothing to save, e.g. when auto-save (on by default in the browser) came first.
    if (document.isDirty) await document.save();
    await waitFor(() => !document.isDirty, 'settings.json saved');
    return document;
  }

  it('puts each problem on its entry, in plain words, in the Problems view', async () => {
    const document = await writeSettings(SETTINGS_WITH_PROBLEMS);
    const diagnostics = await waitFor(() => {
      const found = toolbeltDiagnostics(settingsUri);
      return found.length === 2 ? found : undefined;
    }, 'two Toolbelt diagnostics on settings.json');
    const byText = diagnostics.map((d) => ({ text: document.getText(d.range), severity: d.severity, message: d.message, line: d.range.start.line }));
    assert.deepEqual(byText.map((d) => [d.text, d.line, d.severity]), [
      ['"name": "teleport"', 4, vscode.DiagnosticSeverity.Warning],
      ['"name": "write_file"', 5, vscode.DiagnosticSeverity.Warning],
    ]);
    assert.match(byText[0].message, /^Entry 2 of the tool settings: unknown tool "teleport"/);
    assert.match(byText[1].message, /^"write_file" in the tool settings: "type" is deprecated and ignored/);
    for (const d of diagnostics) assert.equal(d.source, 'Toolbelt');
    assert.deepEqual(api.tools.list().map((t) => t.name), ['calculator', 'write_file'], 'the rest registered');
  });

  it('clears the squiggles once the problems are fixed', async () => {
    await writeSettings('{\n  "toolbelt.tools.registry": [\n    { "name": "calculator" }\n  ]\n}\n');
    await waitFor(() => toolbeltDiagnostics(settingsUri).length === 0, 'no Toolbelt diagnostics');
  });

  it('"+" (enableTool on an unregistered tool) adds a one-line entry to a one-line registry', async () => {
    const document = await writeSettings('{\n  "toolbelt.tools.registry": [\n    { "name": "calculator" },\n    { "name": "read_file" }\n  ]\n}\n');
    await waitFor(() => api.tools.list().length === 2, 'two tools');
    await vscode.commands.executeCommand('toolbelt.enableTool', 'mkdir');
    await waitFor(() => api.tools.list().some((t) => t.name === 'mkdir' && t.enabled), 'mkdir enabled');
    assert.equal(document.getText(), '{\n  "toolbelt.tools.registry": [\n    { "name": "calculator" },\n    { "name": "read_file" },\n    { "name": "mkdir" }\n  ]\n}\n');
  });
});

function toolbeltDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'Toolbelt');
}
