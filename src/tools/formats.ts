import type { GeminiTools } from '../providers/geminiSchema';
import type { ChatTool } from './interface';

export { toGeminiSchema, toGeminiTools, type GeminiFunctionDeclaration, type GeminiTools } from '../providers/geminiSchema';

export { PROVIDER_NAMES, type ProviderName } from '../providers/providerNames';

export type ProviderTools = ChatTool[] | GeminiTools;

/** OpenAI and Ollama (0.1.26+) take the Chat Completions shape as it is; copies keep callers from touching schemas. */
export function toOpenAITools(tools: readonly ChatTool[]): ChatTool[] {
  return tools.map((tool) => structuredClone(tool));
}
