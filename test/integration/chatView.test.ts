import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { HostMessage } from '../../src/protocol';
import type { ChatService } from '../../src/vscode/chat/chatService';
import { ChatViewProvider } from '../../src/vscode/chat/chatView';
import { activateToolbelt, waitFor } from './helpers';

/** A webview view the test drives: it posts messages as the panel would and counts live listeners. */
class FakeView {
  readonly received: HostMessage[] = [];
  private readonly messageListeners = new Set<(message: unknown) => void>();
  private readonly disposeListeners = new Set<() => void>();
  visible = true;
  readonly webview = {
    options: {},
    html: '',
    cspSource: 'vscode-resource:',
    asWebviewUri: (uri: vscode.Uri) => uri,
    onDidReceiveMessage: (listener: (message: unknown) => void) => this.listen(this.messageListeners, listener),
    postMessage: async (message: HostMessage) => (this.received.push(message), true),
  };

  onDidDispose(listener: () => void): vscode.Disposable {
    return this.listen(this.disposeListeners, listener);
  }

  get listeners(): number {
    return this.messageListeners.size + this.disposeListeners.size;
  }

  postFromPanel(message: unknown): void {
    for (const listener of [...this.messageListeners]) listener(message);
  }

  dispose(): void {
    for (const listener of [...this.disposeListeners]) listener();
  }

  private listen<T>(set: Set<T>, listener: T): vscode.Disposable {
    set.add(listener);
    return new vscode.Disposable(() => set.delete(listener));
  }
}

/** Collects what the view logs. */
function recordingLog(): vscode.LogOutputChannel & { lines: string[] } {
  const lines: string[] = [];
  const record = (level: string) => (message: string | Error) => void lines.push(`${level} ${String(message)}`);
  return { lines, warn: record('warn'), error: record('error'), info: record('info'), debug: record('debug'), trace: record('trace') } as unknown as vscode.LogOutputChannel & {
    lines: string[];
  };
}

/** Just enough of a chat service for the view; `state()` throws on demand to prove the view catches. */
function fakeChat(failState: { value: boolean }): ChatService {
  const controller = {
    onMessage: () => ({ dispose: () => undefined }),
    state: () => {
      if (failState.value) throw new Error('state exploded');
      return { conversationId: 'c', title: '', items: [], busy: false, provider: 'openai', model: 'm', activeTools: [] };
    },
    busy: false,
  };
  return { controller, setViewVisibility: () => undefined } as unknown as ChatService;
}

describe('Chat view in a real extension host (webview messages and listeners)', () => {
  let provider: ChatViewProvider;
  let log: ReturnType<typeof recordingLog>;
  const failState = { value: false };

  before(async () => {
    await activateToolbelt();
    log = recordingLog();
    provider = new ChatViewProvider(vscode.Uri.file('/tmp/toolbelt-ext'), fakeChat(failState), log);
  });

  after(() => provider.dispose());

  it('ignores a malformed link from the panel with a log line, and the host stays healthy', async () => {
    const view = new FakeView();
    provider.resolveWebviewView(view as unknown as vscode.WebviewView);
    for (const href of ['a%FFb', 'src/%E0%A4%A.ts#L1', '%', 'https://exa mple.com/%zz', 'javascript:alert(1)', 'file:///etc/passwd']) {
      view.postFromPanel({ type: 'openLink', href });
    }
    await waitFor(() => log.lines.filter((l) => l.startsWith('warn Ignored')).length >= 4, 'a log line per refused link');
    assert.match(log.lines.join('\n'), /Ignored a malformed link from the chat: "a%FFb"/);
    assert.equal(
      vscode.window.visibleTextEditors.some((e) => e.document.uri.scheme === 'file' && /passwd/.test(e.document.uri.fsPath)),
      false,
      'nothing outside the workspace was opened',
    );
    // The view still answers afterwards.
    view.postFromPanel({ type: 'ready' });
    await waitFor(() => view.received.some((m) => m.type === 'state'), 'a state message after ready');
  });

  it('opens a well-formed workspace link at its line', async () => {
    const view = new FakeView();
    provider.resolveWebviewView(view as unknown as vscode.WebviewView);
    view.postFromPanel({ type: 'openLink', href: 'src/hello.ts#L2' });
    const editor = await waitFor(() => vscode.window.visibleTextEditors.find((e) => e.document.uri.path.endsWith('/src/hello.ts')), 'hello.ts open');
    assert.equal(editor.selection.active.line, 1);
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
  });

  it('logs a handler that throws instead of leaving an unhandled rejection', async () => {
    const view = new FakeView();
    provider.resolveWebviewView(view as unknown as vscode.WebviewView);
    failState.value = true;
    view.postFromPanel({ type: 'ready' });
    await waitFor(() => log.lines.some((l) => /error The chat panel's "ready" request failed: state exploded/.test(l)), 'the logged failure');
    failState.value = false;
  });

  it('disposes each view’s listeners with the view; resolving again does not add up', () => {
    const views = Array.from({ length: 5 }, () => new FakeView());
    for (const view of views) provider.resolveWebviewView(view as unknown as vscode.WebviewView);
    assert.deepEqual(
      views.map((v) => v.listeners),
      [0, 0, 0, 0, 2],
      'only the current view holds listeners',
    );
    views[4].dispose();
    assert.equal(views[4].listeners, 0, 'disposing the view removes its listeners');
    const last = new FakeView();
    provider.resolveWebviewView(last as unknown as vscode.WebviewView);
    provider.dispose();
    assert.equal(last.listeners, 0, 'disposing the provider removes the current view’s listeners');
  });
});
