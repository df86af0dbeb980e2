import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { Verdict } from '../../src/tools/consent';
import { decideCall } from '../../src/tools/policyDecision';
import { ToolManager } from '../../src/tools/toolManager';
import { BUILTIN_NAMES } from '../../src/tools/manifest';
import type { ToolbeltApi } from '../../src/vscode/api';
import { TABLE_CALLS, TABLE_FILES, TABLE_LINKS, TABLE_OUTSIDE, TABLE_SETTINGS, TABLE_USER_SETTINGS, tableContext } from '../fixtures/policyTable';
import { activateToolbelt, setRegistry, waitFor } from './helpers';

interface Prepared {
  verdict: Verdict;
}

/**
 * The VS Code column of the same-decision table: each builtin call of the table gets the same
 * allow / ask / deny from the `toolbelt_*` tools of VS Code's chat as from the core's registry
 * over the same workspace and rules (test/unit/cliSameDecision.test.ts compares the core with
 * `toolbelt mcp` and `toolbelt policy explain`).
 */
describe('The same decision in VS Code\'s chat as in the core (the policy table)', () => {
  let api: ToolbeltApi;
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const builtinCalls = TABLE_CALLS.filter(([tool]) => (BUILTIN_NAMES as readonly string[]).includes(tool));
  const config = () => vscode.workspace.getConfiguration('toolbelt');

  let existing: Set<string>;
  let readme: string | undefined;

  before(async function () {
    this.timeout(120_000);
    api = await activateToolbelt();
    existing = new Set(await fs.readdir(root()));
    readme = await fs.readFile(path.join(root(), 'README.md'), 'utf8').catch(() => undefined);
    assert.ok(!existing.has('src') || !(await fs.readdir(path.join(root(), 'src'))).includes('a.ts'), 'the table writes src/a.ts into the fixture');
    for (const [file, content] of Object.entries(TABLE_FILES)) {
      await fs.mkdir(path.dirname(path.join(root(), file)), { recursive: true });
      await fs.writeFile(path.join(root(), file), content);
    }
    for (const [file, content] of Object.entries(TABLE_OUTSIDE)) {
      await fs.mkdir(path.dirname(path.join(root(), '..', file)), { recursive: true });
      await fs.writeFile(path.join(root(), '..', file), content);
    }
    for (const [link, target] of Object.entries(TABLE_LINKS)) await fs.symlink(target, path.join(root(), link));
    await config().update('runBash.allowedCommands', TABLE_USER_SETTINGS['toolbelt.runBash.allowedCommands'], vscode.ConfigurationTarget.Global);
    await config().update('runBash.deniedCommands', TABLE_SETTINGS['toolbelt.runBash.deniedCommands'], vscode.ConfigurationTarget.Workspace);
    await setRegistry(TABLE_SETTINGS['toolbelt.tools.registry']);
    await waitFor(() => api.tools.list().some((t) => t.name === 'run_bash'), 'the table\'s tools registered');
    // The table judges the rules, not the switches: the tools that start off are switched on.
    for (const name of ['remove', 'run_bash']) assert.deepEqual(await api.tools.enable(name), { ok: true });
    await waitFor(async () => (await vscode.commands.executeCommand<Record<string, boolean>>('toolbelt.lmTools.offered'))?.run_bash === true, 'run_bash offered');
    await waitFor(() => api.tools.policy().commandPolicy?.allowed.includes('git status'), 'the person\'s allowed commands applied');
  });

  after(async () => {
    for (const name of ['remove', 'run_bash']) await api.tools.disable(name);
    await config().update('runBash.allowedCommands', undefined, vscode.ConfigurationTarget.Global);
    await config().update('runBash.deniedCommands', undefined, vscode.ConfigurationTarget.Workspace);
    await setRegistry(undefined);
    // What the table added goes; what the fixture had stays.
    for (const entry of await fs.readdir(root())) if (!existing.has(entry)) await fs.rm(path.join(root(), entry), { recursive: true, force: true });
    await fs.rm(path.join(root(), 'src', 'a.ts'), { force: true });
    if (readme !== undefined) await fs.writeFile(path.join(root(), 'README.md'), readme);
    for (const file of Object.keys(TABLE_OUTSIDE)) await fs.rm(path.join(root(), '..', file.split('/')[0]), { recursive: true, force: true });
  });

  it(`gives ${builtinCalls.length} builtin calls the same allow / ask / deny as the core's registry`, async function () {
    this.timeout(180_000);
    assert.ok(builtinCalls.length >= 100, `${builtinCalls.length} calls`);
    const core = coreRegistry(root());
    const expected: Verdict[] = [];
    const inVsCode: Verdict[] = [];
    for (const [tool, args] of builtinCalls) {
      expected.push((await decideCall(core.registry, tool, args)).verdict);
      inVsCode.push((await vscode.commands.executeCommand<Prepared>('toolbelt.lmTools.prepareInvocation', tool, args)).verdict);
    }
    const differences = builtinCalls.flatMap(([tool, args], i) => (expected[i] === inVsCode[i] ? [] : [`${tool} ${JSON.stringify(args)}: core ${expected[i]}, VS Code ${inVsCode[i]}`]));
    assert.deepEqual(differences, []);
    for (const verdict of ['allow', 'ask', 'deny'] as const) assert.ok(expected.filter((v) => v === verdict).length >= 10, `${verdict} is well represented`);
  });
});

/** The core's registry over the same folder and rules, every registered tool switched on. */
function coreRegistry(root: string): ToolManager {
  const context = tableContext(root);
  const manager = new ToolManager({ context, trusted: true, toggles: { get: () => true, set: () => undefined } });
  manager.applyConfig(TABLE_SETTINGS['toolbelt.tools.registry']);
  return manager;
}
