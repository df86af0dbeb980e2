import type { ScriptedReply, ScriptedToolCall } from './modelServerScript';

/*
 * What the scripted model server needs from each provider's wire format, and the pieces the
 * formats share. One module per provider implements `WireFormat` (modelServerWire<Provider>.ts).
 */

export interface StreamEvent {
  data: unknown;
  /** The 'cut-in-tool-args' fault ends the stream right after this event. */
  cutHere?: boolean;
}

export interface WireFormat {
  /** A streamed answer's events, in order; `nextId` numbers completion and call ids. */
  events(reply: ScriptedReply, nextId: () => number): StreamEvent[];
  /** The whole answer, for a request that does not stream. */
  completion(reply: ScriptedReply, nextId: () => number): Record<string, unknown>;
  /** The JSON body of an HTTP error (the 'http' fault). */
  errorBody(status: number, message: string, retryAfter?: string): unknown;
  stream: {
    contentType: string;
    frame(data: unknown): string;
    /** Written after the last event ('' when the format has no end marker). */
    end: string;
    /** The text of the 'malformed' fault: an event cut inside a string. */
    malformed: string;
  };
  /** A generated `repeat` answer, written piece by piece. */
  repeat: {
    /** Streamed: the event sent for each repetition of `chunk`, and what ends the stream. */
    event(chunk: string): string;
    tail: string;
    /** Not streamed: the JSON text before and after the repeated (escaped) chunk. */
    jsonHead: string;
    jsonTail: string;
  };
  /** The first bytes of a JSON answer whose rest never comes (the 'stall-after-headers' fault). */
  stalledJsonStart: string;
}

/** A server-sent event carrying `data` as JSON. */
export function sseFrame(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}

/** A server-sent event whose data stops inside a string: JSON in no format. */
export const MALFORMED_SSE_EVENT = 'data: {"choices": [{"delta": {"content": "unterminated\n\n';

export function textChunks(reply: ScriptedReply): string[] {
  if (reply.chunks) return reply.chunks;
  if (!reply.text) return [];
  return split(reply.text, Math.min(4, reply.text.length));
}

export function argumentText(call: ScriptedToolCall): string {
  return typeof call.arguments === 'string' ? call.arguments : JSON.stringify(call.arguments);
}

/** A call's arguments as an object; malformed argument text becomes `{}`. */
export function argumentObject(call: ScriptedToolCall): unknown {
  return typeof call.arguments === 'string' ? safeParse(call.arguments) : call.arguments;
}

/** Splits text into `parts` nearly equal pieces (tool-call deltas split across chunks). */
export function split(text: string, parts: number): string[] {
  if (parts <= 1 || text.length < parts) return [text];
  const size = Math.ceil(text.length / parts);
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}
