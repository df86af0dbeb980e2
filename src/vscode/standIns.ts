import { vscode } from './shellVscode';
import type { LoadHost, ShellParts, StandInTargets } from './shellParts';

interface Contributions {
  commands?: { command?: unknown }[];
  languageModelTools?: { name?: unknown }[];
  chatParticipants?: { id?: unknown }[];
}

/**
 * The shell's registrations: what VS Code must find the moment it shows a view, runs a command,
 * invokes a tool or sends an `@toolbelt` request. Each is a stand-in that loads the host on first
 * use and forwards to the implementation the host sets in `targets` (src/vscode/shellHandover.ts).
 *
 * Everything here runs at activation in every window, and V8 compiles each function on its first
 * call: one function, callbacks that compile only when called, the logic of handing over in the host.
 *
 * A tool gets a stand-in only if the workspace's registry names it at activation: VS Code offers
 * a tool only once its context key is set, and presence (src/vscode/nativeChat/presence.ts) sets
 * keys only for tools the registry named then; a later registry change loads the host, which
 * registers the others itself. A window whose workspace does not use Toolbelt so registers none.
 */
export function registerStandIns(context: vscode.ExtensionContext, load: LoadHost): ShellParts {
  const contributes = (context.extension.packageJSON as { contributes?: Contributions } | undefined)?.contributes ?? {};
  const targets: StandInTargets = { tools: new Map(), participants: new Map() };
  const subscriptions = context.subscriptions;

  const treeChanged = new vscode.EventEmitter<unknown>();
  const treeView = vscode.window.createTreeView<unknown>('toolbelt.tools', {
    manageCheckboxStateManually: true,
    treeDataProvider: {
      onDidChangeTreeData: treeChanged.event,
      getChildren: (element) => (load('the toolbelt.tools view'), target(targets.tree, 'the toolbelt.tools view')).getChildren(element),
      getTreeItem: (element) => target(targets.tree, 'the toolbelt.tools view').getTreeItem(element),
    },
  });
  subscriptions.push(
    treeView,
    treeChanged,
    vscode.window.registerWebviewViewProvider('toolbelt.chat', {
      resolveWebviewView: (view, state, token) => (load('the toolbelt.chat view'), target(targets.webview, 'the toolbelt.chat view')).resolveWebviewView(view, state, token),
    }),
  );

  const commandStandIns: vscode.Disposable[] = [];
  for (const { command } of contributes.commands ?? []) {
    if (typeof command !== 'string') continue;
    // Loads the host, which registers the real command under this id; runs it in this extension host, arguments as they are.
    commandStandIns.push(vscode.commands.registerCommand(command, (...args: unknown[]) => (load(command), vscode.commands.executeCommand(command, ...args))));
  }

  const toolStandIns = new Set<string>();
  const registry = vscode.workspace.getConfiguration('toolbelt').get<unknown>('tools.registry');
  if (Array.isArray(registry) && registry.length > 0) {
    // Read as loosely as the host reads them (bare strings too); the host judges them.
    const named = new Set(registry.map((entry: unknown) => (typeof entry === 'string' ? entry : (entry as { name?: unknown } | null)?.name)).map((name) => (typeof name === 'string' ? name.trim() : '')));
    for (const { name } of contributes.languageModelTools ?? []) {
      if (typeof name !== 'string' || !named.has(name.replace(/^toolbelt_/, ''))) continue;
      const tool = () => (load(`VS Code's chat (${name})`), target(targets.tools.get(name), name));
      subscriptions.push(vscode.lm.registerTool<Record<string, unknown>>(name, { prepareInvocation: (options, token) => tool().prepareInvocation?.(options, token), invoke: (options, token) => tool().invoke(options, token) }));
      toolStandIns.add(name);
    }
  }

  const participants = new Map<string, vscode.ChatParticipant>();
  for (const { id } of contributes.chatParticipants ?? []) {
    if (typeof id !== 'string') continue;
    const participant = vscode.chat.createChatParticipant(id, (request, chatContext, stream, token) => (load(`@${request.command ?? id}`), target(targets.participants.get(id), id))(request, chatContext, stream, token));
    participants.set(id, participant);
    subscriptions.push(participant);
  }

  return { context, activationMs: 0, targets, treeView, treeChanged, commandStandIns, toolStandIns, participants };
}

/** The host's implementation behind a stand-in; it sets every one it loads with, so this throws only on a bug. */
function target<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new Error(`Toolbelt's host gave ${what} no implementation.`);
  return value;
}
