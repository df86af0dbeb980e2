// One fresh process: loads dist/extension.js (Toolbelt's shell) against a stand-in `vscode` whose
// registrations cost nothing, calls activate() and prints the times. `floor` does instead, in plain
// code, the same registrations the shell makes. Both sides pay the same (nothing) to VS Code, so
// the difference is the shell's own code: what Toolbelt, not VS Code, adds to activation.
// Usage: node shellActivation.js <toolbelt|floor> <extension root>
import Module from 'node:module';
import * as path from 'node:path';
import { performance } from 'node:perf_hooks';
import { FakeDisposable as Disposable } from '../support/fakeDisposable';

interface Manifest {
  contributes: { commands: { command: string }[]; languageModelTools: { name: string }[]; chatParticipants: { id: string }[] };
}

const disposable = () => ({ dispose: () => undefined });

/** The part of the API the shell touches, each registration a no-op. */
function fakeVscode(): Record<string, unknown> {
  class EventEmitter {
    private readonly listeners: ((value: unknown) => void)[] = [];
    event = (listener: (value: unknown) => void) => (this.listeners.push(listener), disposable());
    fire(value: unknown): void {
      this.listeners.forEach((listener) => listener(value));
    }
    dispose(): void {
      this.listeners.length = 0;
    }
  }
  // VS Code's API object has about 440 exports (@types/vscode): what an `import * as` copies.
  const others = Object.fromEntries(Array.from({ length: 430 }, (_, i) => [`Export${i}`, class {}]));
  return {
    ...others,
    Disposable,
    EventEmitter,
    // The bench's workspace names no tools, like most windows: the shell stands in for none.
    workspace: { getConfiguration: () => ({ get: () => undefined }) },
    window: { createTreeView: () => ({ ...disposable(), visible: false }), registerWebviewViewProvider: disposable, registerTreeDataProvider: disposable, showErrorMessage: async () => undefined },
    commands: { registerCommand: disposable, executeCommand: async () => undefined },
    lm: { registerTool: disposable },
    chat: { createChatParticipant: disposable },
  };
}

/** The shell's registrations written plainly: what any extension with these surfaces must do. */
function floorActivate(vscode: ReturnType<typeof fakeVscode> & Record<string, Record<string, (...args: unknown[]) => { dispose(): unknown }>>, manifest: Manifest, subscriptions: unknown[]): void {
  subscriptions.push(vscode.window.createTreeView('toolbelt.tools', { treeDataProvider: { getChildren: () => [], getTreeItem: (e: unknown) => e }, manageCheckboxStateManually: true }));
  subscriptions.push(vscode.window.registerWebviewViewProvider('toolbelt.chat', { resolveWebviewView: () => undefined }));
  for (const { command } of manifest.contributes.commands) subscriptions.push(vscode.commands.registerCommand(command, () => undefined));
  const registry = (vscode.workspace as unknown as { getConfiguration(): { get(key: string): unknown } }).getConfiguration().get('tools.registry');
  const named = Array.isArray(registry) ? registry : [];
  for (const { name } of manifest.contributes.languageModelTools) if (named.includes(name.replace(/^toolbelt_/, ''))) subscriptions.push(vscode.lm.registerTool(name, { invoke: () => undefined }));
  for (const { id } of manifest.contributes.chatParticipants) subscriptions.push(vscode.chat.createChatParticipant(id, () => ({})));
}

function main(): void {
  const [side, root] = process.argv.slice(2);
  const vscode = fakeVscode();
  const loader = Module as unknown as { _load(request: string, parent: unknown, isMain: boolean): unknown };
  const load = loader._load;
  loader._load = function (this: unknown, request, parent, isMain) {
    return request === 'vscode' ? vscode : load.call(this, request, parent, isMain);
  };
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- the manifest as VS Code hands it over, already parsed
  const manifest = require(path.join(root, 'package.json')) as Manifest;
  const context = { subscriptions: [] as unknown[], extension: { packageJSON: manifest } };
  const cpu = process.cpuUsage();
  const started = performance.now();
  let loaded = started;
  if (side === 'toolbelt') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- timing the shell's load is the point
    const shell = require(path.join(root, 'dist', 'extension.js')) as { activate(context: unknown): unknown };
    loaded = performance.now();
    shell.activate(context);
  } else {
    loaded = performance.now();
    floorActivate(vscode as Parameters<typeof floorActivate>[0], manifest, context.subscriptions);
  }
  const done = performance.now();
  const used = process.cpuUsage(cpu);
  process.stdout.write(JSON.stringify({ side, loadMs: loaded - started, activateMs: done - loaded, totalMs: done - started, cpuMs: (used.user + used.system) / 1000, registrations: context.subscriptions.length }));
  // The shell's background start (1.5 s later) would load presence against the stand-in: stop here.
  process.exit(0);
}

main();
