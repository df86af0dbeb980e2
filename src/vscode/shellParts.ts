import type * as vscode from 'vscode';
import type { ToolbeltApi } from './api';
import type { Presence } from './nativeChat/presence';

/**
 * What the shell (dist/extension.js, src/vscode/standIns.ts) registered at activation and started
 * since, handed to the host (dist/host.js) when it loads; src/vscode/shellHandover.ts, in the
 * host, takes each over. Types only: the bundles share no code.
 */
export interface ShellParts {
  readonly context: vscode.ExtensionContext;
  /** How long activate() took (the shell's own work). */
  activationMs: number;
  /** Where the stand-ins forward once the host has set them. */
  readonly targets: StandInTargets;
  /** The tree view `toolbelt.tools`, created by the shell with a stand-in data provider. */
  readonly treeView: vscode.TreeView<unknown>;
  /** Fires the tree view's onDidChangeTreeData. */
  readonly treeChanged: vscode.EventEmitter<unknown>;
  /** The command stand-ins, to dispose just before the host registers the real commands under their ids. */
  readonly commandStandIns: vscode.Disposable[];
  /** The tools (`toolbelt_<name>`) the shell registered a stand-in for. */
  readonly toolStandIns: ReadonlySet<string>;
  /** The participants the shell created, by id. */
  readonly participants: ReadonlyMap<string, vscode.ChatParticipant>;
  /** Toolbelt in VS Code's chat before the host (dist/presence.js), once started: always before the host loads. */
  presence?: Presence;
}

export interface StandInTargets {
  tree?: vscode.TreeDataProvider<unknown>;
  webview?: vscode.WebviewViewProvider;
  readonly tools: Map<string, vscode.LanguageModelTool<Record<string, unknown>>>;
  readonly participants: Map<string, vscode.ChatRequestHandler>;
}

/** Everything the shell reaches through once the host is loaded. */
export interface Host {
  readonly api: ToolbeltApi;
  /** For deactivate(): the chat history, the tool state and the tool log on disk; one line per problem. */
  flush(): Promise<string[]>;
}

/** How the shell loads the host: once, synchronously; `reason` names what needed it, for the log. */
export type LoadHost = (reason: string) => Host;
