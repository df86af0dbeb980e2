import { summarizeConversation } from '../agent/sessionSummary';
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

/** The number the next transcript item of `conversation` gets (ids end in -<n>). */
export function nextItemNumber(conversation: StoredConversation): number {
  const numbers = conversation.items.map((item) => Number(/-(\d+)$/.exec(item.id)?.[1] ?? 0));
  return Math.max(0, ...numbers) + 1;
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

/** A fresh conversation that starts with a summary of `earlier`, so the model has an empty window but not an empty memory. */
export function continuedFrom(earlier: StoredConversation): StoredConversation {
  const next = newConversation();
  const summary = summarizeConversation(earlier.messages);
  if (!summary) return next;
  next.title = `${titleFrom(earlier.title)} (continued)`;
  next.messages = [
    { role: 'user', content: `Here is a summary of our earlier chat "${earlier.title}", to continue from:\n\n${summary}` },
    { role: 'assistant', content: 'Understood: I have the summary of our earlier chat and will continue from it.' },
  ];
  next.items = [{ kind: 'notice', id: `item-${next.id}-1`, text: `Continued from "${earlier.title}": the model has a summary of it.` }];
  return next;
}

/** What the panel says when a request had to leave older parts out to fit the model's window. */
export function fittedNotice(context: ContextMeter): string {
  const { shortenedResults, droppedMessages, contextTokens } = context;
  const parts = [
    shortenedResults ? `${shortenedResults} older tool result${shortenedResults === 1 ? ' was' : 's were'} shortened` : '',
    droppedMessages ? `${droppedMessages} older message${droppedMessages === 1 ? ' was' : 's were'} left out (the model got a summary of them)` : '',
  ].filter(Boolean);
  return `To fit the model's context window (${contextTokens.toLocaleString('en-US')} tokens), ${parts.join(' and ')}. Start a new chat with a summary to begin afresh.`;
}
