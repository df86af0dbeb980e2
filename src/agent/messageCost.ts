import type { ChatMessage, ToolCall } from '../providers/types';
import { parseToolArguments } from './toolArguments';

/** Estimated tokens of one piece of text. */
export type TokenEstimator = (text: string) => number;

/** Characters of a shortened tool result kept at each end. */
export const KEPT_RESULT_CHARS = 600;
/** Tool results up to this long are never shortened: cutting them saves too little. */
export const SHORT_RESULT_CHARS = 1600;

const estimates = new WeakMap<ChatMessage, number>();

/** A message's tokens, cached per message object (conversations are resent every round). */
export function messageTokens(message: ChatMessage, estimate: TokenEstimator): number {
  const cached = estimates.get(message);
  if (cached !== undefined) return cached;
  let tokens = 4 + estimate(message.content);
  if (message.role === 'assistant') for (const call of message.toolCalls ?? []) tokens += callTokens(call, estimate);
  estimates.set(message, tokens);
  return tokens;
}

/** What one tool call adds to its assistant message. */
export function callTokens(call: ToolCall, estimate: TokenEstimator): number {
  return 8 + estimate(call.name) + estimate(call.arguments);
}

/** A tool result shortened to its head and tail, with a marker saying what was cut. */
export function headAndTail(text: string, kept = KEPT_RESULT_CHARS): string {
  return cutMiddle(text, 2 * kept, 'of this tool result were cut to fit the model\'s context window; run the tool again for the whole result');
}

const shortened = new WeakMap<ChatMessage, ChatMessage>();

/** A tool result message with its content shortened to head and tail: one object per result, so later rounds reuse it. */
export function shortenedResult(message: Extract<ChatMessage, { role: 'tool' }>): ChatMessage {
  let cut = shortened.get(message);
  if (!cut) {
    cut = { ...message, content: headAndTail(message.content) };
    shortened.set(message, cut);
  }
  return cut;
}

/** `text` shortened to about `keep` characters, its head and tail, with a notice of what was cut in between. */
export function cutMiddle(text: string, keep: number, what = "of this message were cut to fit the model's context window"): string {
  const half = Math.max(1, Math.floor(keep / 2));
  if (text.length <= 2 * half) return text;
  const left = text.length - 2 * half;
  return `${text.slice(0, half)}\n\n[… ${withCommas(left)} characters ${what} …]\n\n${text.slice(-half)}`;
}

/** 1234567 → "1,234,567", as toLocaleString('en-US') writes it, at a fraction of its cost (thousands of results are cut at once). */
function withCommas(n: number): string {
  const digits = String(n);
  let out = '';
  for (let i = 0; i < digits.length; i++) out += (i > 0 && (digits.length - i) % 3 === 0 ? ',' : '') + digits[i];
  return out;
}

/**
 * A tool call's arguments shortened to about `keep` characters: its longest string values cut
 * in the middle, so the arguments stay a JSON object with every key (arguments that are not
 * valid JSON are cut as text).
 */
export function cutArguments(args: string, keep: number): string {
  // Read as the Agent reads arguments: nothing nested past its limit is parsed (or written back).
  const parsed = parseToolArguments('', args);
  if (!parsed.ok) return cutMiddle(args, keep, "of these arguments were cut to fit the model's context window");
  const value = parsed.args;
  const strings: { holder: Record<string, unknown> | unknown[]; key: string | number; length: number }[] = [];
  const visit = (node: unknown, depth: number): void => {
    if (depth > 64 || node === null || typeof node !== 'object') return;
    for (const [key, item] of Object.entries(node)) {
      if (typeof item === 'string') strings.push({ holder: node as Record<string, unknown>, key: Array.isArray(node) ? Number(key) : key, length: item.length });
      else visit(item, depth + 1);
    }
  };
  visit(value, 0);
  strings.sort((a, b) => b.length - a.length);
  let excess = args.length - keep;
  for (const leaf of strings) {
    if (excess <= 0) break;
    const text = (leaf.holder as Record<string | number, string>)[leaf.key];
    const cut = cutMiddle(text, Math.max(200, text.length - excess), 'cut to fit the model\'s context window');
    (leaf.holder as Record<string | number, string>)[leaf.key] = cut;
    excess -= text.length - cut.length;
  }
  return JSON.stringify(value);
}
