import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { activateToolbelt, setRegistry, waitFor } from './helpers';
import { GOOD_SERVER, processesTagged } from './mcpFixture';

const SERVER = 'personal';
const TAG = `toolbelt-mcp-user-${process.pid}-${Date.now()}`;

/**
 * A server of the person's own `toolbelt.mcp.servers`: named in the settings, then started by
 * name at once, as a script or a keybinding would. The settings change reloads the definitions
 * asynchronously; the start waits for that instead of finding no server and leaving the tool waiting.
 */
describe('an MCP server of toolbelt.mcp.servers in a real extension host', () => {
  let api: ToolbeltApi;
  const tool = () => api.tools.list().find((t) => t.name === `${SERVER}/echo`);

  before(async () => {
    api = await activateToolbelt();
    api.tools.list();
    await waitFor(async () => (await vscode.commands.getCommands(true)).includes('toolbelt.mcp.start'), 'the tool sources registered');
    await setRegistry([{ name: `${SERVER}/echo` }]);
  });

  after(async () => {
    await vscode.commands.executeCommand('toolbelt.mcp.stop', SERVER).then(undefined, () => undefined);
    await vscode.workspace.getConfiguration('toolbelt').update('mcp.servers', undefined, vscode.ConfigurationTarget.Global);
    await setRegistry(undefined);
  });

  it('lists its tool when started by name right after the settings name it (no approval asked: it is the person\'s own)', async () => {
    const servers = { [SERVER]: { type: 'stdio', command: process.execPath, args: [GOOD_SERVER, `--tag=${TAG}`] } };
    await vscode.workspace.getConfiguration('toolbelt').update('mcp.servers', servers, vscode.ConfigurationTarget.Global);
    await vscode.commands.executeCommand('toolbelt.mcp.start', SERVER);
    const ready = await waitFor(() => (tool()?.state === 'ready' ? tool() : undefined), `${SERVER}/echo ready`, 15_000);
    assert.equal(ready.state, 'ready');
    assert.equal((await processesTagged(TAG)).length, 1);
  });
});
