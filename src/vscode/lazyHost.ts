import { vscode } from './shellVscode';
import type { ChatTargets } from './chatStandIns';
import type { Host, HostShell } from './host';
import type * as HostModule from './host';

/**
 * The shell's side of the split: registers cheap stand-ins at activation and loads dist/host.js
 * (services, tree, chat, commands) the first time one of them is used, synchronously and once.
 *
 * A registration that VS Code must see at activation is made here with a stand-in whose work
 * is done in the host: `vscode.lm.registerTool(name, { invoke: host.lazy((h, options, token) =>
 * h.someFeature.invoke(options, token)) })`. Nothing of the host's code is imported here at
 * run time (types only): esbuild.js fails the build when a module lands in both bundles.
 */
export class LazyHost implements vscode.Disposable {
  private host: Host | undefined;
  private failure: Error | undefined;
  private loading = false;
  /** Command stand-ins: disposed just before the host registers the real commands under their ids. */
  private readonly commandStandIns: vscode.Disposable[] = [];
  private readonly trees = new Map<string, { standIn: TreeStandIn<unknown>; view: vscode.TreeView<unknown> }>();
  private readonly webviews = new Map<string, WebviewViewStandIn>();
  private readonly subscriptions: vscode.Disposable[] = [];
  /** Set once activate() is done; the host logs it. */
  activationMs = 0;
  /** The stand-ins for VS Code's chat (tools, participant, model vendor) the host hands its implementations to. */
  chat: ChatTargets | undefined;

  constructor(private readonly context: vscode.ExtensionContext) {}

  /** The host, if something has loaded it already (deactivate() flushes only then). */
  get loaded(): Host | undefined {
    return this.host;
  }

  /** Loads the host if needed; `reason` names what needed it, for the log. */
  load(reason: string): Host {
    if (this.host) return this.host;
    if (this.failure) throw this.failure;
    if (this.loading) throw new Error(`Toolbelt's host is still starting; ${reason} was used too early.`);
    this.loading = true;
    const loadStarted = performance.now();
    // The host registers the same command ids; these step aside in the same tick, so no call falls between.
    vscode.Disposable.from(...this.commandStandIns.splice(0)).dispose();
    try {
      // A computed path keeps esbuild from inlining the host into the shell; no node:path, which
      // would be one more require through the extension host's interceptors at activation.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { startHost } = require(`${__dirname}/host.js`) as typeof HostModule;
      this.host = startHost(this.context, this.shellFor(reason, loadStarted));
      return this.host;
    } catch (error) {
      this.failure = error instanceof Error ? error : new Error(String(error));
      console.error(`Toolbelt: could not start (${reason}):`, error);
      void vscode.window.showErrorMessage(`Toolbelt could not start: ${this.failure.message}`);
      throw this.failure;
    } finally {
      this.loading = false;
    }
  }

  /**
   * A function for a registration made in the shell: loads the host on its first call and runs
   * `run` with it and the arguments. Use it for each method of an object VS Code calls back.
   */
  lazy<A extends unknown[], R>(reason: string, run: (host: Host, ...args: A) => R): (...args: A) => R {
    return (...args: A) => run(this.load(reason), ...args);
  }

  /** Every command id: a stand-in that loads the host, then runs the command the host registered. */
  standInForCommands(ids: readonly string[]): void {
    for (const id of ids) {
      this.commandStandIns.push(
        vscode.commands.registerCommand(id, (...args: unknown[]) => {
          this.load(id);
          // Runs in this extension host, arguments as they are (tree nodes, URIs), with the real handler.
          return vscode.commands.executeCommand(id, ...args);
        }),
      );
    }
  }

  /** Creates the tree view `id` now; its rows come from the host, loaded on the first getChildren. */
  standInForTreeView(id: string, options: Omit<vscode.TreeViewOptions<unknown>, 'treeDataProvider'> = {}): void {
    const standIn = new TreeStandIn<unknown>(id, () => this.load(`the ${id} view`));
    const view = vscode.window.createTreeView(id, { ...options, treeDataProvider: standIn });
    this.trees.set(id, { standIn, view });
    this.subscriptions.push(standIn, view);
  }

  /** Registers the webview view `id` now; the host, loaded when the view first opens, fills it. */
  standInForWebviewView(id: string, options?: { webviewOptions?: { retainContextWhenHidden?: boolean } }): void {
    const standIn = new WebviewViewStandIn(id, () => this.load(`the ${id} view`));
    this.webviews.set(id, standIn);
    this.subscriptions.push(vscode.window.registerWebviewViewProvider(id, standIn, options));
  }

  dispose(): void {
    vscode.Disposable.from(...this.commandStandIns.splice(0), ...this.subscriptions.splice(0)).dispose();
  }

  private chatTargets(): ChatTargets {
    if (!this.chat) throw new Error('The shell registered nothing for VS Code\'s chat (src/extension.ts).');
    return this.chat;
  }

  private shellFor(reason: string, loadStarted: number): HostShell {
    return {
      activationMs: this.activationMs,
      reason,
      chat: this.chatTargets(),
      loadStarted,
      treeView: <T>(id: string, provider: vscode.TreeDataProvider<T>) => {
        const tree = this.trees.get(id);
        if (!tree) throw new Error(`The shell created no tree view "${id}" (src/extension.ts).`);
        tree.standIn.attach(provider as vscode.TreeDataProvider<unknown>);
        return tree.view as vscode.TreeView<T>;
      },
      webviewView: (id, provider) => {
        const standIn = this.webviews.get(id);
        if (!standIn) throw new Error(`The shell registered no webview view "${id}" (src/extension.ts).`);
        standIn.target = provider;
        return new vscode.Disposable(() => standIn.target === provider && (standIn.target = undefined));
      },
    };
  }
}

/** A tree's data provider until the host's is attached; the first getChildren loads the host. */
class TreeStandIn<T> implements vscode.TreeDataProvider<T>, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<T | T[] | undefined | null | void>();
  readonly onDidChangeTreeData = this.changed.event;
  private target: vscode.TreeDataProvider<T> | undefined;
  private forwarding: vscode.Disposable | undefined;

  constructor(
    private readonly id: string,
    private readonly load: () => void,
  ) {}

  attach(target: vscode.TreeDataProvider<T>): void {
    this.forwarding?.dispose();
    this.target = target;
    this.forwarding = target.onDidChangeTreeData?.((change) => this.changed.fire(change));
  }

  getChildren(element?: T): vscode.ProviderResult<T[]> {
    this.load();
    return this.provider().getChildren(element);
  }

  getTreeItem(element: T): vscode.TreeItem | Thenable<vscode.TreeItem> {
    return this.provider().getTreeItem(element);
  }

  dispose(): void {
    this.forwarding?.dispose();
    this.changed.dispose();
  }

  private provider(): vscode.TreeDataProvider<T> {
    if (!this.target) throw new Error(`Toolbelt's host gave the ${this.id} view no data provider.`);
    return this.target;
  }
}

/** A webview view's provider until the host's is handed over; resolving the view loads the host. */
class WebviewViewStandIn implements vscode.WebviewViewProvider {
  target: vscode.WebviewViewProvider | undefined;

  constructor(
    private readonly id: string,
    private readonly load: () => void,
  ) {}

  resolveWebviewView(view: vscode.WebviewView, context: vscode.WebviewViewResolveContext, token: vscode.CancellationToken): void | Thenable<void> {
    this.load();
    if (!this.target) throw new Error(`Toolbelt's host gave the ${this.id} view no provider.`);
    return this.target.resolveWebviewView(view, context, token);
  }
}
