import { estimateTokens } from '../providers/tokens';
import type { ChatMessage } from '../providers/types';
import { summarizeConversation } from './sessionSummary';

/** Characters of a shortened tool result kept at each end. */
const KEPT_RESULT_CHARS = 600;
/** Tool results up to this long are never shortened: cutting them saves too little. */
const SHORT_RESULT_CHARS = 1600;
/** The summary that stands in for dropped turns. */
const SUMMARY_CHARS = 2000;

export interface ContextBudget {
  /** The model's context window, in tokens. */
  contextTokens: number;
  /** Kept free for the answer. */
  reserveOutputTokens: number;
  /** Tokens the system prompt and the tool schemas take (never cut). */
  fixedTokens: number;
}

export interface FittedConversation {
  messages: ChatMessage[];
  /** Estimated tokens of the whole request: fixed part plus messages. */
  tokens: number;
  /** What the request may take: the window less the answer's reserve. */
  limit: number;
  shortenedResults: number;
  droppedMessages: number;
}

export { estimateTokens };

/** Estimated tokens of one piece of text. */
export type TokenEstimator = (text: string) => number;

/**
 * Fits a conversation into a model's context window without touching the current turn (the
 * last user message and everything after it): first the oldest tool results are shortened to
 * their head and tail, with a marker saying what was cut; then the oldest turns are dropped
 * whole and a short summary of them is put in front of the first turn kept. The conversation
 * passed in is not changed; unchanged messages are passed through as the same objects, so
 * providers keep reusing what they made of them.
 */
export function fitConversation(messages: readonly ChatMessage[], budget: ContextBudget, estimate: TokenEstimator): FittedConversation {
  const limit = Math.max(0, budget.contextTokens - budget.reserveOutputTokens);
  const room = limit - budget.fixedTokens;
  const fitted = [...messages];
  const cost = fitted.map((m) => messageTokens(m, estimate));
  let total = sum(cost);
  const result = (droppedMessages = 0, shortenedResults = 0): FittedConversation => ({
    messages: fitted,
    tokens: budget.fixedTokens + total,
    limit,
    shortenedResults,
    droppedMessages,
  });
  if (total <= room) return result();

  const currentTurn = lastUserIndex(fitted);
  let shortened = 0;
  for (let i = 0; i < currentTurn && total > room; i++) {
    const message = fitted[i];
    if (message.role !== 'tool' || message.content.length <= SHORT_RESULT_CHARS) continue;
    const cut = { ...message, content: headAndTail(message.content) };
    fitted[i] = cut;
    const after = messageTokens(cut, estimate);
    total += after - cost[i];
    cost[i] = after;
    shortened++;
  }
  if (total <= room) return result(0, shortened);

  // Drop whole turns from the front, so every tool result keeps the call it answers.
  const starts = turnStarts(fitted, currentTurn);
  let keepFrom = 0;
  for (const start of starts) {
    if (start === 0) continue;
    keepFrom = start;
    const summaryCost = estimate(summaryOf(messages.slice(0, start))) + 8;
    if (total - sum(cost.slice(0, start)) + summaryCost <= room) break;
  }
  if (keepFrom === 0) return result(0, shortened);
  const dropped = fitted.slice(0, keepFrom);
  const first = fitted[keepFrom];
  const summary = summaryOf(messages.slice(0, keepFrom));
  const marker = `[${dropped.length} earlier message${dropped.length === 1 ? ' was' : 's were'} left out to fit the model's context window. What they covered:\n${summary}]\n\n`;
  const carried: ChatMessage = first.role === 'user' ? { ...first, content: marker + first.content } : first;
  fitted.splice(0, keepFrom + 1, carried);
  total = sum(fitted.map((m) => messageTokens(m, estimate)));
  return result(dropped.length, shortened);
}

const estimates = new WeakMap<ChatMessage, number>();

/** A message's tokens, cached per message object (conversations are resent every round). */
export function messageTokens(message: ChatMessage, estimate: TokenEstimator): number {
  const cached = estimates.get(message);
  if (cached !== undefined) return cached;
  let tokens = 4 + estimate(message.content);
  if (message.role === 'assistant') for (const call of message.toolCalls ?? []) tokens += 8 + estimate(call.name) + estimate(call.arguments);
  estimates.set(message, tokens);
  return tokens;
}

export function headAndTail(text: string): string {
  const left = text.length - 2 * KEPT_RESULT_CHARS;
  return `${text.slice(0, KEPT_RESULT_CHARS)}\n\n[… ${left.toLocaleString('en-US')} characters of this tool result were cut to fit the model's context window; run the tool again for the whole result …]\n\n${text.slice(-KEPT_RESULT_CHARS)}`;
}

function summaryOf(messages: readonly ChatMessage[]): string {
  const summary = summarizeConversation(messages);
  return summary.length > SUMMARY_CHARS ? `${summary.slice(0, SUMMARY_CHARS)}…` : summary;
}

function lastUserIndex(messages: readonly ChatMessage[]): number {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i].role === 'user') return i;
  return 0;
}

/** Indexes of user messages before `end`: where whole turns begin. */
function turnStarts(messages: readonly ChatMessage[], end: number): number[] {
  const starts: number[] = [];
  for (let i = 0; i < end; i++) if (messages[i].role === 'user') starts.push(i);
  starts.push(end);
  return starts;
}

function sum(values: number[]): number {
  let total = 0;
  for (const v of values) total += v;
  return total;
}
