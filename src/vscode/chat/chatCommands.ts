import * as vscode from 'vscode';
import { DEFAULT_MODELS } from '../../providers/defaults';
import { PROVIDER_NAMES, type ProviderName } from '../../providers/providerNames';
import { readSettings, SECTION } from '../settings';
import type { ChatService } from './chatService';
import type { ConversationStore } from './conversationStore';
import { CHAT_VIEW, type ChatViewProvider } from './chatView';
import { modelIdOf, otherChatModels } from './vscodeModels';

export function registerChatCommands(context: vscode.ExtensionContext, chat: ChatService, store: ConversationStore, view: ChatViewProvider): void {
  const focus = async () => {
    await vscode.commands.executeCommand(`${CHAT_VIEW}.focus`);
    view.focusInput();
  };
  context.subscriptions.push(
    vscode.commands.registerCommand('toolbelt.openChat', focus),
    vscode.commands.registerCommand('toolbelt.newChat', async () => {
      chat.controller.newConversation();
      await focus();
    }),
    vscode.commands.registerCommand('toolbelt.chat.newWithSummary', async () => {
      chat.controller.newConversationWithSummary();
      await focus();
    }),
    vscode.commands.registerCommand('toolbelt.undoLastTurn', async () => {
      try {
        const result = await chat.controller.undoLastTurn();
        const said = result.restored.length || result.skipped.length
          ? `restored ${result.restored.length} file(s)${result.skipped.length ? `, skipped ${result.skipped.length} you changed since: ${result.skipped.join(', ')}` : ''}.`
          : 'no turn of this chat has changes left to undo.';
        void vscode.window.showInformationMessage(`Toolbelt: ${said}`);
        return result;
      } catch (error) {
        void vscode.window.showWarningMessage(`Toolbelt: ${error instanceof Error ? error.message : String(error)}`);
        return { restored: [], skipped: [] };
      }
    }),
    vscode.commands.registerCommand('toolbelt.chat.stop', () => chat.controller.stop()),
    vscode.commands.registerCommand('toolbelt.chat.history', async () => {
      const current = chat.controller.conversationId;
      const items = store.list().map((c) => ({
        id: c.id,
        label: c.title,
        description: c.id === current ? 'current' : new Date(c.updatedAt).toLocaleString(),
        detail: `${c.messages.filter((m) => m.role === 'user').length} messages`,
      }));
      if (items.length === 0) {
        void vscode.window.showInformationMessage('Toolbelt: no earlier chats in this workspace.');
        return;
      }
      const picked = await vscode.window.showQuickPick(items, { title: 'Open an earlier chat', matchOnDescription: true });
      const conversation = picked && store.get(picked.id);
      if (conversation) {
        chat.controller.load(conversation);
        await focus();
      }
    }),
    vscode.commands.registerCommand('toolbelt.chat.showHistory', async () => {
      await vscode.commands.executeCommand(`${CHAT_VIEW}.focus`);
      view.showHistory();
    }),
    vscode.commands.registerCommand('toolbelt.chat.clearHistory', async (confirmed?: unknown) => {
      if (confirmed !== true) {
        const answer = await vscode.window.showWarningMessage('Delete every chat of this workspace?', { modal: true }, 'Delete');
        if (answer !== 'Delete') return false;
      }
      await store.clear();
      chat.controller.newConversation();
      return true;
    }),
    vscode.commands.registerCommand('toolbelt.chat.switchModel', async () => {
      const settings = readSettings();
      const provider = await vscode.window.showQuickPick(
        PROVIDER_NAMES.map((name) => ({ label: name, description: name === settings.provider ? `current · ${settings.model || DEFAULT_MODELS[name]}` : DEFAULT_MODELS[name] })),
        { title: 'Chat with…' },
      );
      if (!provider) return;
      const name = provider.label as ProviderName;
      const model = name === 'vscode' ? await pickVsCodeModel(settings.model) : await vscode.window.showInputBox({
        title: `${name} model`,
        value: name === settings.provider ? settings.model || DEFAULT_MODELS[name] : DEFAULT_MODELS[name],
        prompt: 'The model name as the service knows it.',
      });
      if (model === undefined) return;
      await updateSetting('provider', name);
      await updateSetting('model', model.trim());
    }),
    vscode.commands.registerCommand('toolbelt.chat.openSettings', () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:toolbelt.toolbelt')),
  );
}

/** VS Code's chat models (Copilot's, other extensions') as a list to pick from; `<vendor>/<id>`. */
async function pickVsCodeModel(current: string): Promise<string | undefined> {
  const models = await otherChatModels();
  if (models.length === 0) {
    void vscode.window.showWarningMessage('VS Code offers no chat model now: sign in to a model provider (e.g. GitHub Copilot) first.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    models.map((model) => ({ label: modelIdOf(model), description: `${model.name}${modelIdOf(model) === current ? ' · current' : ''}` })),
    { title: "VS Code's model" },
  );
  return picked?.label;
}

/** Writes where the value is defined now: the workspace if it sets it, the user settings otherwise. */
async function updateSetting(key: string, value: string): Promise<void> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const inspected = config.inspect(key);
  const target = inspected?.workspaceValue !== undefined && vscode.workspace.isTrusted ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update(key, value, target);
}
