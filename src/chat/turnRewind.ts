import type { TranscriptItem, TurnActions } from '../protocol';
import type { ChatMessage } from '../providers/types';
import { titleFrom, type StoredConversation } from './conversation';

/** The notice a stopped turn ends with; Continue is offered on it. */
export const STOPPED_NOTICE = 'Stopped.';

/**
 * What the model is told when the person asks it to go on with a stopped answer. It stays in the
 * conversation the model sees (so a later request reads the same way) but is never shown.
 */
export const CONTINUE_PROMPT = 'Continue your previous answer from exactly where it stopped. Do not repeat what you already wrote and do not start over.';

export type RewindRequest =
  /** Ask again for the last answer: it and its tool calls leave the conversation the model sees. */
  | { kind: 'regenerate'; undoFirst?: boolean }
  /** Replace the last user message (and the answer to it) with `text` and ask again. */
  | { kind: 'edit'; text: string; undoFirst?: boolean }
  /** Go on with a stopped answer, keeping the text it already has. */
  | { kind: 'continue' };

/** What a rewind needs of the controller that runs it. */
export interface RewindHost {
  newItemId(): string;
  undoTurn(turnId: string): Promise<unknown>;
  /** Runs a turn over the conversation as it stands; rejects when the model call fails. */
  startTurn(): Promise<string>;
  /** The conversation changed outside a turn: save it and show it. */
  changed(): void;
}

interface Plan {
  messages: ChatMessage[];
  items: TranscriptItem[];
  title?: string;
  /** For Continue: the stopped answer the new text belongs to. */
  continues?: string;
}

type TurnRow = Extract<TranscriptItem, { kind: 'turn' }>;

/** Where the last turn starts: its user message (not a hidden Continue prompt) and its user item. */
export function lastTurn(conversation: StoredConversation): { messageIndex: number; itemIndex: number } | undefined {
  const messageIndex = findLastIndex(conversation.messages, (m) => m.role === 'user' && m.content !== CONTINUE_PROMPT);
  const itemIndex = findLastIndex(conversation.items, (i) => i.kind === 'user');
  return messageIndex < 0 || itemIndex < 0 ? undefined : { messageIndex, itemIndex };
}

/** Which of the last messages offer Edit & resend, Regenerate and Continue (by item id). */
export function turnActionsFor(conversation: StoredConversation): TurnActions {
  const turn = lastTurn(conversation);
  if (!turn) return {};
  const tail = conversation.items.slice(turn.itemIndex + 1);
  const actions: TurnActions = { edit: conversation.items[turn.itemIndex].id };
  const answered = conversation.messages.slice(turn.messageIndex + 1).some((m) => m.role === 'assistant');
  const answer = findLast(tail, (i) => i.kind === 'assistant') ?? findLast(tail, (i) => i.kind === 'tool');
  if (answered && answer) actions.regenerate = answer.id;
  const stopped = stoppedNotice(conversation, turn.itemIndex);
  if (stopped) actions.continue = stopped.id;
  return actions;
}

/** Files the last turn changed that are not undone yet, with the turns' ids (for "undo first?"). */
export function changesOfLastTurn(conversation: StoredConversation): { turnIds: string[]; files: string[] } {
  const turn = lastTurn(conversation);
  const rows = turn ? turnRows(conversation.items.slice(turn.itemIndex + 1)).filter((row) => !row.undone && row.files.length > 0) : [];
  return { turnIds: rows.map((row) => row.turnId), files: [...new Set(rows.flatMap((row) => row.files))] };
}

/**
 * Regenerate, Edit & resend and Continue: rewinds the last turn and runs a new one. File changes
 * are undone first only when asked (`undoFirst`); the rows that record them stay in the
 * transcript, so their Undo stays at hand. A regenerated answer that fails or is stopped before
 * anything new arrived gives the earlier answer back (with the error card after it, whose Retry
 * regenerates again).
 */
export async function rewindTurn(conversation: StoredConversation, request: RewindRequest, host: RewindHost): Promise<string> {
  if (request.kind !== 'continue' && request.undoFirst) {
    for (const turnId of changesOfLastTurn(conversation).turnIds.reverse()) await host.undoTurn(turnId);
  }
  const earlier = { messages: conversation.messages, items: conversation.items };
  const plan = planRewind(conversation, request, host.newItemId);
  // Copies: the turn adds to the conversation's arrays, the plan stays what was there before it.
  conversation.messages = [...plan.messages];
  conversation.items = [...plan.items];
  if (plan.title) conversation.title = plan.title;
  host.changed();
  let failed = true;
  try {
    const reply = await host.startTurn();
    failed = false;
    return reply;
  } finally {
    const settled = request.kind === 'regenerate' ? restoreIfNothingNew(conversation, plan, earlier, failed) : request.kind === 'continue' && joinContinuation(conversation, plan);
    if (settled) host.changed();
  }
}

/** The conversation after the rewind, before the new turn; throws a readable error when there is nothing to rewind. */
export function planRewind(conversation: StoredConversation, request: RewindRequest, newItemId: () => string): Plan {
  const { messages, items } = conversation;
  const turn = lastTurn(conversation);
  if (request.kind === 'continue') {
    const stopped = turn && stoppedNotice(conversation, turn.itemIndex);
    if (!turn || !stopped) throw new Error('There is no stopped answer to continue.');
    const last = messages.at(-1);
    const partial = last?.role === 'assistant' && !last.toolCalls?.length && last.content.trim() !== '';
    const continues = findLast(items.slice(turn.itemIndex + 1, items.indexOf(stopped)), (i) => i.kind === 'assistant')?.id;
    return {
      messages: partial ? [...messages, { role: 'user', content: CONTINUE_PROMPT }] : [...messages],
      items: items.filter((item) => item !== stopped),
      continues: partial ? continues : undefined,
    };
  }
  if (!turn) throw new Error('There is no message to ask again.');
  const user = messages[turn.messageIndex] as Extract<ChatMessage, { role: 'user' }>;
  // Rows recording file changes stay (before the message), so their Undo stays available.
  const kept = [...items.slice(0, turn.itemIndex), ...turnRows(items.slice(turn.itemIndex + 1))];
  if (request.kind === 'regenerate') {
    if (!messages.slice(turn.messageIndex + 1).some((m) => m.role === 'assistant')) throw new Error('There is no answer to regenerate yet.');
    return { messages: messages.slice(0, turn.messageIndex + 1), items: [...kept, items[turn.itemIndex]] };
  }
  const text = request.text;
  if (!text.trim()) throw new Error('The edited message is empty.');
  const first = !messages.slice(0, turn.messageIndex).some((m) => m.role === 'user');
  // The context attached to the message stays attached: the model's copy starts with it, the item keeps its chips.
  const shown = items[turn.itemIndex];
  const shownText = shown.kind === 'user' ? shown.text : user.content;
  const attached = shown.kind === 'user' && shown.attachments?.length && user.content.endsWith(shownText) ? user.content.slice(0, user.content.length - shownText.length) : '';
  const chips = shown.kind === 'user' && attached ? { attachments: shown.attachments } : {};
  return {
    messages: [...messages.slice(0, turn.messageIndex), { role: 'user', content: attached + text }],
    items: [...kept, { kind: 'user', id: newItemId(), text, ...chips }],
    title: first && conversation.title === titleFrom(shownText) ? titleFrom(text) : undefined,
  };
}

/** A regenerated answer that brought nothing (failed or stopped before any text or tool call): the earlier one comes back. */
function restoreIfNothingNew(conversation: StoredConversation, plan: Plan, earlier: Pick<StoredConversation, 'messages' | 'items'>, failed: boolean): boolean {
  const added = conversation.items.filter((item) => !plan.items.includes(item));
  const nothingNew = conversation.messages.length === plan.messages.length && added.every((item) => item.kind === 'notice' || item.kind === 'error');
  if (!nothingNew) return false;
  conversation.messages = earlier.messages;
  conversation.items = [...earlier.items, ...(failed ? added.filter((item) => item.kind === 'error') : [])];
  return true;
}

/** After Continue: the new text joins the stopped answer's bubble, so it reads as one answer. */
function joinContinuation(conversation: StoredConversation, plan: Plan): boolean {
  const partial = conversation.items.find((item) => item.id === plan.continues);
  const index = partial ? conversation.items.indexOf(partial) : -1;
  const next = conversation.items.slice(index + 1).find((item) => !plan.items.includes(item));
  if (partial?.kind !== 'assistant' || next?.kind !== 'assistant' || conversation.items[index + 1] !== next) return false;
  conversation.items = conversation.items.filter((item) => item !== next).map((item) => (item === partial ? { ...partial, text: joinText(partial.text, next.text) } : item));
  return true;
}

/** "The answ" + "er is 42" cannot be told from "It is" + "42"; a space between words reads right far more often. */
function joinText(before: string, after: string): string {
  if (/\s$/.test(before) || /^[\s.,;:!?)\]}]/.test(after)) return before + after;
  return `${before} ${after}`;
}

function stoppedNotice(conversation: StoredConversation, userItemIndex: number): TranscriptItem | undefined {
  const last = findLast(conversation.items.slice(userItemIndex + 1), (i) => i.kind !== 'turn');
  return last?.kind === 'notice' && last.text === STOPPED_NOTICE ? last : undefined;
}

function turnRows(items: TranscriptItem[]): TurnRow[] {
  return items.filter((item): item is TurnRow => item.kind === 'turn');
}

function findLastIndex<T>(list: readonly T[], test: (value: T) => boolean): number {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i])) return i;
  return -1;
}

function findLast<T>(list: readonly T[], test: (value: T) => boolean): T | undefined {
  const index = findLastIndex(list, test);
  return index < 0 ? undefined : list[index];
}
