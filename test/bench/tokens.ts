// How far Toolbelt's token estimate (characters / 4) is from a real tokenizer (o200k_base, the
// GPT-4o family's, through the dev-only gpt-tokenizer package) on the kinds of text a chat
// carries: prose, source code, JSON tool results, search output, and whole test conversations.
// Prints one JSON object; `npm run bench` reports it.
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { encode } from 'gpt-tokenizer/cjs/encoding/o200k_base';
import { estimateTokens, fitConversation, messageTokens } from '../../src/agent/contextBudget';
import type { ChatMessage } from '../../src/providers/types';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface Sample {
  kind: string;
  text: string;
}

async function samples(): Promise<Sample[]> {
  const read = (p: string) => fs.readFile(path.join(ROOT, p), 'utf8');
  const sources = ['src/agent/agent.ts', 'src/tools/registry.ts', 'src/tools/calculator.ts', 'src/webview/transcript.ts', 'src/providers/openai.ts'];
  const prose = ['README.md', 'CHANGELOG.md', 'sample-workspace/notes/meeting.md'];
  const out: Sample[] = [];
  for (const p of sources) out.push({ kind: 'source code', text: await read(p) });
  for (const p of prose) out.push({ kind: 'prose (markdown)', text: await read(p) });
  out.push({ kind: 'JSON', text: await read('package.json') });
  out.push({ kind: 'JSON', text: JSON.stringify(JSON.parse(await read('package.json'))) });
  const files = (await fs.readdir(path.join(ROOT, 'src', 'tools'))).map((f) => `src/tools/${f}`);
  out.push({ kind: 'search output', text: files.map((f, i) => `${f}:${i + 1}: export function ${path.basename(f, '.ts')}(args: Record<string, unknown>) {`).join('\n') });
  out.push({ kind: 'list output', text: files.join('\n') });
  return out;
}

function conversationOf(texts: Sample[]): ChatMessage[] {
  const messages: ChatMessage[] = [];
  texts.forEach((sample, i) => {
    messages.push({ role: 'user', content: `Please look at the ${sample.kind} number ${i} and tell me what it does.` });
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${i}`, name: 'read_file', arguments: JSON.stringify({ path: `file${i}` }) }] });
    messages.push({ role: 'tool', toolCallId: `c${i}`, name: 'read_file', content: sample.text });
    messages.push({ role: 'assistant', content: `It ${sample.kind === 'source code' ? 'defines a few functions and classes' : 'describes the project'}; the main points are in the first section.` });
  });
  return messages;
}

async function main(): Promise<void> {
  const all = await samples();
  const byKind = new Map<string, { estimate: number; actual: number }>();
  for (const sample of all) {
    const entry = byKind.get(sample.kind) ?? { estimate: 0, actual: 0 };
    entry.estimate += estimateTokens(sample.text);
    entry.actual += encode(sample.text).length;
    byKind.set(sample.kind, entry);
  }
  const kinds = [...byKind.entries()].map(([kind, { estimate, actual }]) => ({ kind, estimate, actual, ratio: +(estimate / actual).toFixed(3) }));
  const messages = conversationOf(all);
  const estimate = messages.reduce((n, m) => n + messageTokens(m, estimateTokens), 0);
  const actual = messages.reduce((n, m) => n + 4 + encode(m.content).length + (m.role === 'assistant' ? (m.toolCalls ?? []).reduce((k, c) => k + 8 + encode(c.name).length + encode(c.arguments).length, 0) : 0), 0);

  // Fitting cost: a 1,000-message conversation into a window it overflows several times.
  const long: ChatMessage[] = [];
  for (let i = 0; i < 250; i++) long.push(...conversationOf([all[i % all.length]]).map((m) => (m.role === 'tool' ? { ...m, toolCallId: `${m.toolCallId}_${i}` } : m.role === 'assistant' && m.toolCalls ? { ...m, toolCalls: m.toolCalls.map((c) => ({ ...c, id: `${c.id}_${i}` })) } : m)));
  long.push({ role: 'user', content: 'and now?' });
  const runs: number[] = [];
  for (let r = 0; r < 20; r++) {
    const copy = long.map((m) => ({ ...m })) as ChatMessage[];
    const started = performance.now();
    fitConversation(copy, { contextTokens: 128_000, reserveOutputTokens: 8000, fixedTokens: 3000 }, estimateTokens);
    runs.push(performance.now() - started);
  }
  runs.sort((a, b) => a - b);
  const cached = performance.now();
  fitConversation(long, { contextTokens: 128_000, reserveOutputTokens: 8000, fixedTokens: 3000 }, estimateTokens);
  fitConversation(long, { contextTokens: 128_000, reserveOutputTokens: 8000, fixedTokens: 3000 }, estimateTokens);
  const cachedMs = (performance.now() - cached) / 2;

  process.stdout.write(
    JSON.stringify({
      tokenizer: 'o200k_base (gpt-tokenizer)',
      kinds,
      conversation: { messages: messages.length, estimate, actual, ratio: +(estimate / actual).toFixed(3) },
      fit1000: { messages: long.length, coldMedianMs: +runs[Math.floor(runs.length / 2)].toFixed(2), warmMs: +cachedMs.toFixed(2) },
    }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
