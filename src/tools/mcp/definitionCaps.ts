import type { JsonSchema, ToolParameters } from '../interface';
import { originalLength } from './boundedJson';

/**
 * What a server says about one tool goes into every request to the model while the tool is
 * enabled, so it is capped:
 * - description: 2,048 characters, notice included. A tool says what it does in a few hundred
 *   (the builtins' longest is 369); five times that is room for usage notes. Past it a
 *   description is a mistake or an attempt to fill the model's context (or hide instructions in it).
 * - input schema: 16 KB of JSON, 25 times the builtins' largest (664 bytes): room for nested
 *   objects, enums and a description per property. A larger one is cut to its top-level
 *   properties (name, type, a short description, a small enum); the server still validates.
 * Each cut is said in `notices`, for the tree and the log.
 */
export interface DefinitionCaps {
  maxDescriptionChars: number;
  maxSchemaBytes: number;
}

export interface CappedDefinition {
  description: string;
  parameters: ToolParameters;
  notices: string[];
}

/** Property descriptions kept in a cut schema, and the enums small enough to keep. */
const PROPERTY_DESCRIPTION_CHARS = 200;
const ENUM_ITEMS = 20;
const PROPERTY_NAME_CHARS = 128;

export function capDefinition(description: string, parameters: ToolParameters, caps: DefinitionCaps): CappedDefinition {
  const notices: string[] = [];
  let kept = description;
  if (description.length > caps.maxDescriptionChars) {
    const total = originalLength(description);
    const notice = `… [description cut by Toolbelt: ${total.toLocaleString('en-US')} characters]`;
    kept = `${description.slice(0, Math.max(0, caps.maxDescriptionChars - notice.length))}${notice}`;
    notices.push(`description cut from ${total.toLocaleString('en-US')} to ${caps.maxDescriptionChars.toLocaleString('en-US')} characters`);
  }
  const schemaBytes = Buffer.byteLength(JSON.stringify(parameters));
  if (schemaBytes <= caps.maxSchemaBytes) return { description: kept, parameters, notices };
  const { schema, keptCount, total } = topLevelOnly(parameters, caps.maxSchemaBytes);
  notices.push(
    `input schema cut from ${kilobytes(schemaBytes)} to ${kilobytes(Buffer.byteLength(JSON.stringify(schema)))}: ` +
      `${keptCount.toLocaleString('en-US')} of ${total.toLocaleString('en-US')} top-level properties kept, without their details`,
  );
  return { description: kept, parameters: schema, notices };
}

/** The schema's top-level properties, each reduced to type, a short description and a small enum, while they fit. */
function topLevelOnly(parameters: ToolParameters, maxBytes: number): { schema: ToolParameters; keptCount: number; total: number } {
  const properties: Record<string, JsonSchema> = {};
  const required = new Set(Array.isArray(parameters.required) ? parameters.required.filter((r): r is string => typeof r === 'string') : []);
  const entries = isObject(parameters.properties) ? Object.entries(parameters.properties) : [];
  // Room for the wrapper and the required list.
  let bytes = 64;
  let keptCount = 0;
  for (const [name, property] of entries) {
    if (name.length > PROPERTY_NAME_CHARS) continue;
    const reduced = reduceProperty(property);
    const cost = Buffer.byteLength(JSON.stringify(name)) + Buffer.byteLength(JSON.stringify(reduced)) + (required.has(name) ? name.length + 4 : 0) + 2;
    if (bytes + cost > maxBytes) break;
    bytes += cost;
    Object.defineProperty(properties, name, { value: reduced, enumerable: true, writable: true, configurable: true });
    keptCount++;
  }
  const keptRequired = [...required].filter((name) => Object.hasOwn(properties, name));
  const schema = { type: 'object', properties, ...(keptRequired.length > 0 && { required: keptRequired }) } as ToolParameters;
  return { schema, keptCount, total: entries.length };
}

function reduceProperty(property: unknown): JsonSchema {
  if (!isObject(property)) return {} as JsonSchema;
  const out: Record<string, unknown> = {};
  const { type, description } = property;
  if (typeof type === 'string' && type.length <= 20) out.type = type;
  else if (Array.isArray(type) && type.length <= 8 && type.every((t) => typeof t === 'string' && t.length <= 20)) out.type = type;
  if (typeof description === 'string') out.description = description.length > PROPERTY_DESCRIPTION_CHARS ? `${description.slice(0, PROPERTY_DESCRIPTION_CHARS)}…` : description;
  const values = property.enum;
  if (Array.isArray(values) && values.length <= ENUM_ITEMS && values.every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v)) && JSON.stringify(values).length <= 1024) out.enum = values;
  return out as JsonSchema;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function kilobytes(bytes: number): string {
  return bytes < 1024 * 1024 ? `${Math.ceil(bytes / 1024)} KB` : `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
