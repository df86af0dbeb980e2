/**
 * The chat's heavy half, bundled apart (dist/chat.js) so the SDKs load on the first chat turn,
 * not at activation. The extension reaches it through a lazy require.
 */
import { GeminiProvider } from '../providers/gemini';
import { OllamaProvider } from '../providers/ollama';
import { OpenAIProvider } from '../providers/openai';
import type { ChatProvider, ProviderTimeouts } from '../providers/types';

export { Agent, DEFAULT_SYSTEM_PROMPT } from './agent';
export type { AgentEvent, AgentOptions } from './agent';
export { ProviderError } from '../providers/errors';

export interface ProviderConfig extends ProviderTimeouts {
  provider: 'openai' | 'ollama' | 'gemini';
  model: string;
  baseUrl?: string;
  apiKey?: string;
}

export function createProvider(config: ProviderConfig): ChatProvider {
  const common = { model: config.model, baseURL: config.baseUrl || undefined, idleTimeoutMs: config.idleTimeoutMs, maxRetryWaitMs: config.maxRetryWaitMs, maxRetries: config.maxRetries };
  switch (config.provider) {
    case 'ollama':
      return new OllamaProvider({ ...common, apiKey: config.apiKey });
    case 'gemini':
      return new GeminiProvider({ ...common, apiKey: config.apiKey ?? '' });
    default:
      return new OpenAIProvider({ ...common, apiKey: config.apiKey ?? '' });
  }
}
