import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import { activateToolbelt, setRegistry, waitFor } from '../helpers';
import { answerApprovals, processesTagged, removeMcpJson, restoreApprovals, writeMcpJson } from '../mcpFixture';

const SERVER = 'fixture';
const TAG = `toolbelt-mcp-restricted-${process.pid}-${Date.now()}`;

describe('A workspace MCP server in an untrusted workspace', () => {
  after(async () => {
    await removeMcpJson();
    await restoreApprovals();
    await setRegistry(undefined);
  });

  it("never starts: not from the tree's start action, and nobody is even asked", async () => {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await activateToolbelt();
    api.tools.list(); // loads the host, which registers the tool sources
    await waitFor(async () => (await vscode.commands.getCommands(true)).includes('toolbelt.mcp.testing.approvals'), 'the tool sources registered');
    await answerApprovals(true);
    await writeMcpJson(SERVER, TAG);
    await setRegistry([{ name: `${SERVER}/echo` }]);
    const row = () => api.views.toolsTree().find((r) => r.id === `source:${SERVER}`);
    await waitFor(() => row(), 'the server in the tree');
    assert.equal(api.tools.list().find((t) => t.name === `${SERVER}/echo`)?.state, 'waiting');

    await vscode.commands.executeCommand('toolbelt.mcp.start', SERVER);
    await waitFor(() => row()?.description === 'failed: workspace not trusted · ⚠ also run by VS Code', 'refused for trust');
    assert.deepEqual(await answerApprovals(), [], 'the person was not even asked');
    assert.deepEqual(await processesTagged(TAG), [], 'no process with the fixture command line');

    const enabled = await api.tools.enable(`${SERVER}/echo`);
    assert.equal(enabled.ok, false);
    assert.match(enabled.ok ? '' : enabled.error, /trust this workspace/);
    assert.deepEqual(await processesTagged(TAG), []);
  });
});
