import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ApiKeys } from '../apiKeys';
import type { SettingsWatcher } from '../settings';
import type { WorkspaceTools } from '../workspaceTools';
import type { ToolContext } from '../../tools/types';
import { pickAttachment, type PickedContext } from './attachmentPicker';
import { readAttachment } from './attachmentReader';
import { ContextSuggestions } from './contextSuggestions';
import { registerChatCommands } from './chatCommands';
import { ChatService } from './chatService';
import { CHAT_VIEW, ChatViewProvider } from './chatView';
import { shutdownFlushes, stateStore } from '../storage';
import { ConversationStore } from './conversationStore';
import { registerReviewDiff } from './reviewDiff';
import { AutoRetry } from './autoRetry';
import { trustMessage } from './restrictedMode';
import { ChatHistory } from './chatHistory';
import { ApplyPreviews } from './applyPreview';
import { registerConfigureTools } from '../configureTools';

/** The chat feature: service, panel and commands. Nothing heavy loads until the first turn. */
export function registerChat(
  context: vscode.ExtensionContext,
  tools: WorkspaceTools,
  keys: ApiKeys,
  watcher: SettingsWatcher,
  log: vscode.LogOutputChannel,
  // The shell registered the view at activation and hands it over (host.ts).
  mount: (view: ChatViewProvider) => vscode.Disposable = (view) => vscode.window.registerWebviewViewProvider(CHAT_VIEW, view),
  /** Roots and sensitive-file rules for attaching context; the workspace's own in the host. */
  toolContext?: ToolContext,
): ChatService {
  const store = new ConversationStore(stateStore(context, 'chats.json'));
  const storage = context.storageUri?.scheme === 'file' ? context.storageUri.fsPath : undefined;
  const chat = new ChatService(tools, keys, store, log, storage && path.join(storage, 'checkpoints'));
  shutdownFlushes.add(chat);
  const pick = (used: number) => (toolContext ? pickAttachment(toolContext, used, log) : Promise.resolve({ attachments: [], problem: 'Context cannot be attached here.' }));
  const trust = () => trustMessage(context.extension.packageJSON);
  const previews = new ApplyPreviews(() => chat.controller, log);
  const suggestions = new ContextSuggestions();
  const suggest = {
    list: (seq: number, query: string) => suggestions.suggest(seq, query),
    attach: async (seq: number, index: number, used: number): Promise<PickedContext> => {
      const target = await suggestions.target(seq, index);
      if (!target || !toolContext) return { attachments: [], problem: 'That suggestion is gone; type # again.' };
      const read = await readAttachment(toolContext, target, used);
      return read.ok ? { attachments: [read.attachment] } : { attachments: [], problem: read.reason };
    },
  };
  const view = new ChatViewProvider(context.extensionUri, chat, log, registerReviewDiff(context, chat, log), () => [trust()], new ChatHistory(chat, store), pick, previews, suggest);
  const autoRetry = new AutoRetry(chat);
  context.subscriptions.push(
    chat,
    previews,
    view,
    mount(view),
    tools.onDidChange(() => chat.started && chat.controller.refreshMeta()),
    watcher.onDidChange((change) => change.chat && chat.started && chat.controller.refreshMeta()),
    vscode.workspace.onDidGrantWorkspaceTrust(() => view.notify(trust())),
    // A key saved by "Set API Key" (or anywhere) is the fix an error card asked for: go on.
    context.secrets.onDidChange(async (event) => {
      if (event.key.startsWith('toolbelt.apiKey.') && (await context.secrets.get(event.key))) autoRetry.retryIfWaiting();
    }),
  );
  registerConfigureTools(context, tools, log);
  registerChatCommands(context, chat, store, view, {
    keys,
    log,
    holdRetries: (work) => autoRetry.hold(work),
    connected: () => autoRetry.retryIfWaiting(),
  });
  context.subscriptions.push(
    vscode.commands.registerCommand('toolbelt.chat.addContext', async () => {
      await vscode.commands.executeCommand(`${CHAT_VIEW}.focus`);
      view.addContext();
    }),
  );
  return chat;
}
