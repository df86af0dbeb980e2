import { createHash } from 'node:crypto';
import * as vscode from 'vscode';
import { DEFAULT_SYSTEM_PROMPT } from '../../agent/prompt';
import { ChatController, ChatSetupError, type ChatEnvironment, type TurnSetup } from '../../chat/chatController';
import { endpointLabel, endpointOf } from '../../providers/endpoints';
import { DEFAULT_MODELS } from '../../providers/defaults';
import { providerDisplayName } from '../../providers/errors';
import type { ChatProvider } from '../../providers/types';
import type { ApiKeys } from '../apiKeys';
import { providerSettingsOf } from '../../providers/chatSettings';
import { readSettings } from '../settings';
import type { WorkspaceTools } from '../workspaceTools';
import type { StoredConversation } from '../../chat/conversation';
import type { ContextMeter } from '../../protocol';
import type { ConversationStore } from './conversationStore';
import { openCheckpoints } from '../callGroups';
import { loadChatRuntime } from './runtimeLoader';
import { vscodeModelProvider } from './vscodeModels';
import { emptyDocument } from './applyPreview';

/**
 * The chat as the editor hosts it: a ChatController whose provider, key, prompt and limits
 * come from settings and SecretStorage at the start of every turn, and whose conversations
 * live in workspace state.
 */
export class ChatService implements vscode.Disposable {
  private instance: ChatController | undefined;
  private readonly env: ChatEnvironment;
  private provider: { key: string; instance: ChatProvider } | undefined;
  private viewVisible = () => false;
  private readonly saving = new Set<Promise<void>>();

  constructor(
    private readonly tools: WorkspaceTools,
    private readonly keys: ApiKeys,
    private readonly store: ConversationStore,
    private readonly log: vscode.LogOutputChannel,
    /** Where undo records live (the workspace storage folder); none without a workspace. */
    checkpointsDir?: string,
  ) {
    this.env = {
      registry: tools.manager.registry,
      setup: () => this.setup(),
      loadAgent: async () => loadChatRuntime().Agent,
      save: (conversation) => this.save(conversation),
      activeTools: () => tools.manager.registry.getEnabledSchemas().map((s) => s.function.name),
      // The header names where the model runs: the server's host for a custom endpoint, not "openai".
      describeModel: () => {
        const settings = readSettings();
        return { provider: providerDisplayName(settings.provider, settings.baseUrl), model: settings.model || DEFAULT_MODELS[settings.provider] };
      },
      checkpoints: checkpointsDir ? () => openCheckpoints(checkpointsDir) : undefined,
      compare: (before, current, title) => {
        void vscode.commands
          .executeCommand('vscode.diff', before ? vscode.Uri.file(before) : emptyDocument(current), vscode.Uri.file(current), title, { preview: true })
          .then(undefined, (error: unknown) => this.log.warn(`Could not open the comparison: ${String(error)}`));
      },
      confirmProtectedUndo: async (paths) => {
        const choice = await vscode.window.showWarningMessage(
          'Toolbelt: undo changes protected paths',
          { modal: true, detail: `Undoing this turn puts back ${paths.join(', ')}, which hold the repository or workspace settings.` },
          'Undo Them Too',
        );
        return choice === 'Undo Them Too';
      },
      log: (message) => this.log.warn(message),
      onApprovalRequested: (summary, decide) => {
        if (this.viewVisible()) return;
        vscode.window.showWarningMessage(`Toolbelt wants to: ${summary}`, 'Allow', 'Deny').then(
          (choice) => choice && decide(choice === 'Allow' ? 'allow' : 'deny'),
          (error: unknown) => this.log.error(`Could not ask for approval: ${String(error)}`),
        );
      },
    };
  }

  /** Made on first use: restoring the last chat reads the history file, which activation should not wait for. */
  get controller(): ChatController {
    this.instance ??= new ChatController(this.env, this.store.active());
    return this.instance;
  }

  /** The name settings give a tool the model knows by another (`tickets/lookup_ticket` for `tickets_lookup_ticket`): one name per tool in the panel. */
  toolLabel(modelName: string): string | undefined {
    const tool = this.tools.list().find((t) => t.modelName === modelName && t.name !== modelName);
    return tool?.name;
  }

  /** The workspace's tool registry (Apply to File writes through its write_file). */
  get registry(): WorkspaceTools['manager']['registry'] {
    return this.tools.manager.registry;
  }

  get started(): boolean {
    return this.instance !== undefined;
  }

  /** Lets approvals fall back to a notification while the panel is hidden. */
  setViewVisibility(isVisible: () => boolean): void {
    this.viewVisible = isVisible;
  }

  send(text: string): Promise<string> {
    return this.controller.send(text);
  }

  undoLastTurn(): Promise<{ restored: string[]; skipped: string[] }> {
    return this.controller.undoLastTurn();
  }

  context(): ContextMeter | undefined {
    return this.controller.state().context;
  }

  dispose(): void {
    this.instance?.stop();
  }

  /**
   * For shutdown: stops a running turn, saves the chat as it stands and waits for every save
   * in flight (the stopped turn saves once more when it ends; that one is awaited too).
   */
  async flush(): Promise<void> {
    const controller = this.instance;
    if (controller) {
      const ended = controller.busy ? turnEnded(controller, 1000) : undefined;
      controller.stop();
      await ended; // the turn's own save, with the model's part of the history
      this.save(controller.snapshot());
    }
    while (this.saving.size > 0) await Promise.all([...this.saving]);
  }

  private save(conversation: StoredConversation): void {
    const saved: Promise<void> = this.store.save(conversation).then(
      () => undefined,
      (error: Error) => this.log.error(`Could not save the chat: ${error.message}`),
    );
    this.saving.add(saved);
    void saved.finally(() => this.saving.delete(saved));
  }

  private async setup(): Promise<TurnSetup> {
    // MCP servers a registered tool needs start now (asking first where their definition is new).
    await this.tools.startNeeded();
    const settings = readSettings();
    if (settings.provider === 'vscode') {
      // A model of VS Code's (Copilot's, another extension's): chosen afresh each turn, as sign-ins come and go.
      return { provider: await vscodeModelProvider(settings.model), systemPrompt: settings.systemPrompt.trim() || DEFAULT_SYSTEM_PROMPT, maxToolRounds: settings.maxToolRounds };
    }
    // One key per endpoint; a custom server (LM Studio, vLLM) is asked without one and says so with a 401 if it wants one.
    const endpoint = endpointOf(settings.provider, settings.baseUrl);
    const apiKey = await this.keys.get(endpoint);
    if (!apiKey && this.keys.needsKey(endpoint)) {
      const variable = this.keys.environmentVariable(endpoint);
      throw new ChatSetupError(
        `No ${endpointLabel(endpoint)} API key is set. Use "Toolbelt: Set API Key"${variable ? ` or the ${variable} environment variable` : ''}, or switch to Ollama, which needs none.`,
        'setApiKey',
      );
    }
    const config = { ...providerSettingsOf(settings, settings.provider), apiKey };
    const key = createHash('sha256').update(JSON.stringify(config)).digest('hex');
    if (this.provider?.key !== key) {
      this.provider = { key, instance: loadChatRuntime().createProvider(config) };
      this.log.info(`Chat uses ${config.provider} · ${config.model}${config.baseUrl ? ` at ${config.baseUrl}` : ''}.`);
    }
    return {
      provider: this.provider.instance,
      systemPrompt: settings.systemPrompt.trim() || DEFAULT_SYSTEM_PROMPT,
      maxToolRounds: settings.maxToolRounds,
    };
  }
}

/** Resolves when the running turn has ended (and saved), or after `timeoutMs`. */
function turnEnded(controller: ChatController, timeoutMs: number): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      clearTimeout(timer);
      subscription.dispose();
      resolve();
    };
    const timer = setTimeout(done, timeoutMs);
    const subscription = controller.onMessage((message) => message.type === 'busy' && !message.busy && done());
  });
}
