import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { BUILTIN_MANIFEST } from '../../../src/tools/manifest';
import { activateToolbelt, setRegistry, waitFor, workspaceRegistry } from '../helpers';

const REGISTRY = [{ name: 'calculator' }, { name: 'read_file' }, { name: 'write_file' }, { name: 'run_bash' }];

async function offered(): Promise<Record<string, boolean>> {
  // The command exists once the (deferred) registration ran.
  return (await vscode.commands.executeCommand<Record<string, boolean>>('toolbelt.lmTools.offered').then(undefined, () => undefined)) ?? {};
}

async function invoke(tool: string, input: object): Promise<string> {
  const result = await vscode.lm.invokeTool(`toolbelt_${tool}`, { input, toolInvocationToken: undefined });
  return result.content.map((part) => (part instanceof vscode.LanguageModelTextPart ? part.value : '')).join('');
}

describe('Toolbelt\'s tools in VS Code\'s own chat, in restricted mode', () => {
  let previous: unknown;

  before(async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await activateToolbelt();
    previous = workspaceRegistry();
    await setRegistry(REGISTRY);
    await waitFor(() => api.tools.list().length === REGISTRY.length, 'four registered tools');
  });

  after(async () => {
    await setRegistry(previous);
  });

  it('offers the read tools and none of the write or exec tools, even when registered', async () => {
    const values = await waitFor(async () => {
      const now = await offered();
      return now.calculator === true && now.read_file === true ? now : undefined;
    }, 'read tools offered');
    for (const tool of BUILTIN_MANIFEST.filter((t) => t.risk !== 'read')) {
      assert.equal(values[tool.name], false, `${tool.name} (${tool.risk}) is not offered`);
    }
    assert.equal(values.write_file, false);
    assert.equal(values.run_bash, false);
  });

  it('does not run toolbelt_write_file when invoked anyway, and says the workspace is not trusted', async () => {
    const target = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, 'restricted-lm-write.txt');
    assert.equal(existsSync(target), false);
    const text = await invoke('write_file', { path: 'restricted-lm-write.txt', content: 'written in restricted mode' });
    assert.equal(existsSync(target), false, 'no file was written');
    assert.match(text, /did not run and nothing changed/);
    assert.match(text, /not trusted \(restricted mode\)/);
    assert.match(text, /Manage Workspace Trust/);
  });

  it('still runs a read tool: toolbelt_calculator answers', async () => {
    assert.equal(await invoke('calculator', { expression: '6*7' }), '42');
  });
});
