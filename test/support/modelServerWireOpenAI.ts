import type { ScriptedReply } from './modelServerScript';
import { argumentText, MALFORMED_SSE_EVENT, split, sseFrame, textChunks, type StreamEvent, type WireFormat } from './modelServerWire';

/** OpenAI's Chat Completions (also Ollama's OpenAI-compatible /v1): chunks as server-sent events, ending with [DONE]. */
export const openaiWire: WireFormat = {
  events: openaiEvents,
  completion: openaiCompletion,
  errorBody: (status, message) => ({ error: { message, type: status === 401 ? 'invalid_request_error' : 'server_error', code: null } }),
  stream: { contentType: 'text/event-stream', frame: sseFrame, end: 'data: [DONE]\n\n', malformed: MALFORMED_SSE_EVENT },
  repeat: {
    event: (chunk) => sseFrame(repeatChunk({ content: chunk }, null)),
    tail: `${sseFrame(repeatChunk({}, 'stop'))}data: [DONE]\n\n`,
    jsonHead: '{"id":"chatcmpl-repeat","object":"chat.completion","created":1,"model":"scripted-model","choices":[{"index":0,"message":{"role":"assistant","content":"',
    jsonTail: '"},"finish_reason":"stop"}]}',
  },
  stalledJsonStart: '{"id":"chatcmpl-stall","object":"chat.completion","choices":[',
};

function openaiEvents(reply: ScriptedReply, nextId: () => number): StreamEvent[] {
  const id = `chatcmpl-${nextId()}`;
  const chunk = (delta: Record<string, unknown>, finish: string | null = null) => ({
    id,
    object: 'chat.completion.chunk',
    created: 1_700_000_000,
    model: 'scripted-model',
    choices: [{ index: 0, delta, finish_reason: finish }],
  });
  const events: StreamEvent[] = [{ data: chunk({ role: 'assistant', content: '' }) }];
  for (const text of textChunks(reply)) events.push({ data: chunk({ content: text }) });
  for (const [index, call] of (reply.toolCalls ?? []).entries()) {
    const args = argumentText(call);
    events.push({ data: chunk({ tool_calls: [{ index, id: call.id ?? `call_${nextId()}`, type: 'function', function: { name: call.name, arguments: '' } }] }) });
    const pieces = split(args, 3);
    pieces.forEach((piece, p) => events.push({ data: chunk({ tool_calls: [{ index, function: { arguments: piece } }] }), cutHere: p === 0 && pieces.length > 1 }));
  }
  events.push({ data: chunk({}, reply.toolCalls?.length ? 'tool_calls' : 'stop') });
  return events;
}

function openaiCompletion(reply: ScriptedReply, nextId: () => number): Record<string, unknown> {
  const toolCalls = (reply.toolCalls ?? []).map((call) => ({
    id: call.id ?? `call_${nextId()}`,
    type: 'function',
    function: { name: call.name, arguments: argumentText(call) },
  }));
  return {
    id: `chatcmpl-${nextId()}`,
    object: 'chat.completion',
    created: 1_700_000_000,
    model: 'scripted-model',
    choices: [
      {
        index: 0,
        message: { role: 'assistant', content: reply.text ?? (reply.chunks ? reply.chunks.join('') : null), ...(toolCalls.length ? { tool_calls: toolCalls } : {}) },
        finish_reason: toolCalls.length ? 'tool_calls' : 'stop',
      },
    ],
    usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
  };
}

/** A chunk of a generated `repeat` answer. */
function repeatChunk(delta: Record<string, unknown>, finish: string | null) {
  return { id: 'chatcmpl-repeat', object: 'chat.completion.chunk', created: 1, model: 'scripted-model', choices: [{ index: 0, delta, finish_reason: finish }] };
}
