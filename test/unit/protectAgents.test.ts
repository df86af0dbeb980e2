import * as assert from 'node:assert/strict';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { parse } from 'jsonc-parser';
import type * as ProtectModule from '../../src/vscode/protectAgents';
import { waitFor } from '../support/waitFor';
import { requireWithVscode } from '../support/withFakeVscode';
import { TempWorkspace } from '../support/workspace';

type Handler = (...args: unknown[]) => Promise<unknown>;
interface PickItem { label: string; description?: string; detail?: string; picked?: boolean; agent: string }

/**
 * "Protect Other Agents on This Workspace…" against a fake of the API it uses: the person's
 * answers are scripted (`pick` chooses from the quick pick's rows, `warning` answers the PATH
 * question, `info` presses a button of the summary message).
 */
function protectCommand(ws: TempWorkspace, person: { pick?: (items: PickItem[]) => PickItem[] | undefined; warning?: string; info?: string } = {}) {
  const said: { kind: string; text: string; buttons: string[] }[] = [];
  const ran: { id: string; args: unknown[] }[] = [];
  const shown: { items: PickItem[]; options: Record<string, unknown> }[] = [];
  const commands = new Map<string, Handler>();
  let refreshed = 0;
  const say = (kind: string, reply?: string) => (text: string, ...rest: unknown[]) => {
    const buttons = rest.filter((b): b is string => typeof b === 'string');
    said.push({ kind, text, buttons });
    return Promise.resolve(reply);
  };
  const vscode = {
    commands: {
      registerCommand: (id: string, handler: Handler) => (commands.set(id, handler), { dispose() {} }),
      executeCommand: (id: string, ...args: unknown[]) => (ran.push({ id, args }), Promise.resolve(undefined)),
    },
    window: {
      showErrorMessage: say('error'),
      showInformationMessage: say('info', person.info),
      showWarningMessage: say('warning', person.warning),
      showQuickPick: (items: PickItem[], options: Record<string, unknown>) => {
        shown.push({ items, options });
        return Promise.resolve(person.pick ? person.pick(items) : items.filter((i) => i.picked));
      },
      showTextDocument: () => Promise.resolve(undefined),
    },
    workspace: { workspaceFolders: [{ uri: { scheme: 'file', fsPath: ws.root } }], openTextDocument: (doc: unknown) => Promise.resolve(doc) },
  };
  const module = requireWithVscode<typeof ProtectModule>(vscode, [require.resolve('../../src/vscode/protectAgents'), require.resolve('../../src/vscode/installCli'), require.resolve('../../src/vscode/otherAgents')]);
  module.registerProtectAgents({ info() {} } as never, () => refreshed++);
  const run = (...args: unknown[]) => commands.get(module.PROTECT_OTHER_AGENTS)!(...args) as Promise<ProtectModule.ProtectResult | undefined>;
  return { run, said, ran, shown, module, refreshed: () => refreshed };
}

describe('Protect Other Agents on This Workspace…: the agents\' files written by the same core as `toolbelt agents install`', () => {
  let ws: TempWorkspace;
  const savedPath = process.env.PATH;

  beforeEach(async () => {
    ws = await TempWorkspace.create({
      '.vscode/settings.json': '{\n  // the team\'s rules\n  "toolbelt.runBash.deniedCommands": ["rm"]\n}\n',
      '.claude/settings.json': '{\n  // mine\n  "model": "opus"\n}\n',
    });
    // A PATH with only `toolbelt`: no agent program is found there, so only .claude/ marks one as used here.
    const bin = path.join(ws.parent, 'bin');
    await fs.mkdir(bin);
    await fs.writeFile(path.join(bin, 'toolbelt'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    process.env.PATH = bin;
  });
  afterEach(async () => {
    process.env.PATH = savedPath;
    await ws.dispose();
  });

  it('offers the five agents with the found one picked, says what each one\'s own sandbox carries, and installs the picked one with a backup', async () => {
    const { run, shown, said, refreshed } = protectCommand(ws);
    const result = await run();
    assert.equal(shown.length, 1);
    const rows = shown[0].items;
    assert.deepEqual(rows.map((r) => r.agent), ['claude-code', 'codex', 'gemini-cli', 'copilot', 'cursor']);
    assert.deepEqual(rows.filter((r) => r.picked).map((r) => r.agent), ['claude-code'], 'only the agent with its folder here is picked');
    assert.equal(shown[0].options.canPickMany, true);
    assert.match(rows[0].description!, /^not protected · found \(\.claude\/\)/);
    assert.match(rows[0].detail!, /its own sandbox: toolbelt\.runBash\.deniedCommands "rm", sensitive files/);
    assert.match(rows[2].detail!, /its own sandbox: nothing of the policy · the hook alone: toolbelt\.runBash\.deniedCommands "rm"/);

    // On disk: the hook entry and the sandbox merged into the person's file, their entry and comment kept, the file as it was backed up.
    const text = await ws.read('.claude/settings.json');
    assert.match(text, /\/\/ mine/);
    const settings = parse(text) as { model: string; hooks: { PreToolUse: { hooks: { command: string }[] }[] }; permissions: { deny: string[] } };
    assert.equal(settings.model, 'opus');
    assert.ok(JSON.stringify(settings.hooks.PreToolUse).includes('toolbelt hook claude-code'), text);
    assert.ok(settings.permissions.deny.includes('Bash(rm:*)'), text);
    assert.equal(await ws.read('.claude/settings.json.toolbelt-backup'), '{\n  // mine\n  "model": "opus"\n}\n');
    for (const other of ['.gemini/settings.json', '.codex/hooks.json', '.github/hooks/toolbelt.json', '.cursor/hooks.json']) assert.equal(await ws.exists(other), false, other);
    assert.ok(!text.includes(ws.parent), 'no path of this machine in a checked-in file');

    assert.deepEqual(result?.agents, ['claude-code']);
    assert.match(result!.summary, /written {3}\.claude\/settings\.json \(the file as it was: \.claude\/settings\.json\.toolbelt-backup\)/);
    assert.match(result!.summary, /by permissions \+ hook: toolbelt\.runBash\.deniedCommands "rm"/);
    await waitFor(() => said.some((s) => s.kind === 'info'), 'the summary message');
    const done = said.find((s) => s.kind === 'info')!;
    assert.match(done.text, /Claude Code is protected: 1 file written, 1 backed up\./);
    assert.deepEqual(done.buttons, ['Show Summary', "Also give them Toolbelt's tools over MCP"]);
    assert.equal(refreshed(), 1, 'the Tools view is told');

    // Twice: one hook entry, the backup still the person's file.
    await run(['claude-code'], ws.root);
    const again = await ws.read('.claude/settings.json');
    assert.equal(again.split('toolbelt hook claude-code').length, text.split('toolbelt hook claude-code').length);
    assert.equal(await ws.read('.claude/settings.json.toolbelt-backup'), '{\n  // mine\n  "model": "opus"\n}\n');
  });

  it("offers Toolbelt's tools over MCP as the last step (the old command, by its id)", async () => {
    const { run, ran } = protectCommand(ws, { pick: (items) => items.filter((i) => i.agent === 'claude-code' || i.agent === 'copilot'), info: "Also give them Toolbelt's tools over MCP" });
    await run();
    await waitFor(() => ran.length > 0, 'the MCP step');
    assert.deepEqual(ran, [{ id: 'toolbelt.useInAnotherAgent', args: ['claude-code', ws.root] }], 'Copilot has no MCP file of this kind');
    assert.ok((await ws.read('.github/hooks/toolbelt.json')).includes('toolbelt hook copilot'));
  });

  it("gives VS Code's own agent its approval settings from the policy when Copilot is protected, keeping the policy file's comments and rules", async () => {
    const { run } = protectCommand(ws);
    const result = await run(['copilot'], ws.root);
    const text = await ws.read('.vscode/settings.json');
    assert.match(text, /\/\/ the team's rules/);
    const values = parse(text) as Record<string, Record<string, boolean> | string[]>;
    assert.deepEqual(values['toolbelt.runBash.deniedCommands'], ['rm']);
    assert.deepEqual(values['chat.tools.terminal.autoApprove'], { rm: false });
    const edits = values['chat.tools.edits.autoApprove'] as Record<string, boolean>;
    for (const glob of ['**/.env', '**/.vscode/**', '**/.git/**', '**/.claude/**', '**/.github/hooks/**', '**/.mcp.json', '**/*.code-workspace']) assert.equal(edits[glob], false, glob);
    assert.ok(Object.values(edits).every((v) => v === false));
    assert.ok(result!.files.some((f) => f.file === '.vscode/settings.json' && f.action === 'written'));
    assert.match(result!.summary, /chat\.tools\.terminal\.autoApprove/);
    // Twice: the same text.
    await run(['copilot'], ws.root);
    assert.equal(await ws.read('.vscode/settings.json'), text);
  });

  it('offers to install `toolbelt` first when it is not on PATH, and writes nothing when the person stops', async () => {
    process.env.PATH = path.join(ws.parent, 'empty');
    const stopped = protectCommand(ws);
    assert.equal(await stopped.run(), undefined);
    assert.equal(stopped.said[0].kind, 'warning');
    assert.match(stopped.said[0].text, /run `toolbelt`, which is not on your PATH yet/);
    assert.deepEqual(stopped.said[0].buttons, ["Install 'toolbelt' Command in PATH", 'Protect Anyway']);
    assert.equal(stopped.shown.length, 0);
    assert.equal(await ws.exists('.claude/settings.json.toolbelt-backup'), false);

    const install = protectCommand(ws, { warning: "Install 'toolbelt' Command in PATH" });
    const result = await install.run();
    assert.deepEqual(install.ran.map((r) => r.id), ['toolbelt.installCommand']);
    assert.deepEqual(result?.agents, ['claude-code']);
    assert.ok((await ws.read('.claude/settings.json')).includes('toolbelt hook claude-code'));
  });

  it('writes nothing when a file is refused or the policy cannot be read', async () => {
    await ws.write({ '.gemini/settings.json': '{ "hooks": {}, "hooks": {} }' });
    const refused = protectCommand(ws, { pick: (items) => items.filter((i) => i.agent === 'claude-code' || i.agent === 'gemini-cli') });
    assert.equal(await refused.run(), undefined);
    assert.equal(refused.said.at(-1)?.kind, 'error');
    assert.match(refused.said.at(-1)!.text, /Nothing was written\./);
    assert.equal(await ws.read('.claude/settings.json'), '{\n  // mine\n  "model": "opus"\n}\n', 'the first agent\'s file is untouched too');
    assert.equal(await ws.exists('.claude/settings.json.toolbelt-backup'), false);

    // A policy file with a key written twice: VS Code's settings cannot be merged into it, so no agent's file is written either.
    await ws.write({ '.vscode/settings.json': '{ "toolbelt.runBash.deniedCommands": ["rm"], "toolbelt.runBash.deniedCommands": ["rm"] }' });
    const twice = protectCommand(ws);
    assert.equal(await twice.run(['claude-code', 'copilot'], ws.root), undefined);
    assert.match(twice.said.at(-1)!.text, /defined twice[\s\S]*Nothing was written\./);
    assert.equal(await ws.exists('.github/hooks/toolbelt.json'), false);
    assert.equal(await ws.read('.claude/settings.json'), '{\n  // mine\n  "model": "opus"\n}\n');

    await ws.write({ '.vscode/settings.json': '{ "toolbelt.runBash.deniedCommands": [' });
    const broken = protectCommand(ws);
    assert.equal(await broken.run(['claude-code'], ws.root), undefined);
    assert.match(broken.said[0].text, /\.vscode\/settings\.json:1: .*nothing was written\./);
    assert.equal(await ws.read('.claude/settings.json'), '{\n  // mine\n  "model": "opus"\n}\n');
  });
});
