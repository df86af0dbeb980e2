import * as vscode from 'vscode';
import type { ChatService } from './chatService';
import type { ConversationStore } from './conversationStore';
import { CHAT_VIEW, type ChatViewProvider } from './chatView';
import { connectModel, type ConnectDeps } from './connectModel';
import { switchModel } from './modelSwitcher';

export function registerChatCommands(context: vscode.ExtensionContext, chat: ChatService, store: ConversationStore, view: ChatViewProvider, connect?: ConnectDeps): void {
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
    vscode.commands.registerCommand('toolbelt.chat.switchModel', () => (connect ? switchModel(connect) : false)),
    vscode.commands.registerCommand('toolbelt.chat.connectModel', () => (connect ? connectModel(connect) : false)),
    vscode.commands.registerCommand('toolbelt.chat.openSettings', () => vscode.commands.executeCommand('workbench.action.openSettings', '@ext:toolbelt.toolbelt')),
  );
}
