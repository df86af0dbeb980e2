import type { ScriptedReply, ScriptedToolCall } from './modelServerScript';
import { argumentText, split, textChunks, type StreamEvent, type WireFormat } from './modelServerWire';
import { namedFrame } from './modelServerWireAnthropic';

/**
 * OpenAI's Responses API (POST /v1/responses), as Codex calls it: server-sent events named by their
 * type (response.created, response.output_item.added/done, response.content_part.added/done,
 * response.output_text.delta/done, response.function_call_arguments.delta, response.completed). A tool call is a `function_call`
 * item, or with `freeform: true` a `custom_tool_call` item whose input is raw text (Codex's
 * freeform apply_patch).
 */
export const responsesWire: WireFormat = {
  events: responsesEvents,
  completion: (reply, nextId) => responseObject(`resp_${nextId()}`, outputItems(reply, nextId), 'completed'),
  errorBody: (status, message) => ({ error: { message, type: status === 401 ? 'invalid_request_error' : status === 429 ? 'rate_limit_exceeded' : 'server_error', code: null } }),
  stream: {
    contentType: 'text/event-stream',
    frame: namedFrame,
    end: '',
    malformed: 'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta": "unterminated\n\n',
  },
  repeat: {
    event: (chunk) => namedFrame({ type: 'response.output_text.delta', item_id: 'msg_repeat', output_index: 0, content_index: 0, delta: chunk }),
    tail: namedFrame({ type: 'response.completed', response: responseObject('resp_repeat', [], 'completed') }),
    jsonHead: '{"id":"resp_repeat","object":"response","status":"completed","model":"scripted-codex","output":[{"type":"message","id":"msg_repeat","role":"assistant","status":"completed","content":[{"type":"output_text","annotations":[],"text":"',
    jsonTail: '"}]}],"usage":{"input_tokens":10,"output_tokens":5,"total_tokens":15}}',
  },
  stalledJsonStart: '{"id":"resp_stall","object":"response","output":[',
};

type Item = Record<string, unknown> & { type: string; id: string };

function responseObject(id: string, output: unknown[], status: string): Record<string, unknown> {
  return {
    id,
    object: 'response',
    created_at: 1_700_000_000,
    status,
    model: 'scripted-codex',
    output,
    usage: { input_tokens: 10, input_tokens_details: { cached_tokens: 0 }, output_tokens: 5, output_tokens_details: { reasoning_tokens: 0 }, total_tokens: 15 },
  };
}

function callItem(call: ScriptedToolCall & { freeform?: boolean }, nextId: () => number): Item {
  const n = nextId();
  const callId = call.id ?? `call_${n}`;
  if (call.freeform) return { type: 'custom_tool_call', id: `ctc_${n}`, call_id: callId, name: call.name, input: argumentText(call), status: 'completed' };
  return { type: 'function_call', id: `fc_${n}`, call_id: callId, name: call.name, arguments: argumentText(call), status: 'completed' };
}

function outputItems(reply: ScriptedReply, nextId: () => number): Item[] {
  const items: Item[] = [];
  const text = textChunks(reply).join('');
  if (text) items.push({ type: 'message', id: `msg_${nextId()}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', annotations: [], text }] });
  for (const call of reply.toolCalls ?? []) items.push(callItem(call, nextId));
  return items;
}

function responsesEvents(reply: ScriptedReply, nextId: () => number): StreamEvent[] {
  const id = `resp_${nextId()}`;
  const events: StreamEvent[] = [{ data: { type: 'response.created', response: responseObject(id, [], 'in_progress') } }];
  const done: Item[] = [];
  const texts = textChunks(reply);
  if (texts.length) {
    const item: Item = { type: 'message', id: `msg_${nextId()}`, role: 'assistant', status: 'completed', content: [{ type: 'output_text', annotations: [], text: texts.join('') }] };
    const output_index = done.length;
    const part = { item_id: item.id, output_index, content_index: 0 };
    const whole = texts.join('');
    events.push({ data: { type: 'response.output_item.added', output_index, item: { ...item, status: 'in_progress', content: [] } } });
    events.push({ data: { type: 'response.content_part.added', ...part, part: { type: 'output_text', annotations: [], text: '' } } });
    for (const delta of texts) events.push({ data: { type: 'response.output_text.delta', ...part, delta } });
    events.push({ data: { type: 'response.output_text.done', ...part, text: whole } });
    events.push({ data: { type: 'response.content_part.done', ...part, part: { type: 'output_text', annotations: [], text: whole } } });
    events.push({ data: { type: 'response.output_item.done', output_index, item } });
    done.push(item);
  }
  for (const call of reply.toolCalls ?? []) {
    const item = callItem(call, nextId);
    const output_index = done.length;
    const text = String(item.type === 'function_call' ? item.arguments : item.input);
    const empty = item.type === 'function_call' ? { arguments: '' } : { input: '' };
    events.push({ data: { type: 'response.output_item.added', output_index, item: { ...item, ...empty, status: 'in_progress' } } });
    const deltaType = item.type === 'function_call' ? 'response.function_call_arguments.delta' : 'response.custom_tool_call_input.delta';
    const pieces = split(text, 3);
    pieces.forEach((delta, p) => events.push({ data: { type: deltaType, item_id: item.id, output_index, delta }, cutHere: p === 0 && pieces.length > 1 }));
    events.push({ data: { type: 'response.output_item.done', output_index, item } });
    done.push(item);
  }
  events.push({ data: { type: 'response.completed', response: responseObject(id, done, 'completed') } });
  return events;
}
