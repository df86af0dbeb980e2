import * as assert from 'node:assert/strict';
import { estimateTokens, fitConversation, messageTokens, type ContextBudget } from '../../src/agent/contextBudget';
import type { ChatMessage } from '../../src/providers/types';

/** A deterministic conversation of `turns` turns, each with a tool call whose result is `resultChars` long. */
function conversation(turns: number, resultChars: number, seed = 1): ChatMessage[] {
  const messages: ChatMessage[] = [];
  let x = seed;
  const next = () => (x = (x * 1103515245 + 12345) % 2 ** 31);
  for (let t = 0; t < turns; t++) {
    messages.push({ role: 'user', content: `Question ${t}: ${'why '.repeat(next() % 40)}` });
    const calls = next() % 3;
    for (let c = 0; c < calls; c++) {
      const id = `call_${t}_${c}`;
      messages.push({ role: 'assistant', content: '', toolCalls: [{ id, name: 'read_file', arguments: JSON.stringify({ path: `f${t}.ts` }) }] });
      messages.push({ role: 'tool', toolCallId: id, name: 'read_file', content: `line ${t}\n`.repeat(Math.ceil(resultChars / 8)) });
    }
    messages.push({ role: 'assistant', content: `Answer ${t}. ${'because '.repeat(next() % 60)}` });
  }
  return messages;
}

function requestTokens(messages: ChatMessage[], fixed: number): number {
  return fixed + messages.reduce((n, m) => n + messageTokens(m, estimateTokens), 0);
}

/** Every tool result still follows the assistant message that made its call. */
function assertPairsIntact(messages: ChatMessage[]): void {
  const open = new Set<string>();
  for (const m of messages) {
    if (m.role === 'assistant') for (const c of m.toolCalls ?? []) open.add(c.id);
    if (m.role === 'tool') assert.ok(open.has(m.toolCallId), `result ${m.toolCallId} has its call`);
  }
}

const budget = (contextTokens: number, fixedTokens = 500): ContextBudget => ({ contextTokens, reserveOutputTokens: 1000, fixedTokens });

describe('fitConversation: the context budget', () => {
  it('leaves a conversation that fits exactly as it is, the same objects', () => {
    const messages = conversation(5, 200);
    const fitted = fitConversation(messages, budget(100_000), estimateTokens);
    assert.equal(fitted.messages.length, messages.length);
    fitted.messages.forEach((m, i) => assert.equal(m, messages[i]));
    assert.equal(fitted.droppedMessages, 0);
    assert.equal(fitted.shortenedResults, 0);
    assert.equal(fitted.tokens, requestTokens(messages, 500));
  });

  it('shortens the oldest tool results first, keeping head and tail with a marker', () => {
    const messages = conversation(6, 20_000);
    const before = requestTokens(messages, 500);
    const fitted = fitConversation(messages, budget(before - 4000 + 1000), estimateTokens);
    assert.equal(fitted.droppedMessages, 0);
    assert.ok(fitted.shortenedResults > 0);
    assert.ok(fitted.tokens <= fitted.limit);
    const firstTool = fitted.messages.findIndex((m) => m.role === 'tool');
    const cut = fitted.messages[firstTool] as Extract<ChatMessage, { role: 'tool' }>;
    assert.match(cut.content, /characters of this tool result were cut to fit the model's context window/);
    assert.ok(cut.content.startsWith('line'));
    const original = messages[firstTool] as Extract<ChatMessage, { role: 'tool' }>;
    assert.ok(cut.content.endsWith(original.content.slice(-100)), 'the tail is kept');
    assert.equal(original.content.length > cut.content.length, true, 'the history itself is untouched');
  });

  it('drops the oldest turns with a summary when shortening is not enough, never the current turn', () => {
    const messages = conversation(40, 3000);
    messages.push({ role: 'user', content: 'The question now' });
    const fitted = fitConversation(messages, budget(6000), estimateTokens);
    assert.ok(fitted.droppedMessages > 0);
    assert.ok(fitted.tokens <= fitted.limit, `${fitted.tokens} ≤ ${fitted.limit}`);
    assert.equal(fitted.tokens, requestTokens(fitted.messages, 500));
    assert.ok(fitted.messages.at(-1)!.content.endsWith('The question now'), 'the current question is sent');
    assert.equal(fitted.messages[0].role, 'user');
    assert.match(fitted.messages[0].content, /^\[\d+ earlier messages were left out to fit the model's context window\. What they covered:/);
    assert.match(fitted.messages[0].content, /\*\*User:\*\* Question \d+/);
    assertPairsIntact(fitted.messages);
  });

  /** History, then a current turn reading `results` files of `chars` characters, one round each. */
  function withBigTurn(results: number, chars: number): { messages: ChatMessage[]; turn: ChatMessage[] } {
    const messages = conversation(3, 500);
    messages.push({ role: 'user', content: 'read everything' });
    for (let i = 0; i < results; i++) {
      messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `now_${i}`, name: 'read_file', arguments: '{}' }] });
      messages.push({ role: 'tool', toolCallId: `now_${i}`, name: 'read_file', content: `result ${i} `.repeat(chars / 10) });
    }
    return { messages, turn: messages.slice(messages.findIndex((m) => m.content === 'read everything')) };
  }

  it('sends the current turn whole when it fits beside a summary of the rest', () => {
    const { messages, turn } = withBigTurn(4, 4000);
    const fitted = fitConversation(messages, budget(7000), estimateTokens);
    assert.ok(fitted.tokens <= fitted.limit);
    fitted.messages.slice(-turn.length + 1).forEach((m, i) => assert.equal(m, turn[i + 1], 'same message object'));
  });

  it("shortens the current turn's own results when it alone is over the budget: the oldest first, the newest last", () => {
    const { messages, turn } = withBigTurn(4, 40_000);
    const fitted = fitConversation(messages, budget(14_000), estimateTokens);
    assert.ok(fitted.tokens <= fitted.limit, `${fitted.tokens} ≤ ${fitted.limit}`);
    const results = fitted.messages.filter((m) => m.role === 'tool').slice(-4);
    assert.deepEqual(results.map((m) => /were cut to fit the model's context window/.test(m.content)), [true, true, true, false]);
    assert.equal(results[3], turn.at(-1), 'the newest is sent whole, as it was');
    assert.ok(results[0].content.startsWith('result 0') && results[0].content.endsWith('result 0 '), 'head and tail kept');
    assertPairsIntact(fitted.messages);

    const smaller = fitConversation(messages, budget(6000), estimateTokens);
    assert.ok(smaller.tokens <= smaller.limit, `${smaller.tokens} ≤ ${smaller.limit}`);
    assert.ok(smaller.messages.filter((m) => m.role === 'tool').slice(-4).every((m) => /were cut/.test(m.content)), 'in a smaller window the newest too');
    assert.ok(smaller.messages.some((m) => m.role === 'user' && m.content.endsWith('read everything')));
    assertPairsIntact(smaller.messages);
  });

  it('leaves out the oldest steps of a current turn too long even shortened, and says so', () => {
    const { messages } = withBigTurn(60, 4000);
    const fitted = fitConversation(messages, budget(6000), estimateTokens);
    assert.ok(fitted.tokens <= fitted.limit, `${fitted.tokens} ≤ ${fitted.limit}`);
    const question = fitted.messages.find((m) => m.role === 'user' && m.content.endsWith('read everything'))!;
    assert.match(question.content, /\[To fit the model's context window, \d+ earlier tool calls of this turn \(read_file ×\d+\) and their results \(\d+ messages\) were left out of this request\. What they did still stands\.\]/);
    const results = fitted.messages.filter((m) => m.role === 'tool');
    assert.equal((results.at(-1) as Extract<ChatMessage, { role: 'tool' }>).toolCallId, 'now_59', 'the newest step stays');
    assert.ok(fitted.droppedMessages > 0);
    assertPairsIntact(fitted.messages);
  });

  it('never exceeds the budget over many random long conversations whose last turn fits', () => {
    for (let seed = 1; seed <= 60; seed++) {
      const messages = conversation(20 + (seed % 30), 500 + ((seed * 977) % 30_000), seed);
      messages.push({ role: 'user', content: `now ${seed}` });
      const window = 4000 + ((seed * 7919) % 60_000);
      const fitted = fitConversation(messages, budget(window), estimateTokens);
      assert.ok(fitted.tokens <= fitted.limit, `seed ${seed}: ${fitted.tokens} ≤ ${fitted.limit}`);
      assert.ok(fitted.messages.at(-1)!.content.endsWith(`now ${seed}`));
      assertPairsIntact(fitted.messages);
      if (fitted.droppedMessages > 0) assert.match(fitted.messages[0].content, /left out to fit/);
    }
  });
});
