import { vscode } from './shellVscode';
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
  /** Registers the provider of a contributed language-model vendor; undefined where VS Code lacks the API (before 1.104). */
  chatProvider(vendor: string, provider: ChatProviderShape): vscode.Disposable | undefined;
}

interface Contributions {
  languageModelTools?: { name?: unknown }[];
  chatParticipants?: { id?: unknown }[];
}

type Tool = vscode.LanguageModelTool<Record<string, unknown>>;

/**
 * The shell's registrations for VS Code's chat; each loads the host on first use.
 *
 * A tool gets a stand-in only if the workspace's registry names it at activation: VS Code offers
 * none of Toolbelt's tools before the host has set their context keys, and the host registers the
 * others itself when it loads. A window whose workspace does not use Toolbelt so registers none.
 */
export class ChatStandIns implements ChatTargets, vscode.Disposable {
  private readonly standIns = new Set<string>();
  private readonly tools = new Map<string, Tool>();
  private readonly handlers = new Map<string, vscode.ChatRequestHandler>();
  private readonly participants = new Map<string, vscode.ChatParticipant>();
  private readonly registrations: vscode.Disposable[] = [];

  constructor(
    contributes: Contributions | undefined,
    registry: unknown,
    private readonly load: (reason: string) => void,
  ) {
    const named = namedTools(registry);
    for (const name of namesOf(contributes?.languageModelTools, 'name')) if (named.has(name.replace(LM_TOOL_PREFIX, ''))) this.registerTool(name);
    for (const id of namesOf(contributes?.chatParticipants, 'id')) this.registerParticipant(id);
  }

  lmTool(name: string, tool: Tool): vscode.Disposable {
    if (!this.standIns.has(name)) return vscode.lm.registerTool(name, tool);
    this.tools.set(name, tool);
    return new vscode.Disposable(() => this.tools.get(name) === tool && this.tools.delete(name));
  }

  participant(id: string, handler: vscode.ChatRequestHandler): vscode.ChatParticipant {
    const participant = this.participants.get(id);
    if (!participant) throw new Error(`package.json contributes no chat participant "${id}".`);
    this.handlers.set(id, handler);
    return participant;
  }

  /**
   * Registered by the host, not by a stand-in: registering a vendor is the costliest of these
   * (3–5 ms measured), and the host loads 1.5 s after startup anyway and then lists the models.
   */
  chatProvider(vendor: string, provider: ChatProviderShape): vscode.Disposable | undefined {
    const lm = vscode.lm as unknown as { registerLanguageModelChatProvider?(vendor: string, provider: ChatProviderShape): vscode.Disposable };
    return typeof lm.registerLanguageModelChatProvider === 'function' ? lm.registerLanguageModelChatProvider(vendor, provider) : undefined;
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
    this.standIns.add(name);
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

/** How package.json names a builtin for VS Code's chat: `toolbelt_<tool>`. */
const LM_TOOL_PREFIX = /^toolbelt_/;

/** The tool names `toolbelt.tools.registry` holds, read as loosely as the host reads them (bare strings too); the host judges them. */
function namedTools(registry: unknown): Set<string> {
  if (!Array.isArray(registry)) return new Set();
  return new Set(registry.map((entry: unknown) => (typeof entry === 'string' ? entry : (entry as { name?: unknown } | null)?.name)).filter((name): name is string => typeof name === 'string').map((name) => name.trim()));
}

function namesOf(entries: unknown, key: string): string[] {
  if (!Array.isArray(entries)) return [];
  return entries.map((entry: Record<string, unknown>) => entry?.[key]).filter((value): value is string => typeof value === 'string');
}
