import { ProviderError } from './errors';
import type { ChatProvider, ChatRequest } from './types';

/** The one tool the test offers: nothing runs, the call only shows that tool calls come through. */
export const PING_TOOL: ChatRequest['tools'][number] = {
  type: 'function',
  function: { name: 'ping', description: 'Answers pong. Call it once when asked to test the connection.', parameters: { type: 'object', properties: {}, required: [] } },
};

export interface ConnectionReport {
  /** Text or a tool call arrived as a stream. */
  streamed: boolean;
  /** The model called the test tool. */
  toolCalled: boolean;
  /** Why the service refused a request with tools, when it did (the answer then came without tools). */
  toolsRefused?: string;
  /** The start of what the model said. */
  reply: string;
}

/**
 * One tiny streamed request with one tool, to see what works before the settings are written.
 * Stops reading at the first tool call. Throws the provider's error when nothing works at all.
 */
export async function testConnection(provider: ChatProvider, options: { signal?: AbortSignal; timeoutMs?: number } = {}): Promise<ConnectionReport> {
  const messages: ChatRequest['messages'] = [
    { role: 'system', content: 'This is a connection test. Call the ping tool once; if you cannot call tools, answer with the word OK.' },
    { role: 'user', content: 'Test the connection: call ping.' },
  ];
  try {
    return await streamOnce(provider, { messages, tools: [PING_TOOL], stream: true }, options);
  } catch (error) {
    // A model without tool calling refuses the request (Ollama: HTTP 400 "does not support tools"); try once without.
    if (!(error instanceof ProviderError) || error.kind !== 'bad_request') throw error;
    const report = await streamOnce(provider, { messages: [messages[1]], tools: [], stream: true }, options);
    return { ...report, toolsRefused: error.message };
  }
}

async function streamOnce(provider: ChatProvider, request: Omit<ChatRequest, 'signal'>, options: { signal?: AbortSignal; timeoutMs?: number }): Promise<ConnectionReport> {
  const controller = new AbortController();
  const follow = () => controller.abort();
  options.signal?.addEventListener('abort', follow, { once: true });
  const timer = setTimeout(() => controller.abort(), options.timeoutMs ?? 60_000);
  const report: ConnectionReport = { streamed: false, toolCalled: false, reply: '' };
  try {
    for await (const event of provider.stream({ ...request, signal: controller.signal })) {
      if (event.type === 'text') {
        report.streamed = true;
        if (report.reply.length < 200) report.reply += event.text;
      } else if (event.type === 'tool_call_begin' || event.type === 'tool_call') {
        report.streamed = true;
        report.toolCalled = true;
        break; // the call is what was wanted; nothing runs
      } else if (event.type === 'done') {
        break;
      }
    }
  } catch (error) {
    if (controller.signal.aborted && !options.signal?.aborted) {
      throw new ProviderError(`The test request got no complete answer within ${Math.round((options.timeoutMs ?? 60_000) / 1000)} s.`, { kind: 'timeout', provider: provider.name });
    }
    throw error;
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', follow);
    controller.abort(); // ends a stream left after the first tool call
  }
  report.reply = report.reply.trim().slice(0, 200);
  return report;
}

/** What the test showed, in one or two sentences. */
export function describeReport(report: ConnectionReport): string {
  const streaming = report.streamed ? 'Streaming works.' : 'The answer came without streamed text.';
  const tools = report.toolCalled
    ? 'Tool calls work.'
    : report.toolsRefused
    ? 'The model does not take tools; Toolbelt will describe them in the prompt instead.'
    : 'Tools were accepted, but the model answered without calling the test tool.';
  return `${streaming} ${tools}`;
}
