import type { RecordedRequest } from './modelServer';

/**
 * What a request sent back to the model as the results of its tool calls, as text, whatever the
 * wire format: a test asserts on these that a secret did (or did not) reach the model.
 */
export function toolResults(request: RecordedRequest): string[] {
  const body = request.body;
  const text = (value: unknown): string => (typeof value === 'string' ? value : JSON.stringify(value));
  switch (request.format) {
    case 'anthropic':
      return ((body.messages ?? []) as { content?: unknown }[]).flatMap((m) =>
        Array.isArray(m.content) ? (m.content as { type?: string; content?: unknown }[]).filter((c) => c.type === 'tool_result').map((c) => text(c.content ?? '')) : [],
      );
    case 'responses':
      return ((body.input ?? []) as { type?: string; output?: unknown }[])
        .filter((item) => item.type === 'function_call_output' || item.type === 'custom_tool_call_output')
        .map((item) => text(item.output ?? ''));
    case 'gemini':
      return ((body.contents ?? []) as { parts?: { functionResponse?: unknown }[] }[]).flatMap((c) => (c.parts ?? []).filter((p) => p.functionResponse).map((p) => text(p.functionResponse)));
    default:
      return ((body.messages ?? []) as { role?: string; content?: unknown }[]).filter((m) => m.role === 'tool').map((m) => text(m.content ?? ''));
  }
}

/** Every tool result any recorded request sent back, joined: where to look for a leaked secret. */
export function allToolResults(requests: readonly RecordedRequest[]): string {
  return requests.flatMap(toolResults).join('\n');
}
