import { FakeDisposable as Disposable } from './fakeDisposable';

type Listener<T> = (value: T) => void;

class EventEmitter<T> {
  private readonly listeners: Listener<T>[] = [];
  readonly event = (listener: Listener<T>) => (this.listeners.push(listener), new Disposable(() => this.listeners.splice(this.listeners.indexOf(listener), 1)));
  fire(value: T): void {
    for (const listener of [...this.listeners]) listener(value);
  }
  dispose(): void {
    this.listeners.length = 0;
  }
  get listening(): number {
    return this.listeners.length;
  }
}

export interface FakeModelProvider {
  provideLanguageModelChatInformation(options: { silent: boolean }, token: unknown): { id: string; name: string }[];
  onDidChangeLanguageModelChatInformation?: (listener: () => void) => { dispose(): void };
}

/**
 * The part of VS Code's API presence (src/vscode/nativeChat/presence.ts) uses: settings by their
 * full name (`toolbelt.tools.registry`) that a test can change, workspace trust it can grant,
 * every `setContext` recorded, and the language-model vendors registered. `withChatProviders:
 * false` is a VS Code older than 1.104.
 */
export function fakePresenceVscode(options: { settings?: Record<string, unknown>; trusted?: boolean; withChatProviders?: boolean } = {}) {
  const settings = { ...options.settings };
  const configurationChanged = new EventEmitter<{ affectsConfiguration(section: string): boolean }>();
  const trustGranted = new EventEmitter<void>();
  /** Every setContext call in order, and the values they left. */
  const contextCalls: [string, unknown][] = [];
  const contextKeys = new Map<string, unknown>();
  const vendors = new Map<string, FakeModelProvider>();
  const modelsAskedFor: unknown[] = [];
  let failSetContext = false;
  const lm: Record<string, unknown> = {
    selectChatModels: async (selector: { vendor: string }) => {
      modelsAskedFor.push(selector);
      return vendors.get(selector.vendor)?.provideLanguageModelChatInformation({ silent: true }, undefined) ?? [];
    },
  };
  if (options.withChatProviders ?? true) {
    lm.registerLanguageModelChatProvider = (vendor: string, provider: FakeModelProvider) => {
      if (vendors.has(vendor)) throw new Error(`vendor ${vendor} is registered twice`);
      vendors.set(vendor, provider);
      return new Disposable(() => vendors.delete(vendor));
    };
  }
  const api = {
    version: '1.139.1-fake',
    Disposable,
    EventEmitter,
    workspace: {
      isTrusted: options.trusted ?? true,
      getConfiguration: (section: string) => ({
        get: (key: string, fallback?: unknown) => settings[`${section}.${key}`] ?? fallback,
        inspect: () => undefined,
      }),
      onDidChangeConfiguration: configurationChanged.event,
      onDidGrantWorkspaceTrust: trustGranted.event,
    },
    commands: {
      async executeCommand(id: string, key: string, value: unknown) {
        if (id !== 'setContext') throw new Error(`command '${id}' not found`);
        if (failSetContext) throw new Error('the renderer is gone');
        contextCalls.push([key, value]);
        contextKeys.set(key, value);
      },
    },
    lm,
  };
  return {
    api,
    contextCalls,
    contextKeys,
    vendors,
    modelsAskedFor,
    /** The configuration listeners registered now (the settings watcher's among them). */
    configurationListeners: () => configurationChanged.listening,
    /** Changes a setting and fires the configuration event as VS Code does. */
    setSetting(name: string, value: unknown): void {
      settings[name] = value;
      configurationChanged.fire({ affectsConfiguration: (section) => name === section || name.startsWith(`${section}.`) });
    },
    grantTrust(): void {
      api.workspace.isTrusted = true;
      trustGranted.fire();
    },
    failSetContext(fail: boolean): void {
      failSetContext = fail;
    },
  };
}

/** The `toolbelt.tool.<name>.offered` keys set to true, by tool name, sorted. */
export function offeredKeys(contextKeys: Map<string, unknown>): string[] {
  return [...contextKeys].filter(([, value]) => value === true).map(([key]) => key.replace(/^toolbelt\.tool\.(.*)\.offered$/, '$1')).sort();
}
