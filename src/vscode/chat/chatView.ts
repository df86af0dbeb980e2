import { randomBytes } from 'node:crypto';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { parseWebviewMessage, type ContextSuggestion, type HostMessage, type TranscriptItem, type ViewCommand, type WebviewMessage } from '../../protocol';
import type { PickedContext } from './attachmentPicker';
import type { ChatService } from './chatService';
import type { ChatHistory } from './chatHistory';
import { runTurnAction } from './turnActionMessages';
import { readSettings } from '../settings';
import { runCodeAction } from './codeActions';
import type { ApplyPreviews } from './applyPreview';
import { Disposables, DisposableStore } from '../dispose';

export const CHAT_VIEW = 'toolbelt.chat';

const VIEW_COMMANDS: Record<ViewCommand, string> = {
  newChat: 'toolbelt.newChat',
  newChatWithSummary: 'toolbelt.chat.newWithSummary',
  history: 'toolbelt.chat.history',
  switchModel: 'toolbelt.chat.switchModel',
  setApiKey: 'toolbelt.setApiKey',
  openSettings: 'toolbelt.chat.openSettings',
  openTools: 'toolbelt.tools.focus',
  configureTools: 'toolbelt.tools.configure',
  connectModel: 'toolbelt.chat.connectModel',
  trustWorkspace: 'workbench.trust.manage',
};

/** The chat panel: a webview whose script renders the transcript the ChatController keeps. */
export class ChatViewProvider extends Disposables implements vscode.WebviewViewProvider {
  private view: vscode.WebviewView | undefined;
  /** The listeners of the view shown now, renewed when VS Code resolves it again. */
  private readonly viewListeners = this.register(new DisposableStore());
  private listening = false;
  private ready = false;
  /** Asked for before the panel's script was ready (a view just shown loads it after the focus command returns): done once it says "ready". */
  private readonly onReady = new Set<'focusInput' | 'addContext' | 'history'>();

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly chat: ChatService,
    private readonly log: vscode.LogOutputChannel,
    private readonly review: (requestId: string) => Promise<boolean> = async () => false,
    /** Messages beside the transcript's state that a panel gets when it (re)loads (restricted mode). */
    private readonly panelState: () => HostMessage[] = () => [],
    private readonly history?: ChatHistory,
    private readonly pickContext: (usedChars: number) => Promise<PickedContext> = async () => ({ attachments: [] }),
    private readonly previews?: ApplyPreviews,
    /** What `#` offers at the input, and attaching one of them. */
    private readonly suggestions?: { list(seq: number, query: string): Promise<ContextSuggestion[]>; attach(seq: number, index: number, used: number): Promise<PickedContext> },
  ) {
    super();
    chat.setViewVisibility(() => this.view?.visible === true);
  }

  get visible(): boolean {
    return this.view?.visible === true;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    if (!this.listening) {
      this.listening = true;
      this.register(this.chat.controller.onMessage((message) => this.post(message)));
    }
    // A view resolved again replaces the old one; its listeners go with it.
    this.viewListeners.clear();
    this.view = view;
    this.ready = false;
    const dist = vscode.Uri.joinPath(this.extensionUri, 'dist');
    view.webview.options = { enableScripts: true, localResourceRoots: [dist] };
    view.webview.html = this.html(view.webview, dist);
    this.viewListeners.add(view.webview.onDidReceiveMessage((raw) => this.receive(raw)));
    this.viewListeners.add(
      view.onDidDispose(() => {
        if (this.view !== view) return;
        this.view = undefined;
        this.viewListeners.clear();
      }),
    );
  }

  focusInput(): void {
    this.postOrWait('focusInput');
  }

  notify(message: HostMessage): void {
    this.post(message);
  }

  /** Opens the panel's history list (once the panel's script is ready, when it is just starting). */
  showHistory(): void {
    if (!this.history) return;
    if (this.ready) this.post(this.history.list(true));
    else this.onReady.add('history');
  }

  /** Opens the composer's context picker, as its Add Context button does. */
  addContext(): void {
    this.postOrWait('addContext');
  }

  private postOrWait(type: 'focusInput' | 'addContext'): void {
    if (this.ready) this.post({ type });
    else this.onReady.add(type);
  }

  override dispose(): void {
    super.dispose();
    this.view = undefined;
  }

  /** Every message from the panel ends here; whatever its handling throws is logged, never left unhandled. */
  private receive(raw: unknown): void {
    const message = parseWebviewMessage(raw);
    if (!message) {
      this.log.warn(`Ignored a malformed message from the chat panel: ${JSON.stringify(raw)?.slice(0, 200)}`);
      return;
    }
    this.handle(message).catch((error: unknown) => {
      this.log.error(`The chat panel's "${message.type}" request failed: ${error instanceof Error ? error.message : String(error)}`);
    });
  }

  private async handle(message: WebviewMessage): Promise<void> {
    const controller = this.chat.controller;
    switch (message.type) {
      case 'ready':
        this.ready = true;
        this.post({ type: 'state', state: controller.state() });
        for (const extra of this.panelState()) this.post(extra);
        for (const wanted of this.onReady) this.post(wanted === 'history' && this.history ? this.history.list(true) : { type: wanted as 'focusInput' | 'addContext' });
        this.onReady.clear();
        return;
      case 'send':
        if (controller.busy) {
          this.post({ type: 'reply', id: message.id, ok: false, error: 'A reply is still being written.' });
          return;
        }
        this.post({ type: 'reply', id: message.id, ok: true });
        await controller.send(message.text, message.attachments).catch(() => undefined); // shown in the transcript
        return;
      case 'pickContext': {
        // Always answered, so the composer's button never stays busy.
        const picked = await this.pickContext(message.used).catch((error: unknown) => ({ attachments: [], problem: `Could not attach: ${error instanceof Error ? error.message : String(error)}` }));
        this.post({ type: 'attachments', ...picked });
        return;
      }
      case 'suggestContext': {
        const items = await (this.suggestions?.list(message.seq, message.query) ?? Promise.resolve([])).catch((error: unknown) => {
          this.log.warn(`Could not list what # offers: ${error instanceof Error ? error.message : String(error)}`);
          return [];
        });
        this.post({ type: 'contextSuggestions', seq: message.seq, items });
        return;
      }
      case 'attachSuggestion': {
        const picked = await (this.suggestions?.attach(message.seq, message.index, message.used) ?? Promise.resolve({ attachments: [] })).catch((error: unknown) => ({ attachments: [], problem: `Could not attach: ${error instanceof Error ? error.message : String(error)}` }));
        this.post({ type: 'attachments', ...picked });
        return;
      }
      case 'stop':
        controller.stop();
        return;
      case 'retry':
        await controller.retry().catch(() => undefined);
        return;
      case 'approve':
        controller.decide(message.requestId, message.decision);
        return;
      case 'command':
        // Set API Key from the panel is for the endpoint the chat uses: straight to its key, named.
        await (message.command === 'setApiKey' ? vscode.commands.executeCommand(VIEW_COMMANDS.setApiKey, readSettings().provider) : vscode.commands.executeCommand(VIEW_COMMANDS[message.command]));
        return;
      case 'copy':
        await vscode.env.clipboard.writeText(message.text);
        vscode.window.setStatusBarMessage('$(check) Copied', 2000);
        return;
      case 'openLink':
        await openLink(message.href, this.log);
        return;
      case 'review':
        if (!(await this.review(message.requestId))) this.log.warn('That change is no longer waiting for approval.');
        return;
      case 'undo':
        await controller.undoTurn(message.turnId).then(
          (result) => this.log.info(`Undid a turn: restored ${result.restored.length}, skipped ${result.skipped.length}.`),
          (error: unknown) => this.log.warn(`Undo failed: ${error instanceof Error ? error.message : String(error)}`),
        );
        return;
      case 'compare':
        if (!controller.compare(message.turnId, message.path)) this.log.warn(`Nothing to compare for ${message.path}.`);
        return;
      case 'regenerate':
      case 'editLast':
      case 'continue':
        await runTurnAction(controller, message, this.log);
        return;
      case 'enableAndRetry': {
        // The command says why when it cannot (restricted mode, not registered); then nothing is asked again.
        const enabled = await vscode.commands.executeCommand<{ ok: boolean } | undefined>('toolbelt.enableTool', message.tool);
        if (enabled?.ok && controller.state().turnActions?.regenerate) await runTurnAction(controller, { type: 'regenerate' }, this.log);
        return;
      }
      case 'listChats':
      case 'openChat':
      case 'renameChat':
      case 'deleteChat':
        if (this.history) this.post(await this.history.handle(message));
        return;
      case 'insertCode':
      case 'applyCode':
      case 'newFile':
        if (message.type === 'applyCode' && !this.previews) return;
        await runCodeAction(message, { controller, registry: this.chat.registry, previews: this.previews! }, this.log);
        return;
      case 'applyDecision':
        await this.previews?.decide(message.itemId, message.decision);
        return;
    }
  }

  private post(raw: HostMessage): void {
    const view = this.view;
    if (!view) return;
    const message = this.withToolLabels(raw);
    try {
      view.webview.postMessage(message).then(undefined, (error: unknown) => this.log.warn(`Could not update the chat panel: ${String(error)}`));
    } catch (error) {
      // A view that is being disposed refuses messages; the next one gets the whole state on "ready".
      this.log.warn(`Could not update the chat panel: ${error instanceof Error ? error.message : String(error)}`);
    }
  }

  /** Tool cards carry the name settings give a tool (one name per tool in the UI), not only the one the model used. */
  private withToolLabels(message: HostMessage): HostMessage {
    const label = (item: TranscriptItem): TranscriptItem => {
      if (item.kind !== 'tool' || item.label) return item;
      const name = this.chat.toolLabel(item.name);
      return name ? { ...item, label: name } : item;
    };
    if (message.type === 'item') return { ...message, item: label(message.item) };
    if (message.type === 'state') return { ...message, state: { ...message.state, items: message.state.items.map(label) } };
    return message;
  }

  private html(webview: vscode.Webview, dist: vscode.Uri): string {
    const nonce = randomBytes(16).toString('base64');
    const script = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.js'));
    const style = webview.asWebviewUri(vscode.Uri.joinPath(dist, 'webview.css'));
    const csp = [
      "default-src 'none'",
      `img-src ${webview.cspSource} data:`,
      `style-src ${webview.cspSource}`,
      `font-src ${webview.cspSource}`,
      `script-src 'nonce-${nonce}'`,
    ].join('; ');
    return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link href="${style}" rel="stylesheet">
<title>Toolbelt Chat</title>
</head>
<body>
<div id="toolbelt-chat"></div>
<script nonce="${nonce}" src="${script}"></script>
</body>
</html>`;
  }
}

/**
 * Web links open in the browser; workspace paths open in the editor; anything else is refused.
 * A link the model wrote may be anything: a malformed one is ignored with a log line.
 */
export async function openLink(href: string, log: Pick<vscode.LogOutputChannel, 'warn'>): Promise<void> {
  if (/^https?:\/\//i.test(href) || /^mailto:/i.test(href)) {
    let uri: vscode.Uri;
    try {
      uri = vscode.Uri.parse(href, true);
    } catch (error) {
      log.warn(`Ignored a malformed link from the chat: ${JSON.stringify(href.slice(0, 200))} (${(error as Error).message})`);
      return;
    }
    await vscode.env.openExternal(uri);
    return;
  }
  const folder = vscode.workspace.workspaceFolders?.[0];
  if (!folder || /^[a-z][a-z0-9+.-]*:/i.test(href)) {
    log.warn(`Ignored a link the chat cannot open: ${JSON.stringify(href.slice(0, 200))}`);
    return;
  }
  const [file, line] = href.split('#L');
  let decoded: string;
  try {
    decoded = decodeURIComponent(file);
  } catch {
    log.warn(`Ignored a malformed link from the chat: ${JSON.stringify(href.slice(0, 200))} (bad percent-encoding)`);
    return;
  }
  const target = vscode.Uri.joinPath(folder.uri, path.posix.normalize(decoded).replace(/^(\.\.\/)+/, ''));
  const editor = await vscode.window.showTextDocument(target).then(undefined, () => undefined);
  if (editor && line && Number(line) > 0) {
    const position = new vscode.Position(Number(line) - 1, 0);
    editor.selection = new vscode.Selection(position, position);
    editor.revealRange(new vscode.Range(position, position), vscode.TextEditorRevealType.InCenter);
  }
}
