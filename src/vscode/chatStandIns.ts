import * as vscode from 'vscode';
import type { ChatProviderShape } from './nativeChat/chatProviderApi';

/**
 * What VS Code's own chat must find registered the moment it activates Toolbelt (a tool call, an
 * `@toolbelt` request, the model picker): the shell registers a stand-in for each contribution
 * of package.json, and the host, once loaded, hands over the real implementation here.
 */
export interface ChatTargets {
  /** The implementation of `toolbelt_<tool>`. */
  lmTool(name: string, tool: vscode.LanguageModelTool<Record<string, unknown>>): vscode.Disposable;
  /** The handler of a contributed participant; returns the participant (icon, follow-ups are set on it). */
  participant(id: string, handler: vscode.ChatRequestHandler): vscode.ChatParticipant;
  /** The provider of a contributed language-model vendor; undefined where VS Code lacks the API (before 1.104). */
  chatProvider(vendor: string, provider: ChatProviderShape): vscode.Disposable | undefined;
}

interface Contributions {
  languageModelTools?: { name?: unknown }[];
  chatParticipants?: { id?: unknown }[];
  languageModelChatProviders?: { vendor?: unknown }[];
}

type Tool = vscode.LanguageModelTool<Record<string, unknown>>;

/** The shell's registrations for VS Code's chat; each loads the host on first use. */
export class ChatStandIns implements ChatTargets, vscode.Disposable {
  private readonly tools = new Map<string, Tool>();
  private readonly handlers = new Map<string, vscode.ChatRequestHandler>();
  private readonly participants = new Map<string, vscode.ChatParticipant>();
  private readonly providers = new Map<string, ProviderStandIn>();
  private readonly registrations: vscode.Disposable[] = [];

  constructor(
    contributes: Contributions | undefined,
    private readonly load: (reason: string) => void,
  ) {
    for (const name of namesOf(contributes?.languageModelTools, 'name')) this.registerTool(name);
    for (const id of namesOf(contributes?.chatParticipants, 'id')) this.registerParticipant(id);
    const lm = vscode.lm as unknown as { registerLanguageModelChatProvider?(vendor: string, provider: ChatProviderShape): vscode.Disposable };
    if (typeof lm.registerLanguageModelChatProvider !== 'function') return;
    for (const vendor of namesOf(contributes?.languageModelChatProviders, 'vendor')) {
      const standIn = new ProviderStandIn(vendor, () => this.load(`VS Code's model picker (${vendor})`));
      this.providers.set(vendor, standIn);
      this.registrations.push(standIn, lm.registerLanguageModelChatProvider(vendor, standIn));
    }
  }

  lmTool(name: string, tool: Tool): vscode.Disposable {
    this.tools.set(name, tool);
    return new vscode.Disposable(() => this.tools.get(name) === tool && this.tools.delete(name));
  }

  participant(id: string, handler: vscode.ChatRequestHandler): vscode.ChatParticipant {
    const participant = this.participants.get(id);
    if (!participant) throw new Error(`package.json contributes no chat participant "${id}".`);
    this.handlers.set(id, handler);
    return participant;
  }

  chatProvider(vendor: string, provider: ChatProviderShape): vscode.Disposable | undefined {
    const standIn = this.providers.get(vendor);
    if (!standIn) return undefined;
    standIn.attach(provider);
    return new vscode.Disposable(() => standIn.detach(provider));
  }

  dispose(): void {
    vscode.Disposable.from(...this.registrations.splice(0)).dispose();
  }

  private registerTool(name: string): void {
    const target = (): Tool => {
      this.load(`VS Code's chat (${name})`);
      const tool = this.tools.get(name);
      if (!tool) throw new Error(`Toolbelt has no implementation of ${name}.`);
      return tool;
    };
    const standIn: Tool = {
      prepareInvocation: (options, token) => target().prepareInvocation?.(options, token),
      invoke: (options, token) => target().invoke(options, token),
    };
    this.registrations.push(vscode.lm.registerTool(name, standIn));
  }

  private registerParticipant(id: string): void {
    const participant = vscode.chat.createChatParticipant(id, (request, context, stream, token) => {
      this.load(`@${request.command ?? id}`);
      const handler = this.handlers.get(id);
      if (!handler) throw new Error(`Toolbelt has no handler for ${id}.`);
      return handler(request, context, stream, token);
    });
    this.participants.set(id, participant);
    this.registrations.push(participant);
  }
}

/** A vendor's provider until the host attaches the real one; asking for its models loads the host. */
class ProviderStandIn implements ChatProviderShape, vscode.Disposable {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeLanguageModelChatInformation = this.changed.event;
  private target: ChatProviderShape | undefined;
  private forwarding: vscode.Disposable | undefined;

  constructor(
    private readonly vendor: string,
    private readonly load: () => void,
  ) {}

  attach(target: ChatProviderShape): void {
    this.forwarding?.dispose();
    this.target = target;
    this.forwarding = target.onDidChangeLanguageModelChatInformation?.(() => this.changed.fire());
    this.changed.fire();
  }

  detach(target: ChatProviderShape): void {
    if (this.target !== target) return;
    this.forwarding?.dispose();
    this.target = undefined;
  }

  provideLanguageModelChatInformation(...args: Parameters<ChatProviderShape['provideLanguageModelChatInformation']>) {
    return this.provider().provideLanguageModelChatInformation(...args);
  }

  provideLanguageModelChatResponse(...args: Parameters<ChatProviderShape['provideLanguageModelChatResponse']>) {
    return this.provider().provideLanguageModelChatResponse(...args);
  }

  provideTokenCount(...args: Parameters<ChatProviderShape['provideTokenCount']>) {
    return this.provider().provideTokenCount(...args);
  }

  dispose(): void {
    this.forwarding?.dispose();
    this.changed.dispose();
  }

  private provider(): ChatProviderShape {
    this.load();
    if (!this.target) throw new Error(`Toolbelt gave the ${this.vendor} models no provider.`);
    return this.target;
  }
}

function namesOf(entries: unknown, key: string): string[] {
  if (!Array.isArray(entries)) return [];
  return entries.map((entry: Record<string, unknown>) => entry?.[key]).filter((value): value is string => typeof value === 'string');
}
