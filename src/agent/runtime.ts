/**
 * The chat's heavy half, bundled apart (dist/chat.js) so the SDKs load on the first chat turn,
 * not at activation (docs/ARCHITECTURE.md, "Bundles").
 */
import { GeminiProvider } from '../providers/gemini';
import { OllamaNativeProvider } from '../providers/ollamaNative';
import { OpenAIProvider } from '../providers/openai';
import { withToolCalling } from '../providers/toolCalling';
import type { ChatProvider, ProviderTimeouts, ToolCallingMode } from '../providers/types';
import type { ServiceName } from '../providers/providerNames';

// The loop without a default registry: the extension passes its own, and nothing from src/tools
// lands in this bundle (esbuild.js fails the build if it does).
export { AgentLoop as Agent, DEFAULT_SYSTEM_PROMPT } from './agentLoop';
export type { AgentEvent, AgentLoopOptions as AgentOptions } from './agentLoop';
export { ProviderError } from '../providers/errors';

export interface ProviderConfig extends ProviderTimeouts {
  provider: ServiceName;
  model: string;
  baseUrl?: string;
  apiKey?: string;
  /** How tools reach the model (default `auto`). */
  toolCalling?: ToolCallingMode;
  /** The person's context window setting in tokens; 0 or undefined uses the model's own. */
  contextTokens?: number;
}

export function createProvider(config: ProviderConfig): ChatProvider {
  const common = {
    model: config.model,
    baseURL: config.baseUrl || undefined,
    idleTimeoutMs: config.idleTimeoutMs,
    maxRetryWaitMs: config.maxRetryWaitMs,
    maxRetries: config.maxRetries,
    contextTokens: config.contextTokens,
  };
  return withToolCalling(baseProvider(config, common), config.toolCalling ?? 'auto');
}

type CommonOptions = ProviderTimeouts & { model: string; baseURL?: string; contextTokens?: number };

function baseProvider(config: ProviderConfig, common: CommonOptions): ChatProvider {
  switch (config.provider) {
    case 'ollama':
      // Ollama's own API: it can size the context window and say whether the model calls tools.
      return new OllamaNativeProvider({ ...common, apiKey: config.apiKey });
    case 'gemini':
      return new GeminiProvider({ ...common, apiKey: config.apiKey ?? '' });
    default:
      return new OpenAIProvider({ ...common, apiKey: config.apiKey ?? '' });
  }
}
