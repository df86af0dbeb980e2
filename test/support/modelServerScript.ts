/** What a test scripts the model server to answer: text, tool calls, faults, raw replies. */

export interface ScriptedToolCall {
  name: string;
  /** A JSON object, or raw text (to send malformed arguments). */
  arguments: Record<string, unknown> | string;
  id?: string;
  /** Responses API only: a `custom_tool_call` whose input is the raw `arguments` text (Codex's freeform apply_patch). */
  freeform?: boolean;
}

export type Fault =
  /** Answer with `status` (401, 429, 500, …) and the provider's error body. */
  | 'http'
  /** Close the connection before any response. */
  | 'reset'
  /** Send the first chunks, then close the connection. */
  | 'reset-mid-stream'
  /** Send the first chunks, then nothing, keeping the connection open. */
  | 'stall'
  /** Send an event whose data is not JSON. */
  | 'malformed'
  /** End the stream in the middle of a tool call's arguments. */
  | 'cut-in-tool-args'
  /** End the stream in the middle of the text, without a finish reason. */
  | 'cut-in-text'
  /**
   * Send the status (200, or `status`) and headers, and for a JSON or error reply the first bytes
   * of the body, then nothing, keeping the connection open.
   */
  | 'stall-after-headers';

/** A reply sent exactly as given, whatever the request's format. */
export interface RawReply {
  status?: number;
  contentType?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
}

export interface ScriptedReply {
  text?: string;
  /** Explicit text chunks (default: the text split into a few pieces). */
  chunks?: string[];
  toolCalls?: ScriptedToolCall[];
  fault?: Fault;
  status?: number;
  retryAfter?: string;
  errorMessage?: string;
  /** Milliseconds between streamed chunks (to test stopping a long answer). */
  chunkDelayMs?: number;
  /** Gemini only: a thought signature on each function call part. */
  thoughtSignature?: string;
  /** Gemini only: give function calls ids. */
  withCallIds?: boolean;
  /** Send this status, content type and body as they are (error pages, junk, redirects). */
  raw?: RawReply;
  /**
   * A generated answer: `chunk` sent `times` times (as SSE events, or inside one JSON body),
   * written as the client reads it, never built whole in memory.
   */
  repeat?: { chunk: string; times: number };
}
