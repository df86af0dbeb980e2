import { ANSWER_CAP_REASON, MAX_ANSWER_CHARS } from './limits';
import { formatPromptCall, PromptToolCallParser, toolsPrompt } from './promptToolCalls';
import type { ChatMessage, ChatRequest, ProviderEvent, ToolCall } from './types';
import { WrappedProvider } from './wrappedProvider';

/**
 * Wraps a provider whose model cannot call tools natively: the tools go into the system
 * prompt, earlier calls and results are written into the conversation as text, and calls are
 * read out of the model's answer. The Agent sees the same events as from a native provider.
 * The answer cap counts every character read, the hidden call blocks too: at MAX_ANSWER_CHARS it
 * stops reading and ends the reply with ANSWER_CAP_REASON, running none of its calls.
 */
export class PromptToolCallingProvider extends WrappedProvider {
  async *stream(request: ChatRequest): AsyncIterable<ProviderEvent> {
    if (request.tools.length === 0) {
      yield* this.inner.stream(request);
      return;
    }
    const parser = new PromptToolCallParser(new Set(request.tools.map((t) => t.function.name)));
    const messages = asPromptConversation(request.messages, toolsPrompt(request.tools));
    let done: Extract<ProviderEvent, { type: 'done' }> | undefined;
    let read = 0;
    for await (const event of this.inner.stream({ ...request, messages, tools: [] })) {
      if (event.type === 'text') {
        const room = MAX_ANSWER_CHARS - read;
        read += event.text.length;
        if (read > MAX_ANSWER_CHARS) {
          // A block still open at the cut is dropped unread; leaving the loop stops the inner request.
          const text = parser.push(event.text.slice(0, room));
          if (text) yield { type: 'text', text };
          yield { type: 'done', finishReason: ANSWER_CAP_REASON };
          return;
        }
        const text = parser.push(event.text);
        if (text) yield { type: 'text', text };
      } else if (event.type === 'done') {
        done = event;
      }
    }
    const { text, calls } = parser.finish();
    if (text) yield { type: 'text', text };
    for (const { call, error } of calls) {
      yield { type: 'tool_call_begin', id: call.id, name: call.name };
      yield { type: 'tool_call', call: error ? { ...call, unreadable: error } : call };
    }
    yield { type: 'done', finishReason: calls.length ? 'tool_calls' : (done?.finishReason ?? 'stop'), usage: done?.usage };
  }
}

/** The conversation as a model without tool support reads it: calls and results as text. */
export function asPromptConversation(messages: readonly ChatMessage[], prompt: string): ChatMessage[] {
  const out: ChatMessage[] = [];
  const system = messages.find((m) => m.role === 'system');
  out.push({ role: 'system', content: system ? `${system.content}\n\n${prompt}` : prompt });
  let results: string[] = [];
  const flushResults = () => {
    if (results.length) out.push({ role: 'user', content: results.join('\n\n') });
    results = [];
  };
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'tool':
        results.push(`Result of ${message.name} (${message.toolCallId}):\n${message.content}`);
        break;
      case 'assistant':
        flushResults();
        out.push({ role: 'assistant', content: [message.content, ...(message.toolCalls ?? []).map((c: ToolCall) => formatPromptCall(c))].filter(Boolean).join('\n\n') });
        break;
      default:
        flushResults();
        out.push(message);
    }
  }
  flushResults();
  return out;
}
