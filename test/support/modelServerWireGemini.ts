import type { ScriptedReply } from './modelServerScript';
import { argumentObject, MALFORMED_SSE_EVENT, sseFrame, textChunks, type StreamEvent, type WireFormat } from './modelServerWire';

/** Gemini's generateContent and streamGenerateContent (server-sent events, no end marker). */
export const geminiWire: WireFormat = {
  events: geminiEvents,
  completion: geminiCompletion,
  errorBody: (status, message, retryAfter) => ({
    error: {
      code: status,
      message,
      status: status === 429 ? 'RESOURCE_EXHAUSTED' : status === 401 ? 'UNAUTHENTICATED' : 'INTERNAL',
      ...(retryAfter ? { details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: `${retryAfter}s` }] } : {}),
    },
  }),
  stream: { contentType: 'text/event-stream', frame: sseFrame, end: '', malformed: MALFORMED_SSE_EVENT },
  repeat: {
    event: (chunk) => sseFrame({ candidates: [{ content: { role: 'model', parts: [{ text: chunk }] }, index: 0 }] }),
    tail: sseFrame({ candidates: [{ content: { role: 'model', parts: [{ text: '' }] }, finishReason: 'STOP', index: 0 }] }),
    jsonHead: '{"candidates":[{"content":{"role":"model","parts":[{"text":"',
    jsonTail: '"}]},"finishReason":"STOP","index":0}]}',
  },
  stalledJsonStart: '{"candidates":[',
};

function geminiEvents(reply: ScriptedReply): StreamEvent[] {
  const candidate = (parts: unknown[], finishReason?: string) => ({
    candidates: [{ content: { role: 'model', parts }, ...(finishReason ? { finishReason } : {}), index: 0 }],
    ...(finishReason ? { usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 } } : {}),
  });
  const events: StreamEvent[] = textChunks(reply).map((text) => ({ data: candidate([{ text }]) }));
  const calls = callParts(reply);
  if (calls.length) events.push({ data: candidate(calls), cutHere: true });
  events.push({ data: candidate(calls.length ? [] : [{ text: '' }], 'STOP') });
  return events;
}

function geminiCompletion(reply: ScriptedReply): Record<string, unknown> {
  const parts = [...(reply.text || reply.chunks ? [{ text: reply.text ?? reply.chunks!.join('') }] : []), ...callParts(reply)];
  return { candidates: [{ content: { role: 'model', parts }, finishReason: 'STOP', index: 0 }], usageMetadata: { promptTokenCount: 10, candidatesTokenCount: 5 } };
}

function callParts(reply: ScriptedReply): unknown[] {
  return (reply.toolCalls ?? []).map((call, i) => ({
    functionCall: { ...(reply.withCallIds ? { id: call.id ?? `gem-${i}` } : {}), name: call.name, args: argumentObject(call) },
    ...(reply.thoughtSignature ? { thoughtSignature: reply.thoughtSignature } : {}),
  }));
}
