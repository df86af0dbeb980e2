import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import type * as ShellHandover from '../../src/vscode/shellHandover';
import type { ShellParts } from '../../src/vscode/shellParts';
import type * as StandIns from '../../src/vscode/standIns';
import { fakeShellVscode, type FakeTool } from '../support/fakeShellVscode';
import { requireWithVscode } from '../support/withFakeVscode';

const SRC = path.join(__dirname, '..', '..', 'src', 'vscode');

const CONTRIBUTES = {
  commands: [{ command: 'toolbelt.openChat' }, { command: 'toolbelt.enableTool' }, { title: 'no id' }],
  languageModelTools: [{ name: 'toolbelt_read_file' }, { name: 'toolbelt_calculator' }, { name: 'toolbelt_run_bash' }],
  chatParticipants: [{ id: 'toolbelt.agent' }],
};

/** The shell's registerStandIns and the host's handOver, both bound to one fake API. */
function shellWith(registry: unknown) {
  const vscode = fakeShellVscode(registry);
  const { registerStandIns } = requireWithVscode<typeof StandIns>(vscode.api, [path.join(SRC, 'standIns.js'), path.join(SRC, 'shellVscode.js')]);
  const { handOver } = requireWithVscode<typeof ShellHandover>(vscode.api, [path.join(SRC, 'shellHandover.js')]);
  const context = { subscriptions: [] as { dispose(): unknown }[], extension: { packageJSON: { contributes: CONTRIBUTES } } };
  const loads: string[] = [];
  /** What the test's host does when a stand-in loads it. */
  let onLoad: (parts: ShellParts) => void = () => undefined;
  // Like LazyHost.load: the first use loads the host, later ones find it loaded.
  let host: { api: never; flush(): Promise<string[]> } | undefined;
  const parts: ShellParts = registerStandIns(context as never, (reason) => {
    if (host) return host;
    loads.push(reason);
    // Presence always starts before the host (src/vscode/lazyHost.ts); the handover only passes it on.
    parts.presence ??= { started: 'before the host' } as never;
    onLoad(parts);
    return (host = { api: {} as never, flush: async () => [] });
  });
  return { vscode, parts, context, loads, handOver, hostLoads: (run: (parts: ShellParts) => void) => (onLoad = run) };
}

describe("registerStandIns: the shell's registrations at activation", () => {
  it('creates the two views, a stand-in for every contributed command and the participant, and tools only where the registry names them', () => {
    const { vscode, parts } = shellWith([{ name: 'read_file' }, ' calculator ', { name: 'github/*' }, 42, null]);
    assert.deepEqual([...vscode.trees.keys()], ['toolbelt.tools']);
    assert.equal(vscode.trees.get('toolbelt.tools')?.manageCheckboxStateManually, true);
    assert.deepEqual([...vscode.webviews.keys()], ['toolbelt.chat']);
    assert.deepEqual([...vscode.commands.keys()], ['toolbelt.openChat', 'toolbelt.enableTool']);
    assert.equal(parts.commandStandIns.length, 2);
    assert.deepEqual([...vscode.tools.keys()].sort(), ['toolbelt_calculator', 'toolbelt_read_file']);
    assert.deepEqual([...parts.toolStandIns].sort(), ['toolbelt_calculator', 'toolbelt_read_file']);
    assert.deepEqual([...vscode.participants.keys()], ['toolbelt.agent']);
    assert.equal(parts.participants.get('toolbelt.agent'), vscode.participants.get('toolbelt.agent'));
  });

  it('registers no tool in a workspace whose registry is missing, empty or not a list', () => {
    for (const registry of [undefined, [], {}, 'read_file']) {
      const { vscode, parts } = shellWith(registry);
      assert.equal(vscode.tools.size, 0, `registry ${JSON.stringify(registry)}`);
      assert.equal(parts.toolStandIns.size, 0);
      assert.deepEqual([...vscode.participants.keys()], ['toolbelt.agent']);
    }
  });

  it('a command stand-in loads the host, steps aside, and runs the command the host registered with the same arguments', async () => {
    const { vscode, loads, hostLoads } = shellWith(undefined);
    hostLoads((parts) => {
      parts.commandStandIns.splice(0).forEach((standIn) => standIn.dispose());
      vscode.api.commands.registerCommand('toolbelt.enableTool', (...args: unknown[]) => `enabled ${JSON.stringify(args)}`);
    });
    const standIn = vscode.commands.get('toolbelt.enableTool')!;
    const row = { name: 'read_file' };
    assert.equal(await standIn(row, 2), 'enabled [{"name":"read_file"},2]');
    assert.deepEqual(loads, ['toolbelt.enableTool']);
    assert.notEqual(vscode.commands.get('toolbelt.enableTool'), standIn, "the host's command took the id");
    assert.equal(vscode.commands.has('toolbelt.openChat'), false, 'every stand-in stepped aside');
  });

  it("the tree's first rows load the host; its rows, items and change events are the host's from then on", () => {
    const { vscode, parts, loads, hostLoads, handOver } = shellWith(undefined);
    const changes: unknown[] = [];
    const hostTree = { changed: new vscode.api.EventEmitter<unknown>(), getChildren: (e?: unknown) => (e ? [] : ['a', 'b']), getTreeItem: (e: unknown) => ({ label: e }) };
    hostLoads(() => {
      const view = handOver(parts, 'test', 0).treeView('toolbelt.tools', { ...hostTree, onDidChangeTreeData: hostTree.changed.event } as never);
      assert.equal(view, parts.treeView);
    });
    const provider = vscode.trees.get('toolbelt.tools')!.treeDataProvider;
    provider.onDidChangeTreeData?.((change) => changes.push(change));
    assert.deepEqual(provider.getChildren(), ['a', 'b']);
    assert.deepEqual(provider.getTreeItem('a'), { label: 'a' });
    assert.deepEqual(loads, ['the toolbelt.tools view']);
    hostTree.changed.fire('a');
    assert.deepEqual(changes, ['a']);
  });

  it('resolving the chat view loads the host and hands the view to its provider; the handover can be taken back', () => {
    const { vscode, parts, loads, hostLoads, handOver } = shellWith(undefined);
    const resolved: unknown[] = [];
    let handed: { dispose(): void } | undefined;
    hostLoads(() => (handed = handOver(parts, 'test', 0).webviewView('toolbelt.chat', { resolveWebviewView: (view) => void resolved.push(view) })));
    vscode.webviews.get('toolbelt.chat')!.resolveWebviewView('the view', {}, undefined);
    assert.deepEqual(resolved, ['the view']);
    assert.deepEqual(loads, ['the toolbelt.chat view']);
    handed!.dispose();
    assert.equal(parts.targets.webview, undefined);
  });

  it("a tool stand-in loads the host and runs the implementation handed over behind it; the others the host registers itself", async () => {
    const { vscode, parts, loads, hostLoads, handOver } = shellWith([{ name: 'read_file' }]);
    const registrations: { dispose(): void }[] = [];
    hostLoads(() => {
      const chat = handOver(parts, 'test', 0).chat;
      registrations.push(chat.lmTool('toolbelt_read_file', { invoke: (options: unknown) => `read ${JSON.stringify(options)}`, prepareInvocation: () => 'prepared' } as never));
      registrations.push(chat.lmTool('toolbelt_calculator', { invoke: () => '4' } as never));
    });
    const standIn = vscode.tools.get('toolbelt_read_file')!;
    assert.equal(await standIn.invoke({ path: 'a.txt' }, undefined), 'read {"path":"a.txt"}');
    assert.equal(standIn.prepareInvocation?.({}, undefined), 'prepared');
    assert.deepEqual(loads, ["VS Code's chat (toolbelt_read_file)"]);
    assert.equal(vscode.tools.get('toolbelt_read_file'), standIn, 'the stand-in stays registered; the implementation is behind it');
    assert.equal((vscode.tools.get('toolbelt_calculator') as FakeTool).invoke({}, undefined), '4', 'registered by the host: no stand-in was made for it');
    registrations.forEach((registration) => registration.dispose());
    assert.equal(vscode.tools.has('toolbelt_calculator'), false);
    assert.equal(parts.targets.tools.size, 0);
    assert.equal(vscode.tools.has('toolbelt_read_file'), true, "the stand-in is the shell's to dispose");
  });

  it("an @toolbelt request loads the host (the slash command names why) and runs the host's handler on the shell's participant", async () => {
    const { vscode, parts, loads, hostLoads, handOver } = shellWith(undefined);
    hostLoads(() => assert.equal(handOver(parts, 'test', 0).chat.participant('toolbelt.agent', async (request) => ({ metadata: { answered: request.prompt } })), vscode.participants.get('toolbelt.agent')));
    assert.deepEqual(await vscode.participants.get('toolbelt.agent')!.handler({ prompt: 'hi', command: 'tools' }, {}, {}, undefined), { metadata: { answered: 'hi' } });
    assert.deepEqual(loads, ['@tools']);
    assert.throws(() => handOver(parts, 'test', 0).chat.participant('toolbelt.other', async () => undefined), /package.json contributes no chat participant "toolbelt.other"/);
  });

  it('a stand-in whose host handed over nothing says which', () => {
    const { vscode } = shellWith([{ name: 'run_bash' }]);
    assert.throws(() => vscode.tools.get('toolbelt_run_bash')!.invoke({}, undefined), /Toolbelt's host gave toolbelt_run_bash no implementation/);
    assert.throws(() => vscode.trees.get('toolbelt.tools')!.treeDataProvider.getChildren(), /Toolbelt's host gave the toolbelt.tools view no implementation/);
  });

  it('the handover passes on presence, and refuses a host loaded before it', () => {
    const { parts, handOver } = shellWith(undefined);
    assert.throws(() => handOver(parts, 'test', 0), /loaded the host before presence/);
    const presence = { started: 'before the host' } as never;
    parts.presence = presence;
    assert.equal(handOver(parts, 'test', 0).presence, presence);
  });

  it('the handover knows only the views the shell made', () => {
    const { parts, handOver } = shellWith(undefined);
    parts.presence = {} as never;
    const shell = handOver(parts, 'test', 0);
    assert.throws(() => shell.treeView('toolbelt.other', { getChildren: () => [], getTreeItem: () => ({}) }), /created no tree view "toolbelt.other"/);
    assert.throws(() => shell.webviewView('toolbelt.other', { resolveWebviewView: () => undefined }), /registered no webview view "toolbelt.other"/);
  });
});
