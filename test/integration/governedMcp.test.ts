import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import type { GovernedDefinition } from '../../src/vscode/sources/governedProvider';
import { activateToolbelt, setRegistry, waitFor } from './helpers';
import { answerApprovals, removeMcpJson, restoreApprovals, writeMcpJson } from './mcpFixture';

const SERVER = 'governed';
const TAG = `toolbelt-governed-${process.pid}-${Date.now()}`;

/** One governed path: a server VS Code would start too moves to Toolbelt's own file, and VS Code's chat reaches it through `toolbelt mcp`. */
describe('MCP servers governed by Toolbelt alone', () => {
  let api: ToolbeltApi;
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const row = () => api.views.toolsTree().find((r) => r.id === `source:${SERVER}`);

  before(async () => {
    api = await activateToolbelt();
    api.tools.list();
    await waitFor(async () => (await vscode.commands.getCommands(true)).includes('toolbelt.mcp.testing.approvals'), 'the tool sources registered');
    await answerApprovals(true);
    await writeMcpJson(SERVER, TAG);
    await setRegistry([{ name: 'calculator' }, { name: `${SERVER}/echo` }]);
  });

  after(async () => {
    await vscode.commands.executeCommand('toolbelt.mcp.stop', SERVER).then(undefined, () => undefined);
    await removeMcpJson();
    await fs.rm(path.join(root(), '.vscode', 'toolbelt.mcp.json'), { force: true });
    await restoreApprovals();
    await setRegistry(undefined);
  });

  it('says a server of .vscode/mcp.json is run by VS Code too, and moves it to Toolbelt\'s own file on request', async () => {
    await waitFor(() => row()?.contextValue === 'toolbelt.mcpServer.notStarted.shared', 'the shared server in the tree');
    assert.match(row()?.description ?? '', /also run by VS Code/);
    assert.equal(await vscode.commands.executeCommand('toolbelt.mcp.governServer', SERVER), true);
    const mcpJson = await fs.readFile(path.join(root(), '.vscode', 'mcp.json'), 'utf8');
    assert.doesNotMatch(mcpJson, new RegExp(`"${SERVER}"`), 'VS Code no longer sees it');
    assert.match(await fs.readFile(path.join(root(), '.vscode', 'toolbelt.mcp.json'), 'utf8'), new RegExp(`"${SERVER}"[\\s\\S]*--tag=${TAG}`));
    await waitFor(() => row()?.contextValue === 'toolbelt.mcpServer.notStarted' && /governed by Toolbelt/.test(row()?.description ?? ''), 'the governed server in the tree');
  });

  it('gives VS Code\'s chat the approved server through toolbelt mcp: its tools only, through the policy', async () => {
    const before = await vscode.commands.executeCommand<GovernedDefinition[]>('toolbelt.mcp.governedDefinitions');
    assert.deepEqual(before, [], 'nothing before the person approved the server');
    await vscode.commands.executeCommand('toolbelt.mcp.start', SERVER);
    await waitFor(() => api.tools.list().find((t) => t.name === `${SERVER}/echo`)?.state === 'ready', 'the server approved and running');
    const [definition] = await waitFor(async () => {
      const found = await vscode.commands.executeCommand<GovernedDefinition[]>('toolbelt.mcp.governedDefinitions');
      return found.length === 1 ? found : undefined;
    }, 'a governed definition');
    assert.ok(definition.args.includes('--no-builtins'));
    assert.deepEqual(definition.args.slice(definition.args.indexOf('--approve-server'), definition.args.indexOf('--approve-server') + 2), ['--approve-server', SERVER]);

    const client = new Client({ name: 'vscode-chat-as-a-client', version: '1' });
    await client.connect(new StdioClientTransport({ command: definition.command, args: definition.args, env: { ...process.env, ...definition.env } as Record<string, string>, stderr: 'ignore' }));
    try {
      const { tools } = await client.listTools();
      assert.deepEqual(tools.map((tool) => tool.name), [`${SERVER}_echo`], 'the server\'s registered tool, and no builtin');
      const result = await client.callTool({ name: `${SERVER}_echo`, arguments: { text: 'hi' } });
      assert.equal(result.isError, true, 'a client that cannot ask is refused: the tool asks before each call');
      assert.match(JSON.stringify(result.content), /asks before each call|nobody can be asked|cannot ask/);
    } finally {
      await client.close();
    }
  });
});
