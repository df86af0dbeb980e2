import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parse } from 'jsonc-parser';
import { activateToolbelt } from './helpers';

interface McpEntry {
  command: string;
  args: string[];
}

/** "Use This Workspace's Tools in Another Agent…": the files it writes start `toolbelt` from PATH, with no path of this machine (they are checked in). */
describe("Toolbelt: Use This Workspace's Tools in Another Agent…", () => {
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const written = ['.mcp.json', '.cursor', '.gemini'];

  before(async () => {
    await activateToolbelt();
  });

  after(async () => {
    for (const name of written) await fs.rm(path.join(root(), name), { recursive: true, force: true });
  });

  it("writes Claude Code's .mcp.json: toolbelt mcp from PATH for the folder Claude Code runs in, keeping what was there", async () => {
    await fs.writeFile(path.join(root(), '.mcp.json'), '{\n  // the team\'s server\n  "mcpServers": { "other": { "command": "other-server" } }\n}\n');
    const result = await vscode.commands.executeCommand<{ written: string }>('toolbelt.useInAnotherAgent', 'claude-code', root());
    assert.equal(result.written, path.join(root(), '.mcp.json'));
    const text = await fs.readFile(result.written, 'utf8');
    assert.match(text, /\/\/ the team's server/, 'comments are kept');
    const config = parse(text) as { mcpServers: Record<string, McpEntry> };
    assert.deepEqual(config.mcpServers.other, { command: 'other-server' });
    assert.deepEqual(config.mcpServers.toolbelt, { type: 'stdio', command: 'toolbelt', args: ['mcp'] });
    assert.ok(!text.includes(root()) && !text.includes('cli.js'), text);
  });

  it('writes Cursor\'s and Gemini CLI\'s files, and only shows Codex\'s per-user snippet', async () => {
    for (const [agent, file] of [['cursor', '.cursor/mcp.json'], ['gemini-cli', '.gemini/settings.json']]) {
      const result = await vscode.commands.executeCommand<{ written: string }>('toolbelt.useInAnotherAgent', agent, root());
      assert.equal(result.written, path.join(root(), file));
      const text = await fs.readFile(result.written, 'utf8');
      const config = parse(text) as { mcpServers: Record<string, McpEntry> };
      assert.equal(config.mcpServers.toolbelt.command, 'toolbelt');
      assert.deepEqual(config.mcpServers.toolbelt.args, agent === 'cursor' ? ['mcp', '--workspace', '${workspaceFolder}'] : ['mcp']);
      assert.ok(!text.includes(root()), text);
    }
    const codex = await vscode.commands.executeCommand<{ written: undefined }>('toolbelt.useInAnotherAgent', 'codex', root());
    assert.equal(codex.written, undefined);
    const shown = vscode.window.activeTextEditor?.document.getText() ?? '';
    assert.match(shown, /\[mcp_servers\.toolbelt\]\ncommand = "toolbelt"\nargs = \["mcp"/);
    assert.equal(await vscode.env.clipboard.readText(), shown.slice(shown.indexOf('[mcp_servers')));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
