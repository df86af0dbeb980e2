import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';
import { activateToolbelt, setRegistry, waitFor } from './helpers';
import { answerApprovals, GOOD_SERVER, processesTagged, restoreApprovals } from './mcpFixture';

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

  it('without a sandbox (mode "auto"), asks before it runs with the account\'s full powers, and starts only on yes', async () => {
    const tag = `${TAG}-unsandboxed`;
    const saved = process.env.TOOLBELT_SANDBOX_UNAVAILABLE;
    process.env.TOOLBELT_SANDBOX_UNAVAILABLE = '1';
    try {
      await vscode.commands.executeCommand('toolbelt.mcp.stop', SERVER);
      const servers = { [SERVER]: { type: 'stdio', command: process.execPath, args: [GOOD_SERVER, `--tag=${tag}`] } };
      await vscode.workspace.getConfiguration('toolbelt').update('mcp.servers', servers, vscode.ConfigurationTarget.Global);
      await answerApprovals(false);
      await vscode.commands.executeCommand('toolbelt.mcp.start', SERVER);
      const waiting = await waitFor(() => {
        const now = tool();
        return now?.state === 'waiting' && /failed/.test(now.reason) ? now : undefined;
      }, `${SERVER}/echo waiting on a failed start`, 15_000);
      assert.match(waiting.state === 'waiting' ? waiting.reason : '', /you did not allow it to run without a sandbox|nobody allowed this server to run without one/);
      const asked = await answerApprovals();
      assert.equal(asked.length, 1, JSON.stringify(asked));
      assert.match(asked[0].detail, /^No sandbox is available here: it would run without a sandbox, with your account's full powers \(TOOLBELT_SANDBOX_UNAVAILABLE=1/);
      assert.equal((await processesTagged(tag)).length, 0, 'the declined server runs');

      await answerApprovals(true);
      await vscode.commands.executeCommand('toolbelt.mcp.start', SERVER);
      await waitFor(() => (tool()?.state === 'ready' ? true : undefined), `${SERVER}/echo ready once allowed`, 15_000);
      assert.equal((await processesTagged(tag)).length, 1);
    } finally {
      if (saved === undefined) delete process.env.TOOLBELT_SANDBOX_UNAVAILABLE;
      else process.env.TOOLBELT_SANDBOX_UNAVAILABLE = saved;
      await restoreApprovals();
    }
  });
});
