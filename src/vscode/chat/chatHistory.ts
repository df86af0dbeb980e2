import type { ChatController } from '../../chat/chatController';
import type { HostMessage, WebviewMessage } from '../../protocol';
import type { ConversationStore } from './conversationStore';

type HistoryRequest = Extract<WebviewMessage, { type: 'listChats' | 'openChat' | 'renameChat' | 'deleteChat' }>;

/**
 * The panel's history list on the host side: the workspace's chats, and open, rename and delete
 * on them. Opening another chat or deleting the current one waits until no reply is being
 * written (a running turn belongs to the chat it started in).
 */
export class ChatHistory {
  constructor(
    private readonly chat: { readonly controller: ChatController },
    private readonly store: ConversationStore,
  ) {}

  /** The list as it is now. */
  list(show: boolean, problem?: string): Extract<HostMessage, { type: 'history' }> {
    const entries = this.store.list().map((c) => ({ id: c.id, title: c.title, updatedAt: c.updatedAt, messages: c.items.filter((i) => i.kind === 'user').length }));
    return { type: 'history', entries, currentId: this.chat.controller.conversationId, show, ...(problem ? { problem } : {}) };
  }

  /** Carries out one request of the list; answers with the list as it is afterwards. */
  async handle(request: HistoryRequest): Promise<Extract<HostMessage, { type: 'history' }>> {
    const controller = this.chat.controller;
    const current = request.type !== 'listChats' && request.chatId === controller.conversationId;
    switch (request.type) {
      case 'listChats':
        return this.list(true);
      case 'openChat': {
        if (current) return this.list(false);
        const conversation = this.store.get(request.chatId);
        if (!conversation) return this.list(true, 'That chat is no longer stored.');
        if (controller.busy) return this.list(true, 'A reply is still being written: stop it or wait for it before opening another chat.');
        controller.load(conversation);
        return this.list(false);
      }
      case 'renameChat':
        if (current) {
          // The live conversation is the one the next save writes: rename it there.
          const conversation = controller.snapshot();
          conversation.title = request.title;
          await this.store.save(conversation);
        } else if (!(await this.store.rename(request.chatId, request.title))) {
          return this.list(true, 'That chat is no longer stored.');
        }
        return this.list(true);
      case 'deleteChat':
        if (current) {
          if (controller.busy) return this.list(true, 'A reply is still being written: stop it or wait for it before deleting this chat.');
          controller.newConversation(); // saves the current chat once more; the delete below follows it
        }
        await this.store.delete(request.chatId);
        return this.list(true);
    }
  }
}
