import { MAX_TOOL_ARGUMENT_CHARS, oversizedArgumentsError } from '../providers/limits';

export { oversizedArgumentsError };

/** Tool calls one model reply may make; the ones past it are answered with an error, not run. */
export const MAX_TOOL_CALLS_PER_REPLY = 128;

export type ParsedArguments = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/** The deepest nesting of objects and arrays accepted in arguments (tools, JSON.stringify and cards recurse). */
export const MAX_ARGUMENT_DEPTH = 64;

/**
 * Reads the JSON text a model sent as a tool call's arguments. Empty text means no arguments
 * (models send "" for tools without parameters); anything that is not a JSON object is refused
 * with an error the model can act on, never silently turned into `{}`. Arguments longer than
 * MAX_TOOL_ARGUMENT_CHARS or nested deeper than MAX_ARGUMENT_DEPTH are refused before parsing,
 * and `__proto__` keys are dropped at every level, so no argument can reach a prototype.
 */
export function parseToolArguments(toolName: string, text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, args: {} };
  if (text.length > MAX_TOOL_ARGUMENT_CHARS) return { ok: false, error: oversizedArgumentsError(toolName) };
  if (nestingDepth(text) > MAX_ARGUMENT_DEPTH) {
    return { ok: false, error: `Error: the arguments for ${toolName} are nested more than ${MAX_ARGUMENT_DEPTH} levels deep; the tool was not run. Send a flat JSON object.` };
  }
  let value: unknown;
  try {
    value = JSON.parse(text, (key, item: unknown) => (key === '__proto__' ? undefined : item));
  } catch (error) {
    const preview = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    return {
      ok: false,
      error: `Error: the arguments for ${toolName} are not valid JSON (${(error as Error).message.slice(0, 200)}); the tool was not run. Received: ${preview}. Send the arguments as one JSON object.`,
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
    return { ok: false, error: `Error: the arguments for ${toolName} must be a JSON object, not ${kind}; the tool was not run.` };
  }
  return { ok: true, args: value as Record<string, unknown> };
}

/** The deepest nesting of `{`/`[` outside strings, in one linear pass (JSON.parse is not asked to try). */
function nestingDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > deepest) deepest = depth;
      if (deepest > MAX_ARGUMENT_DEPTH) return deepest;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return deepest;
}

/**
 * The result for a call past MAX_TOOL_CALLS_PER_REPLY in one reply. The first such call is
 * answered for the `more` after it, which are left out of the conversation (thousands of calls
 * and errors would not fit the model's context window).
 */
export function tooManyCallsError(toolName: string, more = 0): string {
  const others = more > 0 ? `, nor were the ${more.toLocaleString('en-US')} call${more === 1 ? '' : 's'} after it (left out of the conversation)` : '';
  return `Error: ${toolName} was not run${others}: one reply may make at most ${MAX_TOOL_CALLS_PER_REPLY} tool calls. Make the remaining calls in your next reply.`;
}
