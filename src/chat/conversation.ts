import type { ChatMessage } from '../providers/types';
import type { ContextMeter, TranscriptItem } from '../protocol';

/** A chat as it is kept between window reloads: what the model saw, and what the person saw. */
export interface StoredConversation {
  id: string;
  title: string;
  createdAt: number;
  updatedAt: number;
  messages: ChatMessage[];
  items: TranscriptItem[];
  /** Context use of the latest request. */
  context?: ContextMeter;
}

/** Tool results longer than this are cut in storage; the model already read them whole. */
const STORED_RESULT_CHARS = 20_000;
const TITLE_CHARS = 60;

export function newConversation(now = Date.now()): StoredConversation {
  return { id: `chat-${now.toString(36)}-${Math.random().toString(36).slice(2, 8)}`, title: 'New chat', createdAt: now, updatedAt: now, messages: [], items: [] };
}

export function titleFrom(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > TITLE_CHARS ? `${flat.slice(0, TITLE_CHARS - 1)}…` : flat || 'New chat';
}

/** A copy fit for storage: long tool results cut, nothing left streaming or waiting. */
export function forStorage(conversation: StoredConversation): StoredConversation {
  return {
    ...conversation,
    messages: conversation.messages.map((m) => (m.role === 'tool' && m.content.length > STORED_RESULT_CHARS ? { ...m, content: cut(m.content) } : m)),
    items: conversation.items.map(settle),
  };
}

/** After a reload nothing is running any more: a card that was running says so. */
function settle(item: TranscriptItem): TranscriptItem {
  if (item.kind === 'assistant' && item.streaming) return { ...item, streaming: false };
  if (item.kind === 'tool' && (item.status === 'running' || item.status === 'pending' || item.status === 'awaiting_approval')) {
    return { ...item, status: 'cancelled', approval: undefined, result: item.result ?? 'Interrupted.' };
  }
  if (item.kind === 'tool' && item.result && item.result.length > STORED_RESULT_CHARS) return { ...item, result: cut(item.result), resultTruncated: true };
  return item;
}

function cut(text: string): string {
  return `${text.slice(0, STORED_RESULT_CHARS)}\n[… ${text.length - STORED_RESULT_CHARS} more characters not kept]`;
}

/** Oldest first out: at most `limit` conversations are kept. */
export function pruneConversations(conversations: StoredConversation[], limit: number): StoredConversation[] {
  return [...conversations].sort((a, b) => b.updatedAt - a.updatedAt).slice(0, limit);
}
