import * as vscode from 'vscode';
import type { Presence } from './nativeChat/presence';
import type { ShellParts } from './shellParts';

/**
 * What VS Code's chat must find registered the moment it activates Toolbelt (a tool call, an
 * `@toolbelt` request): the shell stands in, and the host hands over the real implementation here.
 * The model picker's provider is presence's (src/vscode/nativeChat/presence.ts).
 */
export interface ChatTargets {
  /** The implementation of `toolbelt_<tool>`. */
  lmTool(name: string, tool: vscode.LanguageModelTool<Record<string, unknown>>): vscode.Disposable;
  /** The handler of a contributed participant; returns the participant (icon, follow-ups are set on it). */
  participant(id: string, handler: vscode.ChatRequestHandler): vscode.ChatParticipant;
}

/** The shell's registrations as the host uses them, and why the host is loading now. */
export interface HostShell {
  /** How long activate() took (the shell's own work). */
  readonly activationMs: number;
  /** What needed the host first: "the toolbelt.tools view", "toolbelt.openChat", "api.tools.list"… */
  readonly reason: string;
  /** performance.now() when the shell began to load dist/host.js, so the log counts reading it too. */
  readonly loadStarted: number;
  /** The tree view the shell created for `id`; from now on `provider` gives its rows. */
  treeView<T>(id: string, provider: vscode.TreeDataProvider<T>): vscode.TreeView<T>;
  /** The shell's registrations for VS Code's chat, waiting for their implementations. */
  readonly chat: ChatTargets;
  /** Hands the webview view `id`, registered by the shell, to `provider`. */
  webviewView(id: string, provider: vscode.WebviewViewProvider): vscode.Disposable;
  /** What the shell started before the host: the context keys, the model, the settings watcher and the API keys. */
  readonly presence: Presence;
}

/** The ids the shell registers stand-ins under (src/vscode/standIns.ts). */
const TREE_VIEW = 'toolbelt.tools';
const WEBVIEW_VIEW = 'toolbelt.chat';

/** Takes over what the shell registered (`parts`): the host's implementations go behind its stand-ins. */
export function handOver(parts: ShellParts, reason: string, loadStarted: number): HostShell {
  const { targets, presence } = parts;
  if (!presence) throw new Error('The shell loaded the host before presence (src/vscode/lazyHost.ts).');
  return {
    presence,
    activationMs: parts.activationMs,
    reason,
    loadStarted,
    treeView: <T>(id: string, provider: vscode.TreeDataProvider<T>) => {
      if (id !== TREE_VIEW) throw new Error(`The shell created no tree view "${id}" (src/vscode/standIns.ts).`);
      targets.tree = provider as vscode.TreeDataProvider<unknown>;
      const forwarding = provider.onDidChangeTreeData?.((change) => parts.treeChanged.fire(change));
      if (forwarding) parts.context.subscriptions.push(forwarding);
      return parts.treeView as vscode.TreeView<T>;
    },
    webviewView: (id, provider) => {
      if (id !== WEBVIEW_VIEW) throw new Error(`The shell registered no webview view "${id}" (src/vscode/standIns.ts).`);
      targets.webview = provider;
      return new vscode.Disposable(() => targets.webview === provider && (targets.webview = undefined));
    },
    chat: new ChatHandover(parts),
  };
}

type Tool = vscode.LanguageModelTool<Record<string, unknown>>;

class ChatHandover implements ChatTargets {
  constructor(private readonly parts: ShellParts) {}

  /** Behind the shell's stand-in if it made one (the registry named the tool at activation); registered here otherwise. */
  lmTool(name: string, tool: Tool): vscode.Disposable {
    if (!this.parts.toolStandIns.has(name)) return vscode.lm.registerTool(name, tool);
    const tools = this.parts.targets.tools;
    tools.set(name, tool);
    return new vscode.Disposable(() => tools.get(name) === tool && tools.delete(name));
  }

  participant(id: string, handler: vscode.ChatRequestHandler): vscode.ChatParticipant {
    const participant = this.parts.participants.get(id);
    if (!participant) throw new Error(`package.json contributes no chat participant "${id}".`);
    this.parts.targets.participants.set(id, handler);
    return participant;
  }
}
