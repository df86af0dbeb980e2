import { FakeDisposable as Disposable } from './fakeDisposable';

type Handler = (...args: unknown[]) => unknown;
export type FakeTool = { invoke(options: unknown, token: unknown): unknown; prepareInvocation?(options: unknown, token: unknown): unknown };

class EventEmitter<T> {
  private readonly listeners: ((value: T) => void)[] = [];
  readonly event = (listener: (value: T) => void) => (this.listeners.push(listener), new Disposable(() => this.listeners.splice(this.listeners.indexOf(listener), 1)));
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners.length = 0;
  }
}

/**
 * The part of VS Code's API the shell's stand-ins (src/vscode/standIns.ts) and the host's
 * handover (src/vscode/shellHandover.ts) use, recording every registration; `registry` is what
 * `toolbelt.tools.registry` reads.
 */
export function fakeShellVscode(registry?: unknown) {
  const commands = new Map<string, Handler>();
  const tools = new Map<string, FakeTool>();
  const participants = new Map<string, { id: string; handler: Handler; dispose(): void }>();
  const trees = new Map<string, { treeDataProvider: { getChildren(e?: unknown): unknown; getTreeItem(e: unknown): unknown; onDidChangeTreeData?: (l: (v: unknown) => void) => unknown }; manageCheckboxStateManually?: boolean }>();
  const webviews = new Map<string, { resolveWebviewView(view: unknown, state: unknown, token: unknown): unknown }>();
  const api = {
    Disposable,
    EventEmitter,
    window: {
      createTreeView(id: string, options: typeof trees extends Map<string, infer O> ? O : never) {
        trees.set(id, options);
        return { id, dispose: () => trees.delete(id) };
      },
      registerWebviewViewProvider(id: string, provider: typeof webviews extends Map<string, infer P> ? P : never) {
        webviews.set(id, provider);
        return new Disposable(() => webviews.delete(id));
      },
      showErrorMessage: async () => undefined,
    },
    commands: {
      registerCommand(id: string, handler: Handler) {
        if (commands.has(id)) throw new Error(`command '${id}' already exists`);
        commands.set(id, handler);
        return new Disposable(() => commands.get(id) === handler && commands.delete(id));
      },
      async executeCommand(id: string, ...args: unknown[]) {
        const handler = commands.get(id);
        if (!handler) throw new Error(`command '${id}' not found`);
        return handler(...args);
      },
    },
    workspace: { getConfiguration: (section: string) => ({ get: (key: string) => (section === 'toolbelt' && key === 'tools.registry' ? registry : undefined) }) },
    lm: {
      registerTool(name: string, tool: FakeTool) {
        if (tools.has(name)) throw new Error(`${name} is registered twice`);
        tools.set(name, tool);
        return new Disposable(() => tools.delete(name));
      },
    },
    chat: {
      createChatParticipant(id: string, handler: Handler) {
        const participant = { id, handler, dispose: () => participants.delete(id) };
        participants.set(id, participant);
        return participant;
      },
    },
  };
  return { api, commands, tools, participants, trees, webviews };
}
