import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { activateToolbelt, EXTENSION_ID, names, setRegistry, waitFor, workspaceRegistry } from './helpers';

const CONTRACT_COMMANDS = [
  'toolbelt.openChat', 'toolbelt.newChat', 'toolbelt.enableTool', 'toolbelt.disableTool',
  'toolbelt.tools.list', 'toolbelt.tools.available', 'toolbelt.setApiKey',
];

describe('Toolbelt in a real VS Code extension host', function () {
  let api: ToolbeltApi;

  before(async () => {
    api = await activateToolbelt();
  });

  afterEach(async () => {
    await setRegistry(undefined);
    await waitFor(() => api.tools.list().length === 0, 'the registry to empty');
  });

  describe('activation and contributions', () => {
    it('activates and returns the API', () => {
      const extension = vscode.extensions.getExtension(EXTENSION_ID)!;
      assert.equal(extension.isActive, true);
      assert.equal(typeof api.tools.available, 'function');
      assert.equal(typeof api.tools.list, 'function');
      assert.equal(typeof api.tools.enable, 'function');
      assert.equal(typeof api.tools.disable, 'function');
      assert.equal(typeof api.chat.send, 'function');
      assert.ok(api.activationMs >= 0);
    });

    it('registers every contract command', async () => {
      const commands = await vscode.commands.getCommands(true);
      for (const command of CONTRACT_COMMANDS) assert.ok(commands.includes(command), command);
    });

    it('contributes the settings with their defaults', () => {
      const config = vscode.workspace.getConfiguration('toolbelt');
      assert.deepEqual(config.inspect('tools.registry')?.defaultValue, []);
      assert.equal(config.inspect('provider')?.defaultValue, 'openai');
      assert.equal(config.inspect('sessionContextFile')?.defaultValue, '.toolbelt/session-context.md');
      for (const key of ['model', 'baseUrl', 'systemPrompt']) assert.notEqual(config.inspect(key), undefined, key);
    });

    it('declares its views, container and limited trust support in the manifest VS Code loaded', () => {
      const pkg = vscode.extensions.getExtension(EXTENSION_ID)!.packageJSON;
      assert.deepEqual(pkg.contributes.viewsContainers.activitybar.map((c: { id: string }) => c.id), ['toolbelt']);
      assert.deepEqual(pkg.contributes.views.toolbelt.map((v: { id: string }) => v.id).sort(), ['toolbelt.chat', 'toolbelt.tools']);
      assert.equal(pkg.capabilities.untrustedWorkspaces.supported, 'limited');
      assert.ok(!pkg.activationEvents.includes('*'));
    });

    it('runs with the workspace trusted in this run', () => {
      assert.equal(vscode.workspace.isTrusted, true);
    });
  });

  describe('with no tools configured', () => {
    it('has an empty active list, every builtin available, and nothing thrown', async () => {
      assert.deepEqual(api.tools.list(), []);
      assert.deepEqual(await vscode.commands.executeCommand('toolbelt.tools.list'), []);
      const available = await vscode.commands.executeCommand<{ tools: { name: string; type: string }[]; count: number }>('toolbelt.tools.available');
      // Builtins first; VS Code's own tools (the extensions source) follow them.
      assert.deepEqual(available.tools.slice(0, 13).map((t) => t.type), Array(13).fill('builtin'));
      assert.equal(available.tools.filter((t) => t.type === 'builtin').length, 13);
      assert.equal(available.count, available.tools.length);
      assert.deepEqual(api.tools.problems(), { warnings: [], errors: [] });
    });

    it('shows every tool under Available and an add-read-only action under Active', () => {
      const rows = api.views.toolsTree();
      assert.deepEqual(rows.filter((r) => r.depth === 0).map((r) => r.label).slice(0, 2), ['Active', 'Available']);
      const active = rows.find((r) => r.id === 'action:toolbelt.tools.addReadOnly');
      assert.equal(active?.command, 'toolbelt.tools.addReadOnly');
      // The builtins' Available rows; other sources' rows are named available:<source>:<tool>.
      assert.equal(rows.filter((r) => /^available:[^:]+$/.test(r.id)).length, 13);
      assert.ok(rows.some((r) => r.id.startsWith('available:extensions:')), 'VS Code\'s own tools are listed under Other extensions');
    });
  });

  describe('live settings', () => {
    it('registers a name-only entry from the manifest without a reload', async () => {
      await setRegistry([{ name: 'calculator' }, { name: 'read_file' }]);
      const list = await waitFor(() => (api.tools.list().length === 2 ? api.tools.list() : undefined), 'two tools');
      assert.deepEqual(names(list), ['calculator', 'read_file']);
      assert.ok(list.every((t) => t.enabled && t.type === 'builtin'));
      assert.equal(list[1].parameters.required?.[0], 'path');
    });

    it('shows what each enabled tool schema costs in tokens, and the total a request carries', async () => {
      await setRegistry([{ name: 'calculator' }, { name: 'read_file' }]);
      const rows = await waitFor(() => {
        const all = api.views.toolsTree();
        return all.some((r) => r.id === 'active:read_file') ? all : undefined;
      }, 'both tools listed');
      const cost = (id: string) => {
        const match = /~(\d+) tokens/.exec(rows.find((r) => r.id === id)?.description ?? '');
        return match ? Number(match[1]) : NaN;
      };
      const calculator = cost('active:calculator');
      const readFile = cost('active:read_file');
      assert.ok(calculator > 20 && readFile > calculator, `calculator ~${calculator}, read_file ~${readFile}`);
      assert.match(rows.find((r) => r.id === 'group:active')?.description ?? '', new RegExp(`^2 of 2 enabled · ~${calculator + readFile} tokens$`));
    });

    it('applies a description override', async () => {
      await setRegistry([{ name: 'calculator', description: 'Does sums for the team' }]);
      const tool = await waitFor(() => api.tools.list().find((t) => t.description === 'Does sums for the team'), 'the override');
      assert.equal(tool.descriptionOverridden, true);
      const row = api.views.toolsTree().find((r) => r.id === 'active:calculator');
      assert.match(row?.description ?? '', /Does sums for the team/);
    });

    it('warns about and skips an unknown name, registering the rest', async () => {
      await setRegistry([{ name: 'teleport' }, { name: 'generate_uuid' }]);
      await waitFor(() => api.tools.list().length === 1, 'one tool');
      assert.deepEqual(names(api.tools.list()), ['generate_uuid']);
      assert.match(api.tools.problems().warnings.join('\n'), /unknown tool "teleport"/);
    });

    it('rejects a duplicate and keeps the first', async () => {
      await setRegistry([{ name: 'calculator', description: 'first' }, { name: 'calculator', description: 'second' }]);
      await waitFor(() => api.tools.problems().errors.length === 1, 'the duplicate error');
      assert.deepEqual(api.tools.list().map((t) => t.description), ['first']);
      assert.match(api.tools.problems().errors[0], /already registered/);
    });

    it('warns about deprecated extra fields and still registers from the manifest', async () => {
      await setRegistry([{ name: 'read_file', type: 'function', parameters: { type: 'object' }, builtin_handler: 'x' }]);
      await waitFor(() => api.tools.list().length === 1, 'read_file');
      assert.match(api.tools.problems().warnings[0], /"type", "parameters", "builtin_handler" are deprecated/);
      assert.deepEqual(Object.keys(api.tools.list()[0].parameters.properties), ['path', 'encoding', 'offset', 'limit']);
    });

    it('survives a registry that is not an array', async () => {
      await setRegistry({ name: 'calculator' });
      await waitFor(() => api.tools.problems().errors.length === 1, 'the error');
      assert.deepEqual(api.tools.list(), []);
    });

    it('registers remove and run_bash disabled', async () => {
      await setRegistry([{ name: 'remove' }, { name: 'run_bash' }, { name: 'write_file' }]);
      await waitFor(() => api.tools.list().length === 3, 'three tools');
      assert.deepEqual(api.tools.list().map((t) => [t.name, t.enabled]), [['remove', false], ['run_bash', false], ['write_file', true]]);
    });
  });

  describe('commands', () => {
    it('enableTool on an available tool adds {name} to the workspace settings and enables it', async () => {
      await setRegistry([{ name: 'calculator' }]);
      await waitFor(() => api.tools.list().length === 1, 'calculator');
      const result = await vscode.commands.executeCommand('toolbelt.enableTool', 'search_files');
      assert.deepEqual(result, { ok: true });
      assert.deepEqual(workspaceRegistry(), [{ name: 'calculator' }, { name: 'search_files' }]);
      assert.deepEqual(api.tools.list().map((t) => [t.name, t.enabled]), [['calculator', true], ['search_files', true]]);
      const settingsFile = path.join(vscode.workspace.workspaceFolders![0].uri.fsPath, '.vscode', 'settings.json');
      assert.match(await fs.readFile(settingsFile, 'utf8'), /"name": "search_files"/);
    });

    it('enable/disable take a tree item as well as a name', async () => {
      await setRegistry([{ name: 'run_bash' }, { name: 'calculator' }]);
      await waitFor(() => api.tools.list().length === 2, 'two tools');
      const calculatorNode = { kind: 'tool', group: 'active', tool: api.tools.list()[1] };
      assert.deepEqual(await vscode.commands.executeCommand('toolbelt.disableTool', calculatorNode), { ok: true });
      assert.deepEqual(await vscode.commands.executeCommand('toolbelt.enableTool', 'run_bash'), { ok: true });
      assert.deepEqual(api.tools.list().map((t) => [t.name, t.enabled]), [['run_bash', true], ['calculator', false]]);
      const rows = api.views.toolsTree();
      assert.equal(rows.find((r) => r.id === 'active:calculator')?.checked, false);
      assert.equal(rows.find((r) => r.id === 'active:run_bash')?.checked, true);
      assert.equal(rows.find((r) => r.id === 'active:calculator')?.contextValue, 'toolbelt.tool.disabled');
    });

    it('refuses an unknown tool with a clear error and changes nothing', async () => {
      const result = await api.tools.enable('teleport');
      assert.equal(result.ok, false);
      assert.match((result as { error: string }).error, /not a Toolbelt tool/);
      assert.equal(workspaceRegistry(), undefined);
    });

    it('keeps a toggle through a settings change (state lives in workspace state, not settings.json)', async () => {
      await setRegistry([{ name: 'calculator' }]);
      await waitFor(() => api.tools.list().length === 1, 'calculator');
      await api.tools.disable('calculator');
      await setRegistry([{ name: 'generate_uuid' }, { name: 'calculator' }]);
      await waitFor(() => api.tools.list().length === 2, 'two tools');
      assert.deepEqual(api.tools.list().map((t) => [t.name, t.enabled]), [['generate_uuid', true], ['calculator', false]]);
      assert.deepEqual(workspaceRegistry(), [{ name: 'generate_uuid' }, { name: 'calculator' }], 'no enabled flag in settings.json');
      await api.tools.enable('calculator');
    });

    it('adds the read-only tools in one go', async () => {
      await setRegistry([{ name: 'calculator' }]);
      await waitFor(() => api.tools.list().length === 1, 'calculator');
      const added = await vscode.commands.executeCommand<string[]>('toolbelt.tools.addReadOnly');
      assert.deepEqual(added, ['get_current_datetime', 'generate_uuid', 'read_file', 'list_dir', 'search_text', 'search_files']);
      assert.equal(api.tools.list().length, 7);
      assert.ok(api.tools.list().every((t) => t.risk === 'read' && t.enabled));
    });

    it('removes a tool from the workspace settings and edits its description', async () => {
      await setRegistry([{ name: 'calculator' }, { name: 'read_file', description: 'old' }]);
      await waitFor(() => api.tools.list().length === 2, 'two tools');
      await vscode.commands.executeCommand('toolbelt.tools.removeFromWorkspace', 'calculator');
      assert.deepEqual(workspaceRegistry(), [{ name: 'read_file', description: 'old' }]);
      assert.deepEqual(names(api.tools.list()), ['read_file']);
      assert.ok(api.views.toolsTree().some((r) => r.id === 'available:calculator'));
    });

    it('reveals a tool entry in settings.json', async () => {
      await setRegistry([{ name: 'calculator' }, { name: 'list_dir' }]);
      await waitFor(() => api.tools.list().length === 2, 'two tools');
      await vscode.commands.executeCommand('toolbelt.tools.revealInSettings', 'list_dir');
      const editor = vscode.window.activeTextEditor;
      assert.ok(editor);
      assert.match(editor.document.uri.fsPath, /\.vscode[\\/]settings\.json$/);
      assert.equal(editor.document.getText(editor.selection), '"name": "list_dir"');
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    });
  });
});
