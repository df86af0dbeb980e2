import type { ChatTool, JsonSchema } from './interface';

/** The tool formats the registry hands out: OpenAI's Chat Completions shape (Ollama takes it too), and Gemini's. */
export type ToolFormat = 'openai' | 'ollama' | 'gemini';

/** A function declaration as Gemini's `tools[].functionDeclarations` takes it. */
export interface GeminiFunctionDeclaration {
  name: string;
  description: string;
  parameters?: JsonSchema;
}

export interface GeminiTools {
  functionDeclarations: GeminiFunctionDeclaration[];
}

/** OpenAI and Ollama (0.1.26+) take the Chat Completions shape as it is; copies keep callers from touching schemas. */
export function toOpenAITools(tools: readonly ChatTool[]): ChatTool[] {
  return tools.map((tool) => structuredClone(tool));
}

/**
 * Gemini's shape: `{functionDeclarations: [{name, description, parameters}]}`, schemas as the tools
 * declare them (copies). A tool without parameters declares none: Gemini rejects an empty OBJECT
 * schema. Sending them, the Gemini provider also fits each schema to the subset Gemini accepts
 * (src/providers/geminiSchema.ts).
 */
export function toGeminiTools(tools: readonly ChatTool[]): GeminiTools {
  return {
    functionDeclarations: tools.map(({ function: fn }) => {
      const empty = Object.keys(fn.parameters.properties ?? {}).length === 0;
      return empty ? { name: fn.name, description: fn.description } : { name: fn.name, description: fn.description, parameters: structuredClone(fn.parameters) };
    }),
  };
}
