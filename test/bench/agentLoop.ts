import OpenAI from 'openai';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { Agent } from '../../src/agent/agent';
import { OpenAIProvider } from '../../src/providers/openai';
import type { ChatTool, ExecutableTool } from '../../src/tools/interface';
import { ToolRegistry } from '../../src/tools/registry';

/**
 * One side of the overhead bench, in a process of its own so the two sides share no JIT or
 * garbage-collector state: `node agentLoop.js agent|bare <baseURL> <rounds> <warmup> <repeats>`
 * runs a whole tool-calling turn `repeats` times and prints the medians as JSON.
 */
const [variant, baseURL, roundsText, warmupText, repeatsText] = process.argv.slice(2);
const rounds = Number(roundsText);

// One schema object, as the builtin tools keep theirs (the Agent's token count is cached per schema).
const noopSchema: ChatTool = { type: 'function', function: { name: 'noop', description: 'Does nothing.', parameters: { type: 'object', properties: { value: { type: 'string' } }, required: [] } } };

const noop: ExecutableTool = {
  name: 'noop',
  getSchema: () => noopSchema,
  execute: async (args) => `ok ${String(args.value)}`,
};

async function viaAgent(): Promise<void> {
  const registry = new ToolRegistry();
  registry.register(noop);
  const provider = new OpenAIProvider({ apiKey: 'k', baseURL, model: 'm', maxRetries: 0 });
  const agent = new Agent(provider, { toolRegistry: registry, maxToolRounds: rounds + 1, systemPrompt: 'Bench.' });
  for await (const event of agent.streamChat('go')) void event;
}

async function viaBareSdk(): Promise<void> {
  const client = new OpenAI({ apiKey: 'k', baseURL, maxRetries: 0 });
  const messages: ChatCompletionMessageParam[] = [
    { role: 'system', content: 'Bench.' },
    { role: 'user', content: 'go' },
  ];
  const tools = [noop.getSchema()];
  for (;;) {
    const stream = await client.chat.completions.create({ model: 'm', messages, tools, stream: true });
    const calls: { id: string; name: string; arguments: string }[] = [];
    let text = '';
    for await (const chunk of stream) {
      const delta = chunk.choices[0]?.delta ?? {};
      if (delta.content) text += delta.content;
      for (const part of delta.tool_calls ?? []) {
        const call = (calls[part.index] ??= { id: '', name: '', arguments: '' });
        if (part.id) call.id = part.id;
        if (part.function?.name) call.name = part.function.name;
        if (part.function?.arguments) call.arguments += part.function.arguments;
      }
    }
    if (calls.length === 0) return;
    messages.push({ role: 'assistant', content: text || null, tool_calls: calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })) });
    for (const call of calls) messages.push({ role: 'tool', tool_call_id: call.id, content: await noop.execute(JSON.parse(call.arguments)) });
  }
}

async function main(): Promise<void> {
  const run = variant === 'agent' ? viaAgent : viaBareSdk;
  for (let i = 0; i < Number(warmupText); i++) await run();
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < Number(repeatsText); i++) {
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    await run();
    wall.push(performance.now() - started);
    const used = process.cpuUsage(cpuBefore);
    cpu.push((used.user + used.system) / 1000);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
  process.stdout.write(JSON.stringify({ wallMs: median(wall), cpuMs: median(cpu) }));
}

void main();
