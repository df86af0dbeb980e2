import type { GeminiTools } from '../tools/formats';
import type { ChatTool, JsonSchema } from '../tools/interface';

/*
 * Gemini's tools as the provider sends them: the declarations' schemas fitted to the OpenAPI subset
 * Gemini accepts. It lives with the providers so the chat bundle (dist/chat.js) needs nothing from
 * src/tools at run time (the shapes are types, which vanish).
 */

/** The declarations for a request, each schema fitted to Gemini (see toGeminiSchema). */
export function toGeminiRequestTools(tools: readonly ChatTool[]): GeminiTools {
  return {
    functionDeclarations: tools.map(({ function: fn }) => {
      const parameters = toGeminiSchema(fn.parameters);
      const hasParameters = parameters.properties !== undefined && Object.keys(parameters.properties).length > 0;
      // Gemini rejects an OBJECT schema with no properties, so a tool without parameters declares none.
      return hasParameters ? { name: fn.name, description: fn.description, parameters } : { name: fn.name, description: fn.description };
    }),
  };
}

/** The JSON Schema keywords Gemini's OpenAPI-subset Schema accepts. */
const GEMINI_KEYWORDS = new Set([
  'type', 'format', 'description', 'nullable', 'enum', 'properties', 'required', 'items',
  'minItems', 'maxItems', 'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'anyOf',
  'propertyOrdering', 'title', 'default',
]);

/**
 * Rewrites a JSON Schema into the subset Gemini accepts: unknown keywords are dropped
 * (`additionalProperties`, `$schema`, ...), exclusive bounds become inclusive ones, enums become
 * strings, arrays without `items` get string items, and `required` only names real properties.
 */
export function toGeminiSchema(schema: JsonSchema): JsonSchema {
  const out: JsonSchema = {};
  for (const [key, value] of Object.entries(schema)) {
    if (value === undefined) continue;
    if (key === 'exclusiveMinimum' && typeof value === 'number' && schema.minimum === undefined) out.minimum = value;
    else if (key === 'exclusiveMaximum' && typeof value === 'number' && schema.maximum === undefined) out.maximum = value;
    else if (GEMINI_KEYWORDS.has(key)) out[key] = structuredClone(value);
  }
  if (Array.isArray(schema.type)) out.type = (schema.type as string[]).find((t) => t !== 'null') as JsonSchema['type'];
  if (schema.properties) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).map(([name, sub]) => [name, toGeminiSchema(sub)]));
    if (schema.required) out.required = schema.required.filter((name) => name in schema.properties!);
  } else {
    delete out.required;
  }
  if (out.type === 'array') out.items = schema.items ? toGeminiSchema(schema.items) : { type: 'string' };
  if (Array.isArray(schema.anyOf)) out.anyOf = (schema.anyOf as JsonSchema[]).map(toGeminiSchema);
  if (schema.enum) {
    out.enum = schema.enum.map(String);
    out.type = 'string';
  }
  return out;
}
