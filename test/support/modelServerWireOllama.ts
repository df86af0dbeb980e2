import type { ScriptedReply } from './modelServerScript';
import { argumentObject, textChunks, type StreamEvent, type WireFormat } from './modelServerWire';
import { geminiWire } from './modelServerWireGemini';

/** Ollama's native /api/chat: one JSON object a line (NDJSON), tool calls whole, `done` on the last. */
export const ollamaWire: WireFormat = {
  events: ollamaEvents,
  completion: ollamaCompletion,
  errorBody: (_status, message) => ({ error: message }),
  stream: { contentType: 'application/x-ndjson', frame: (data) => `${JSON.stringify(data)}\n`, end: '', malformed: '{"message": {"content": "unterminated\n' },
  // The flood and stalled-body faults are scripted for OpenAI and Gemini clients; an Ollama
  // request gets Gemini's bytes for them.
  repeat: geminiWire.repeat,
  stalledJsonStart: geminiWire.stalledJsonStart,
};

function ollamaEvents(reply: ScriptedReply): StreamEvent[] {
  const line = (message: Record<string, unknown>, done = false) => ({
    model: 'scripted-ollama',
    created_at: '2026-01-01T00:00:00Z',
    message: { role: 'assistant', content: '', ...message },
    done,
    ...(done ? { done_reason: 'stop', prompt_eval_count: 10, eval_count: 5 } : {}),
  });
  const events: StreamEvent[] = textChunks(reply).map((content) => ({ data: line({ content }) }));
  const calls = ollamaCalls(reply);
  if (calls.length) events.push({ data: line({ tool_calls: calls }), cutHere: true });
  events.push({ data: line({}, true) });
  return events;
}

function ollamaCompletion(reply: ScriptedReply): Record<string, unknown> {
  const calls = ollamaCalls(reply);
  return {
    model: 'scripted-ollama',
    message: { role: 'assistant', content: reply.text ?? (reply.chunks ? reply.chunks.join('') : ''), ...(calls.length ? { tool_calls: calls } : {}) },
    done: true,
    done_reason: 'stop',
    prompt_eval_count: 10,
    eval_count: 5,
  };
}

function ollamaCalls(reply: ScriptedReply): unknown[] {
  return (reply.toolCalls ?? []).map((call) => ({ function: { name: call.name, arguments: argumentObject(call) } }));
}
