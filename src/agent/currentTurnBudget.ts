import type { ChatMessage } from '../providers/types';
import { callTokens, cutArguments, cutMiddle, messageTokens, SHORT_RESULT_CHARS, shortenedResult, type TokenEstimator } from './messageCost';

/** Texts up to this long are never cut in the last resort. */
const SHORT_TEXT_CHARS = 400;
/** Tokens kept for the note saying which steps of the turn were left out. */
const NOTE_TOKENS = 80;

export interface FittedTurn {
  messages: ChatMessage[];
  shortenedResults: number;
  /** Messages of the turn not sent. */
  leftOut: number;
}

/**
 * Fits the current turn (the user's message, then the tool rounds it started) into `room`
 * tokens, when even dropping every earlier turn would not make it fit: first its tool results
 * are shortened to head and tail, the oldest first and the newest last; then its oldest steps
 * (a tool call with its result, or an assistant message) are left out, with a note in front of
 * the user's message; last, the longest texts left (the question, arguments, results) are cut in
 * the middle. Every result still follows the call it answers. Nothing passed in is changed.
 */
export function fitCurrentTurn(turn: readonly ChatMessage[], room: number, estimate: TokenEstimator): FittedTurn {
  let messages = [...turn];
  let total = tokensOf(messages, estimate);
  let shortenedResults = 0;
  for (let i = 0; i < messages.length && total > room; i++) {
    const message = messages[i];
    if (message.role !== 'tool' || message.content.length <= SHORT_RESULT_CHARS) continue;
    const cut = shortenedResult(message);
    total += messageTokens(cut, estimate) - messageTokens(message, estimate);
    messages[i] = cut;
    shortenedResults++;
  }
  let leftOut = 0;
  if (total > room) {
    const before = messages.length;
    messages = leaveOutSteps(messages, total, room, estimate);
    leftOut = before - messages.length;
    total = tokensOf(messages, estimate);
  }
  if (total > room) cutLongestTexts(messages, total, room, estimate);
  return { messages, shortenedResults, leftOut };
}

/** One step of the turn: a tool call and its result, or a message on its own. */
interface Step {
  message: number;
  /** Index in the message's toolCalls. */
  call?: number;
  result?: number;
  tokens: number;
}

/** Leaves out the turn's oldest steps until the rest fits (the newest step always stays). */
function leaveOutSteps(messages: ChatMessage[], total: number, room: number, estimate: TokenEstimator): ChatMessage[] {
  const steps: Step[] = [];
  const answered = new Set<number>();
  for (let i = 1; i < messages.length; i++) {
    const message = messages[i];
    if (message.role === 'assistant' && message.toolCalls?.length) {
      // Its results follow it, before the next assistant message.
      const results = new Map<string, number>();
      for (let j = i + 1; j < messages.length && messages[j].role === 'tool'; j++) {
        const id = (messages[j] as Extract<ChatMessage, { role: 'tool' }>).toolCallId;
        if (!results.has(id)) results.set(id, j);
      }
      let base = messageTokens(message, estimate);
      message.toolCalls.forEach((call, c) => {
        const result = results.get(call.id);
        if (result !== undefined) answered.add(result);
        const tokens = callTokens(call, estimate) + (result !== undefined ? messageTokens(messages[result], estimate) : 0);
        base -= callTokens(call, estimate);
        steps.push({ message: i, call: c, result, tokens });
      });
      // The message itself goes with its last call.
      steps[steps.length - 1].tokens += base;
    } else if (!answered.has(i)) steps.push({ message: i, tokens: messageTokens(message, estimate) });
  }
  const droppedCalls = new Map<number, Set<number>>();
  const droppedMessages = new Set<number>();
  const names: string[] = [];
  let remaining = total + NOTE_TOKENS;
  for (let s = 0; s < steps.length - 1 && remaining > room; s++) {
    const step = steps[s];
    remaining -= step.tokens;
    if (step.call === undefined) {
      droppedMessages.add(step.message);
      continue;
    }
    const calls = droppedCalls.get(step.message) ?? new Set<number>();
    calls.add(step.call);
    droppedCalls.set(step.message, calls);
    if (step.result !== undefined) droppedMessages.add(step.result);
    const message = messages[step.message] as Extract<ChatMessage, { role: 'assistant' }>;
    names.push(message.toolCalls![step.call].name);
    if (calls.size === message.toolCalls!.length) droppedMessages.add(step.message);
  }
  if (droppedMessages.size === 0 && droppedCalls.size === 0) return messages;
  const kept: ChatMessage[] = [];
  messages.forEach((message, i) => {
    if (droppedMessages.has(i)) return;
    const calls = droppedCalls.get(i);
    if (calls && message.role === 'assistant') kept.push({ ...message, toolCalls: message.toolCalls!.filter((_, c) => !calls.has(c)) });
    else kept.push(message);
  });
  const first = kept[0];
  if (first?.role === 'user') kept[0] = { ...first, content: `${leftOutNote(droppedMessages.size, names)}\n\n${first.content}` };
  return kept;
}

function leftOutNote(messages: number, calls: string[]): string {
  const counts = new Map<string, number>();
  for (const name of calls) counts.set(name, (counts.get(name) ?? 0) + 1);
  const named = [...counts].map(([name, n]) => (n > 1 ? `${name} ×${n.toLocaleString('en-US')}` : name)).join(', ');
  const what = calls.length ? `${calls.length.toLocaleString('en-US')} earlier tool call${calls.length === 1 ? '' : 's'} of this turn (${named})` : 'earlier steps of this turn';
  return `[To fit the model's context window, ${what} and their results (${messages.toLocaleString('en-US')} message${messages === 1 ? '' : 's'}) were left out of this request. What they did still stands.]`;
}

/** The last resort: cuts the longest texts left in the middle, until the turn fits or nothing long is left. */
function cutLongestTexts(messages: ChatMessage[], total: number, room: number, estimate: TokenEstimator): void {
  const done = new Set<string>();
  for (let guard = 0; total > room && guard < 4 * messages.length + 8; guard++) {
    let best: { message: number; call?: number; text: string } | undefined;
    messages.forEach((message, i) => {
      const consider = (text: string, call?: number) => {
        if (text.length > SHORT_TEXT_CHARS && !done.has(`${i}:${call}`) && (!best || text.length > best.text.length)) best = { message: i, call, text };
      };
      consider(message.content);
      if (message.role === 'assistant') message.toolCalls?.forEach((call, c) => consider(call.arguments, c));
    });
    if (!best) return;
    const { message: index, call, text } = best;
    const tokens = Math.max(1, estimate(text));
    const keep = Math.max(SHORT_TEXT_CHARS / 2, Math.floor((text.length * (tokens - (total - room) - 40)) / tokens));
    const message = messages[index];
    let cut: ChatMessage;
    if (call === undefined) cut = { ...message, content: message.role === 'tool' ? cutMiddle(text, keep, "of this tool result were cut to fit the model's context window") : cutMiddle(text, keep) };
    else {
      const assistant = message as Extract<ChatMessage, { role: 'assistant' }>;
      cut = { ...assistant, toolCalls: assistant.toolCalls!.map((c, n) => (n === call ? { ...c, arguments: cutArguments(c.arguments, keep) } : c)) };
    }
    const after = call === undefined ? cut.content.length : (cut as Extract<ChatMessage, { role: 'assistant' }>).toolCalls![call].arguments.length;
    // Cut as far as it goes, or no shorter: not a candidate again.
    if (keep <= SHORT_TEXT_CHARS / 2 || after >= text.length) done.add(`${index}:${call}`);
    if (after >= text.length) continue;
    total += messageTokens(cut, estimate) - messageTokens(message, estimate);
    messages[index] = cut;
  }
}

function tokensOf(messages: readonly ChatMessage[], estimate: TokenEstimator): number {
  let total = 0;
  for (const message of messages) total += messageTokens(message, estimate);
  return total;
}
