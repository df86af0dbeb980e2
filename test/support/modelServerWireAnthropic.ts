import type { ScriptedReply } from './modelServerScript';
import { argumentObject, argumentText, split, textChunks, type StreamEvent, type WireFormat } from './modelServerWire';

/**
 * Anthropic's Messages API (POST /v1/messages), as Claude Code calls it: server-sent events that
 * name their type on an `event:` line (message_start, content_block_start/delta/stop, message_delta
 * with the stop reason, message_stop); tool calls are `tool_use` blocks whose input arrives as
 * `input_json_delta` pieces.
 */
export const anthropicWire: WireFormat = {
  events: anthropicEvents,
  completion: anthropicCompletion,
  errorBody: (status, message) => ({
    type: 'error',
    error: { type: status === 401 ? 'authentication_error' : status === 429 ? 'rate_limit_error' : status === 529 ? 'overloaded_error' : 'api_error', message },
  }),
  stream: {
    contentType: 'text/event-stream',
    frame: namedFrame,
    end: '',
    malformed: 'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "unterminated\n\n',
  },
  repeat: {
    event: (chunk) => namedFrame({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text: chunk } }),
    tail: namedFrame({ type: 'content_block_stop', index: 0 }) + namedFrame({ type: 'message_delta', delta: { stop_reason: 'end_turn', stop_sequence: null }, usage: { output_tokens: 1 } }) + namedFrame({ type: 'message_stop' }),
    jsonHead: '{"id":"msg_repeat","type":"message","role":"assistant","model":"scripted-claude","content":[{"type":"text","text":"',
    jsonTail: '"}],"stop_reason":"end_turn","stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":5}}',
  },
  stalledJsonStart: '{"id":"msg_stall","type":"message","role":"assistant","content":[',
};

/** An SSE event with its `event:` line taken from the data's `type`, as Anthropic sends them. */
export function namedFrame(data: unknown): string {
  return `event: ${(data as { type: string }).type}\ndata: ${JSON.stringify(data)}\n\n`;
}

function anthropicEvents(reply: ScriptedReply, nextId: () => number): StreamEvent[] {
  const calls = reply.toolCalls ?? [];
  const events: StreamEvent[] = [
    {
      data: {
        type: 'message_start',
        message: { id: `msg_${nextId()}`, type: 'message', role: 'assistant', model: 'scripted-claude', content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
      },
    },
  ];
  let index = 0;
  const texts = textChunks(reply);
  if (texts.length) {
    events.push({ data: { type: 'content_block_start', index, content_block: { type: 'text', text: '' } } });
    for (const text of texts) events.push({ data: { type: 'content_block_delta', index, delta: { type: 'text_delta', text } } });
    events.push({ data: { type: 'content_block_stop', index } });
    index++;
  }
  for (const call of calls) {
    events.push({ data: { type: 'content_block_start', index, content_block: { type: 'tool_use', id: call.id ?? `toolu_${nextId()}`, name: call.name, input: {} } } });
    const pieces = split(argumentText(call), 3);
    pieces.forEach((piece, p) =>
      events.push({ data: { type: 'content_block_delta', index, delta: { type: 'input_json_delta', partial_json: piece } }, cutHere: p === 0 && pieces.length > 1 }),
    );
    events.push({ data: { type: 'content_block_stop', index } });
    index++;
  }
  events.push({ data: { type: 'message_delta', delta: { stop_reason: calls.length ? 'tool_use' : 'end_turn', stop_sequence: null }, usage: { output_tokens: 5 } } });
  events.push({ data: { type: 'message_stop' } });
  return events;
}

function anthropicCompletion(reply: ScriptedReply, nextId: () => number): Record<string, unknown> {
  const text = reply.text ?? reply.chunks?.join('');
  const calls = reply.toolCalls ?? [];
  const content = [
    ...(text ? [{ type: 'text', text }] : []),
    ...calls.map((call) => ({ type: 'tool_use', id: call.id ?? `toolu_${nextId()}`, name: call.name, input: argumentObject(call) })),
  ];
  return {
    id: `msg_${nextId()}`,
    type: 'message',
    role: 'assistant',
    model: 'scripted-claude',
    content,
    stop_reason: calls.length ? 'tool_use' : 'end_turn',
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 5 },
  };
}
