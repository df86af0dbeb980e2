import type { JsonSchema, ToolParameters } from './interface';

/** Thrown for arguments that do not fit a tool's schema; the message is written for the model. */
export class ToolArgumentError extends Error {
  override name = 'ToolArgumentError';
}

/**
 * Checks arguments against a tool's parameter schema (the manifest's subset of JSON Schema) and
 * returns them with light coercion that small local models need: "42" for an integer and
 * "true" for a boolean are accepted. Unknown properties are dropped. Throws ToolArgumentError
 * naming every problem, so the model can correct its call in one go.
 */
export function validateArguments(toolName: string, schema: ToolParameters, args: unknown): Record<string, unknown> {
  if (args === undefined || args === null) args = {};
  if (typeof args !== 'object' || Array.isArray(args)) {
    throw new ToolArgumentError(`Invalid arguments for ${toolName}: expected a JSON object, got ${describe(args)}.`);
  }
  const input = args as Record<string, unknown>;
  const problems: string[] = [];
  const result: Record<string, unknown> = {};
  for (const name of schema.required ?? []) {
    if (input[name] === undefined || input[name] === null) problems.push(`"${name}" is required`);
  }
  for (const [name, propertySchema] of Object.entries(schema.properties)) {
    const value = input[name];
    if (value === undefined || value === null) continue;
    const checked = checkValue(name, propertySchema, value);
    if (typeof checked === 'string') problems.push(checked);
    else result[name] = checked.value;
  }
  if (problems.length > 0) {
    throw new ToolArgumentError(`Invalid arguments for ${toolName}: ${problems.join('; ')}.`);
  }
  return result;
}

function checkValue(name: string, schema: JsonSchema, raw: unknown): { value: unknown } | string {
  let value = raw;
  switch (schema.type) {
    case 'string':
      if (typeof value === 'number' || typeof value === 'boolean') value = String(value);
      if (typeof value !== 'string') return `"${name}" must be a string, got ${describe(raw)}`;
      if (schema.minLength !== undefined && value.length < schema.minLength) {
        return schema.minLength === 1 ? `"${name}" must not be empty` : `"${name}" must be at least ${schema.minLength} characters`;
      }
      if (schema.maxLength !== undefined && value.length > schema.maxLength) {
        return `"${name}" must be at most ${schema.maxLength} characters`;
      }
      break;
    case 'integer':
    case 'number':
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) value = Number(value);
      if (typeof value !== 'number' || !Number.isFinite(value)) return `"${name}" must be a number, got ${describe(raw)}`;
      if (schema.type === 'integer' && !Number.isInteger(value)) return `"${name}" must be a whole number, got ${value}`;
      if (schema.minimum !== undefined && value < schema.minimum) return `"${name}" must be ≥ ${schema.minimum}, got ${value}`;
      if (schema.maximum !== undefined && value > schema.maximum) return `"${name}" must be ≤ ${schema.maximum}, got ${value}`;
      break;
    case 'boolean':
      if (value === 'true' || value === 'false') value = value === 'true';
      if (typeof value !== 'boolean') return `"${name}" must be true or false, got ${describe(raw)}`;
      break;
    default:
      break;
  }
  if (schema.enum && !schema.enum.includes(value as string | number | boolean)) {
    return `"${name}" must be one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(raw)}`;
  }
  return { value };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return `${typeof value} ${String(value)}`;
}
