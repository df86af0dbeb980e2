export type ParsedArguments = { ok: true; args: Record<string, unknown> } | { ok: false; error: string };

/**
 * Reads the JSON text a model sent as a tool call's arguments. Empty text means no arguments
 * (models send "" for tools without parameters); anything that is not a JSON object is refused
 * with an error the model can act on, never silently turned into `{}`.
 */
export function parseToolArguments(toolName: string, text: string): ParsedArguments {
  if (text.trim() === '') return { ok: true, args: {} };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    const preview = text.length > 120 ? `${text.slice(0, 120)}…` : text;
    return {
      ok: false,
      error: `Error: the arguments for ${toolName} are not valid JSON (${(error as Error).message}); the tool was not run. Received: ${preview}. Send the arguments as one JSON object.`,
    };
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return { ok: false, error: `Error: the arguments for ${toolName} must be a JSON object, not ${Array.isArray(value) ? 'an array' : JSON.stringify(value)}; the tool was not run.` };
  }
  return { ok: true, args: value as Record<string, unknown> };
}
