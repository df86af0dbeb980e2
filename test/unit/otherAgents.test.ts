import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import type { registerOtherAgents } from '../../src/vscode/otherAgents';
import { waitFor } from '../support/waitFor';
import { requireWithVscode } from '../support/withFakeVscode';
import { TempWorkspace } from '../support/workspace';

type Command = (agent?: unknown, folder?: unknown) => Promise<{ written: string | undefined } | undefined>;

/** "Use This Workspace's Tools in Another Agent…" against a fake of the API it uses; the person picks `answer` on a warning. */
function useInAnotherAgent(ws: TempWorkspace, answer?: string) {
  const said: { kind: string; text: string; buttons: string[] }[] = [];
  const ran: string[] = [];
  let command: Command | undefined;
  const say = (kind: string, reply?: string) => (text: string, ...buttons: string[]) => (said.push({ kind, text, buttons }), Promise.resolve(reply));
  const vscode = {
    commands: {
      registerCommand: (_id: string, handler: Command) => ((command = handler), { dispose() {} }),
      executeCommand: (id: string) => (ran.push(id), Promise.resolve(undefined)),
    },
    window: { showErrorMessage: say('error'), showInformationMessage: say('info'), showWarningMessage: say('warning', answer) },
  };
  const { registerOtherAgents: register } = requireWithVscode<{ registerOtherAgents: typeof registerOtherAgents }>(vscode, [require.resolve('../../src/vscode/otherAgents')]);
  // A VS Code user settings file exists: it must not reach the checked-in file.
  const context = { extensionPath: path.join(ws.parent, 'extension'), globalStorageUri: { scheme: 'file', fsPath: path.join(ws.parent, 'User', 'globalStorage', 'toolbelt') } };
  register(context as never, { info() {} } as never);
  return { run: (agent: string) => command!(agent, ws.root), said, ran };
}

describe("Use This Workspace's Tools in Another Agent…: portable files, and `toolbelt` on PATH", () => {
  let ws: TempWorkspace;
  const savedPath = process.env.PATH;

  beforeEach(async () => {
    ws = await TempWorkspace.create();
    await fs.mkdir(path.join(ws.parent, 'User'));
    await fs.writeFile(path.join(ws.parent, 'User', 'settings.json'), '{}');
  });
  afterEach(async () => {
    process.env.PATH = savedPath;
    await ws.dispose();
  });

  it("writes an entry with no path of this machine, and offers to install `toolbelt` when it is not on PATH", async () => {
    process.env.PATH = path.join(ws.parent, 'empty');
    const { run, said, ran } = useInAnotherAgent(ws, "Install 'toolbelt' Command in PATH");
    const result = await run('claude-code');
    const text = await fs.readFile(ws.path('.mcp.json'), 'utf8');
    assert.equal(result?.written, ws.path('.mcp.json'));
    assert.deepEqual(parse(text), { mcpServers: { toolbelt: { type: 'stdio', command: 'toolbelt', args: ['mcp'] } } });
    assert.ok(!text.includes(ws.parent), text);
    await waitFor(() => ran.length > 0, 'the install command run');
    assert.deepEqual(ran, ['toolbelt.installCommand']);
    assert.equal(said.length, 1);
    assert.match(said[0].text, /It runs `toolbelt`, which is not on your PATH yet\./);
    assert.deepEqual(said[0].buttons, ["Install 'toolbelt' Command in PATH"]);
  });

  it('only says where it wrote when `toolbelt` is on PATH', async () => {
    const bin = path.join(ws.parent, 'bin');
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, 'toolbelt'), '#!/bin/sh\n', { mode: 0o755 });
    process.env.PATH = bin;
    const { run, said, ran } = useInAnotherAgent(ws);
    await run('gemini-cli');
    await waitFor(() => said.length > 0, 'a message');
    assert.deepEqual(said.map((s) => s.kind), ['info']);
    assert.match(said[0].text, /Gemini CLI will use this workspace's tools \(\.gemini\/settings\.json\)/);
    assert.deepEqual(ran, []);
  });
});
