import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, promises as fs } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parse } from 'jsonc-parser';
import { activateToolbelt } from './helpers';

interface McpEntry {
  command: string;
  args: string[];
}

/** "Use This Workspace's Tools in Another Agent…": the files it writes start the CLI shipped in the extension. */
describe("Toolbelt: Use This Workspace's Tools in Another Agent…", () => {
  const root = () => vscode.workspace.workspaceFolders![0].uri.fsPath;
  const written = ['.mcp.json', '.cursor', '.gemini'];

  before(async () => {
    await activateToolbelt();
  });

  after(async () => {
    for (const name of written) await fs.rm(path.join(root(), name), { recursive: true, force: true });
  });

  it('writes Claude Code\'s .mcp.json: toolbelt mcp for this folder, from the extension\'s own dist/cli.js, keeping what was there', async () => {
    await fs.writeFile(path.join(root(), '.mcp.json'), '{\n  // the team\'s server\n  "mcpServers": { "other": { "command": "other-server" } }\n}\n');
    const result = await vscode.commands.executeCommand<{ written: string }>('toolbelt.useInAnotherAgent', 'claude-code', root());
    assert.equal(result.written, path.join(root(), '.mcp.json'));
    const text = await fs.readFile(result.written, 'utf8');
    assert.match(text, /\/\/ the team's server/, 'comments are kept');
    const config = parse(text) as { mcpServers: Record<string, McpEntry> };
    assert.deepEqual(config.mcpServers.other, { command: 'other-server' });
    const entry = config.mcpServers.toolbelt;
    assert.equal(entry.command, 'node');
    assert.ok(entry.args[0].endsWith(path.join('dist', 'cli.js')) && existsSync(entry.args[0]), entry.args[0]);
    assert.deepEqual(entry.args.slice(1, 4), ['mcp', '--workspace', root()]);
    // The command it names answers as the toolbelt CLI.
    const help = spawnSync('node', [entry.args[0], '--help'], { encoding: 'utf8' });
    assert.match(help.stdout, /mcp[\s\S]*run[\s\S]*policy[\s\S]*undo/);
  });

  it('writes Cursor\'s and Gemini CLI\'s files, and only shows Codex\'s per-user snippet', async () => {
    for (const [agent, file] of [['cursor', '.cursor/mcp.json'], ['gemini-cli', '.gemini/settings.json']]) {
      const result = await vscode.commands.executeCommand<{ written: string }>('toolbelt.useInAnotherAgent', agent, root());
      assert.equal(result.written, path.join(root(), file));
      const config = parse(await fs.readFile(result.written, 'utf8')) as { mcpServers: Record<string, McpEntry> };
      assert.deepEqual(config.mcpServers.toolbelt.args.slice(1, 4), ['mcp', '--workspace', root()]);
    }
    const codex = await vscode.commands.executeCommand<{ written: undefined }>('toolbelt.useInAnotherAgent', 'codex', root());
    assert.equal(codex.written, undefined);
    const shown = vscode.window.activeTextEditor?.document.getText() ?? '';
    assert.match(shown, /\[mcp_servers\.toolbelt\]\ncommand = "node"/);
    assert.equal(await vscode.env.clipboard.readText(), shown.slice(shown.indexOf('[mcp_servers')));
    await vscode.commands.executeCommand('workbench.action.closeActiveEditor');
  });
});
