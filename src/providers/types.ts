import type { ChatTool } from '../tools/interface';
import type { ModelLimits } from './contextWindow';

/** A tool call as the model made it; `arguments` is the raw JSON text, checked by the Agent. */
export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
  /** Opaque data a provider must get back with the call (Gemini's thought signatures). */
  providerData?: Record<string, unknown>;
  /** Set when the model's call could not be read: the Agent answers with this error and runs nothing. */
  unreadable?: string;
}

/** The conversation in one provider-neutral shape; each provider maps it to its wire format. */
export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string }
  | { role: 'assistant'; content: string; toolCalls?: ToolCall[] }
  | { role: 'tool'; toolCallId: string; name: string; content: string };

export interface ChatRequest {
  messages: ChatMessage[];
  tools: ChatTool[];
  /** false asks for one JSON answer instead of a server-sent event stream. */
  stream?: boolean;
  signal?: AbortSignal;
}

export interface Usage {
  inputTokens?: number;
  outputTokens?: number;
}

/** What a provider yields for one model call. */
export type ProviderEvent =
  | { type: 'text'; text: string }
  /** A tool call's name arrived; its arguments are still streaming. */
  | { type: 'tool_call_begin'; id: string; name: string }
  /** A tool call, complete. */
  | { type: 'tool_call'; call: ToolCall }
  | { type: 'done'; finishReason: string; usage?: Usage };

export interface ChatProvider {
  /** `openai`, `ollama` or `gemini`. */
  readonly name: string;
  readonly model: string;
  /** Streams one completion. Failures throw ProviderError. */
  stream(request: ChatRequest): AsyncIterable<ProviderEvent>;
  /** Whether the model calls tools natively, when the service can tell (Ollama's /api/show). */
  supportsTools?(signal?: AbortSignal): Promise<boolean>;
  /** The model's context window and longest answer, from the service, the table or a setting. */
  limits?(signal?: AbortSignal): Promise<ModelLimits>;
}

export interface ProviderTimeouts {
  /** Longest wait for the first byte and between streamed chunks (default 60 s). */
  idleTimeoutMs?: number;
  /** The longest Retry-After a request waits out before giving up with a rate-limit error (default 10 s). */
  maxRetryWaitMs?: number;
  /** Retries of 429, 5xx and connection failures before any answer arrived (default 2). */
  maxRetries?: number;
}

/** How tools reach the model: its own tool calling, tools described in the prompt, or whichever works. */
export type ToolCallingMode = 'auto' | 'native' | 'prompt';
