import { estimateTokens } from '../providers/tokens';
import type { ChatMessage } from '../providers/types';
import { fitCurrentTurn } from './currentTurnBudget';
import { headAndTail, messageTokens, SHORT_RESULT_CHARS, shortenedResult, type TokenEstimator } from './messageCost';
import { ConversationSummaries } from './sessionSummary';

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

export { estimateTokens, headAndTail, messageTokens, type TokenEstimator };

/**
 * Fits a conversation into a model's context window. First the oldest tool results before the
 * current turn (the last user message and everything after it) are shortened to their head and
 * tail, with a marker saying what was cut; then the oldest turns are dropped whole and a short
 * summary of them is put in front of the first turn kept. The current turn is sent whole when it
 * fits beside that summary; when it does not, it is fitted first (fitCurrentTurn: its own results
 * shortened, then its oldest steps left out, then its longest texts cut), so every request fits
 * unless the system prompt and tools alone do not. The conversation passed in is not changed;
 * unchanged messages are passed through as the same objects, so providers keep reusing what they
 * made of them. Linear in the number of messages: a cut is chosen from prefix sums of the
 * messages' tokens, and each summary tried reads only the latest entries before it.
 */
export function fitConversation(messages: readonly ChatMessage[], budget: ContextBudget, estimate: TokenEstimator): FittedConversation {
  const limit = Math.max(0, budget.contextTokens - budget.reserveOutputTokens);
  const room = limit - budget.fixedTokens;
  const fitted = [...messages];
  const cost = fitted.map((m) => messageTokens(m, estimate));
  let total = sum(cost, 0, cost.length);
  let shortened = 0;
  let leftOut = 0;
  const result = (droppedMessages = 0): FittedConversation => ({
    messages: fitted,
    tokens: budget.fixedTokens + total,
    limit,
    shortenedResults: shortened,
    droppedMessages: droppedMessages + leftOut,
  });
  if (total <= room) return result();

  const currentTurn = lastUserIndex(fitted);
  for (let i = 0; i < currentTurn && total > room; i++) {
    const message = fitted[i];
    if (message.role !== 'tool' || message.content.length <= SHORT_RESULT_CHARS) continue;
    const cut = shortenedResult(message);
    fitted[i] = cut;
    const after = messageTokens(cut, estimate);
    total += after - cost[i];
    cost[i] = after;
    shortened++;
  }
  if (total <= room) return result();

  const summaries = new ConversationSummaries(messages);
  const markerTokens = (keepFrom: number) => (keepFrom === 0 ? 0 : estimate(marker(keepFrom, summaries)) + 2);
  // The current turn must fit beside the summary of everything before it; if it does not, fit it first.
  const turnTokens = sum(cost, currentTurn, cost.length);
  if (turnTokens + markerTokens(currentTurn) > room) {
    const turn = fitCurrentTurn(fitted.slice(currentTurn), room - markerTokens(currentTurn), estimate);
    fitted.splice(currentTurn, fitted.length - currentTurn, ...turn.messages);
    cost.splice(currentTurn, cost.length - currentTurn, ...turn.messages.map((m) => messageTokens(m, estimate)));
    total = sum(cost, 0, cost.length);
    shortened += turn.shortenedResults;
    leftOut = turn.leftOut;
    if (total <= room) return result();
  }

  // Drop whole turns from the front, so every tool result keeps the call it answers.
  const before = prefixSums(cost);
  let keepFrom = 0;
  for (const start of turnStarts(fitted, currentTurn)) {
    if (start === 0) continue;
    keepFrom = start;
    const kept = total - before[start];
    // A summary costs something: a cut whose rest alone is too big needs no summary written.
    if (kept < room && kept + markerTokens(start) <= room) break;
  }
  if (keepFrom === 0) return result();
  const first = fitted[keepFrom];
  const carried: ChatMessage = first.role === 'user' ? { ...first, content: marker(keepFrom, summaries) + first.content } : first;
  fitted.splice(0, keepFrom + 1, carried);
  total = 0;
  for (const message of fitted) total += messageTokens(message, estimate);
  return result(keepFrom);
}

/** What stands in front of the first turn kept: how many messages were dropped, and what they covered. */
function marker(dropped: number, summaries: ConversationSummaries): string {
  const full = summaries.before(dropped);
  const summary = full.length > SUMMARY_CHARS ? `${full.slice(0, SUMMARY_CHARS)}…` : full;
  return `[${dropped} earlier message${dropped === 1 ? ' was' : 's were'} left out to fit the model's context window. What they covered:\n${summary}]\n\n`;
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

/** before[i]: the sum of values[0..i). */
function prefixSums(values: readonly number[]): number[] {
  const before = [0];
  for (let i = 0; i < values.length; i++) before.push(before[i] + values[i]);
  return before;
}

function sum(values: readonly number[], from: number, to: number): number {
  let total = 0;
  for (let i = from; i < to; i++) total += values[i];
  return total;
}
