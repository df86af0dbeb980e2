import type { StateStore } from '../jsonStateFile';
import { forStorage, pruneConversations, type StoredConversation } from '../../chat/conversation';

const CONVERSATIONS_KEY = 'toolbelt.chat.conversations';
const ACTIVE_KEY = 'toolbelt.chat.activeConversation';
const MAX_CONVERSATIONS = 30;

/** Chats kept per workspace (workspace state), so they survive a window reload. */
export class ConversationStore {
  constructor(private readonly state: StateStore) {}

  list(): StoredConversation[] {
    const stored = this.state.get<StoredConversation[]>(CONVERSATIONS_KEY, []);
    return Array.isArray(stored) ? stored.filter(isConversation).sort((a, b) => b.updatedAt - a.updatedAt) : [];
  }

  get(id: string): StoredConversation | undefined {
    return this.list().find((c) => c.id === id);
  }

  active(): StoredConversation | undefined {
    const id = this.state.get<string | undefined>(ACTIVE_KEY, undefined);
    return id ? this.get(id) : undefined;
  }

  /** Saves a conversation and makes it the active one; empty chats are not kept in the list. */
  async save(conversation: StoredConversation): Promise<void> {
    const others = this.list().filter((c) => c.id !== conversation.id);
    const kept = conversation.messages.length > 0 || conversation.items.length > 0 ? [forStorage(conversation), ...others] : others;
    // Both updates are queued at once, so a flush that starts now sees both.
    await Promise.all([this.state.update(CONVERSATIONS_KEY, pruneConversations(kept, MAX_CONVERSATIONS)), this.state.update(ACTIVE_KEY, conversation.id)]);
  }

  /** Renames a stored chat; false when there is none with that id. */
  async rename(id: string, title: string): Promise<boolean> {
    const all = this.list();
    const found = all.find((c) => c.id === id);
    if (!found) return false;
    found.title = title;
    await this.state.update(CONVERSATIONS_KEY, all);
    return true;
  }

  /** Deletes a stored chat; when it was the active one, no chat is active any more. */
  async delete(id: string): Promise<boolean> {
    const all = this.list();
    if (!all.some((c) => c.id === id)) return false;
    const active = this.state.get<string | undefined>(ACTIVE_KEY, undefined) === id;
    await Promise.all([this.state.update(CONVERSATIONS_KEY, all.filter((c) => c.id !== id)), active ? this.state.update(ACTIVE_KEY, undefined) : undefined]);
    return true;
  }

  async clear(): Promise<void> {
    await Promise.all([this.state.update(CONVERSATIONS_KEY, []), this.state.update(ACTIVE_KEY, undefined)]);
  }
}

function isConversation(value: unknown): value is StoredConversation {
  const c = value as StoredConversation;
  return !!c && typeof c.id === 'string' && Array.isArray(c.messages) && Array.isArray(c.items) && typeof c.updatedAt === 'number';
}
