import { ContextPlanner } from '../../src/agent/contextPlanner';
import type { ModelLimits } from '../../src/providers/contextWindow';
import type { ChatMessage, ChatProvider, ProviderEvent } from '../../src/providers/types';

/**
 * Planning one request of a long chat for `npm run bench` (`node --expose-gc out/test/bench/contextPlanning.js`):
 * the synchronous CPU time of ContextPlanner.plan for a 10,000-message conversation that overflows
 * the window many times over, on the first request (every message new to the planner) and on the
 * next round (one tool call and its result added). Prints JSON; figures are medians.
 */
const MESSAGES = 10_000;
const RUNS = 7;

const model: ChatProvider = {
  name: 'openai',
  model: 'bench',
  limits: () => Promise.resolve<ModelLimits>({ contextTokens: 128_000, maxOutputTokens: 8192, source: 'service' }),
  // eslint-disable-next-line require-yield -- the planner never calls it
  async *stream(): AsyncIterable<ProviderEvent> {
    throw new Error('not used');
  },
};

function conversation(count: number): ChatMessage[] {
  const messages: ChatMessage[] = [];
  for (let t = 0; messages.length < count - 1; t++) {
    messages.push({ role: 'user', content: `Question ${t}: what does file ${t} do, and why is it written this way?` });
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `c${t}`, name: 'read_file', arguments: JSON.stringify({ path: `src/file${t}.ts` }) }] });
    messages.push({ role: 'tool', toolCallId: `c${t}`, name: 'read_file', content: `export const value${t} = ${t};\n`.repeat(60) });
    messages.push({ role: 'assistant', content: `File ${t} exports one constant; it is written so for the tests. `.repeat(3) });
  }
  messages.length = count - 1;
  messages.push({ role: 'user', content: 'And now, what is left?' });
  return messages;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function timedPlan(planner: ContextPlanner, messages: ChatMessage[]): Promise<{ ms: number; cpuMs: number; droppedMessages: number }> {
  // Building the conversation leaves garbage behind: collect it first (node --expose-gc), so it is not charged to plan().
  (globalThis as { gc?: () => void }).gc?.();
  // The limits lookup is the only await; once cached, plan() runs synchronously up to its return.
  const cpu = process.cpuUsage();
  const started = performance.now();
  const planned = await planner.plan(model, { role: 'system', content: 'Bench.' }, [], messages);
  const ms = performance.now() - started;
  const used = process.cpuUsage(cpu);
  return { ms, cpuMs: (used.user + used.system) / 1000, droppedMessages: planned.usage.droppedMessages };
}

async function main(): Promise<void> {
  const first: number[] = [];
  const firstCpu: number[] = [];
  const next: number[] = [];
  const nextCpu: number[] = [];
  let dropped = 0;
  for (let r = 0; r < RUNS; r++) {
    const messages = conversation(MESSAGES);
    const planner = new ContextPlanner();
    await planner.plan(model, undefined, [], [{ role: 'user', content: 'warm the limits cache' }]);
    const cold = await timedPlan(planner, messages);
    first.push(cold.ms);
    firstCpu.push(cold.cpuMs);
    dropped = cold.droppedMessages;
    messages.push({ role: 'assistant', content: '', toolCalls: [{ id: `r${r}`, name: 'read_file', arguments: '{"path":"x"}' }] });
    messages.push({ role: 'tool', toolCallId: `r${r}`, name: 'read_file', content: 'more output\n'.repeat(50) });
    const warm = await timedPlan(planner, messages);
    next.push(warm.ms);
    nextCpu.push(warm.cpuMs);
  }
  const round = (values: number[]) => +median(values).toFixed(1);
  process.stdout.write(
    JSON.stringify({ messages: MESSAGES, runs: RUNS, droppedMessages: dropped, firstRequestMs: round(first), firstRequestCpuMs: round(firstCpu), nextRoundMs: round(next), nextRoundCpuMs: round(nextCpu) }),
  );
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
