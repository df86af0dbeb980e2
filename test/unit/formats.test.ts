import * as assert from 'node:assert/strict';
import { toGeminiSchema, toGeminiRequestTools } from '../../src/providers/geminiSchema';
import { toGeminiTools, toOpenAITools } from '../../src/tools/formats';
import type { ChatTool, JsonSchema } from '../../src/tools/interface';
import { BUILTIN_MANIFEST } from '../../src/tools/manifest';

const GEMINI_KEYWORDS = new Set([
  'type', 'format', 'description', 'nullable', 'enum', 'properties', 'required', 'items', 'minItems', 'maxItems',
  'minimum', 'maximum', 'minLength', 'maxLength', 'pattern', 'anyOf', 'propertyOrdering', 'title', 'default',
]);

function assertGeminiSafe(schema: JsonSchema, where: string): void {
  for (const key of Object.keys(schema)) assert.ok(GEMINI_KEYWORDS.has(key), `${where}: "${key}" is not accepted by Gemini`);
  if (schema.enum) assert.ok(schema.enum.every((v) => typeof v === 'string'), `${where}: enum values must be strings`);
  if (schema.type === 'array') assert.ok(schema.items, `${where}: arrays need items`);
  if (schema.type === 'object' && schema.properties) assert.ok(Object.keys(schema.properties).length > 0, `${where}: empty object`);
  for (const [name, sub] of Object.entries(schema.properties ?? {})) assertGeminiSafe(sub, `${where}.${name}`);
  if (schema.items) assertGeminiSafe(schema.items, `${where}[]`);
}

const manifestTools: ChatTool[] = BUILTIN_MANIFEST.map((d) => ({
  type: 'function',
  function: { name: d.name, description: d.description, parameters: d.parameters },
}));

describe('provider formats', () => {
  it('OpenAI format is the Chat Completions tool shape, as deep copies', () => {
    const tools = toOpenAITools(manifestTools);
    assert.deepEqual(tools, manifestTools);
    assert.notEqual(tools[0].function.parameters, manifestTools[0].function.parameters);
  });

  it("the registry's Gemini shape: each tool's declaration as declared, none for a tool without parameters", () => {
    const { functionDeclarations } = toGeminiTools(manifestTools);
    assert.deepEqual(functionDeclarations.map((d) => d.name), manifestTools.map((t) => t.function.name));
    const read = functionDeclarations.find((d) => d.name === 'read_file')!;
    assert.deepEqual(read.parameters, BUILTIN_MANIFEST.find((d) => d.name === 'read_file')!.parameters);
    assert.equal(functionDeclarations.find((d) => d.name === 'generate_uuid')!.parameters, undefined);
  });

  it('every builtin converts to a Gemini declaration Gemini accepts, as the provider sends it', () => {
    const { functionDeclarations } = toGeminiRequestTools(manifestTools);
    assert.equal(functionDeclarations.length, 13);
    for (const declaration of functionDeclarations) {
      assert.ok(declaration.name && declaration.description);
      if (declaration.parameters) assertGeminiSafe(declaration.parameters, declaration.name);
    }
  });

  it('a tool without parameters declares none to Gemini (it rejects empty OBJECT schemas)', () => {
    const uuid = toGeminiRequestTools(manifestTools).functionDeclarations.find((d) => d.name === 'generate_uuid')!;
    assert.equal(uuid.parameters, undefined);
    const calc = toGeminiRequestTools(manifestTools).functionDeclarations.find((d) => d.name === 'calculator')!;
    assert.deepEqual(calc.parameters?.required, ['expression']);
  });

  it('rewrites JSON Schema that Gemini rejects', () => {
    const converted = toGeminiSchema({
      type: 'object',
      additionalProperties: false,
      $schema: 'http://json-schema.org/draft-07/schema#',
      properties: {
        count: { type: 'integer', exclusiveMinimum: 0, exclusiveMaximum: 10 },
        tags: { type: 'array' },
        level: { type: 'integer', enum: [1, 2, 3] },
        nested: { type: 'object', properties: { flag: { type: 'boolean' } }, additionalProperties: true },
        maybe: { type: ['string', 'null'] } as unknown as JsonSchema,
      },
      required: ['count', 'ghost'],
    });
    assertGeminiSafe(converted, 'converted');
    assert.equal(converted.properties!.count.minimum, 0);
    assert.equal(converted.properties!.count.maximum, 10);
    assert.deepEqual(converted.properties!.tags.items, { type: 'string' });
    assert.deepEqual(converted.properties!.level.enum, ['1', '2', '3']);
    assert.equal(converted.properties!.level.type, 'string');
    assert.equal(converted.properties!.maybe.type, 'string');
    assert.deepEqual(converted.required, ['count']);
  });
});
