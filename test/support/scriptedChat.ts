import { Agent } from '../../src/agent/agent';
import type { ChatEnvironment } from '../../src/chat/chatEnvironment';
import { OpenAIProvider } from '../../src/providers/openai';
import type { ToolRegistry } from '../../src/tools/registry';

/**
 * The editor a ChatController runs in, for unit tests: the real Agent talking to the scripted
 * model server's OpenAI endpoint, with the registry's enabled tools. `setupError` is asked on
 * every turn, so a test can make the next setup fail; `extra` adds or replaces hooks.
 */
export function scriptedChatEnvironment(options: {
  registry: ToolRegistry;
  baseURL: string;
  setupError?: () => Error | undefined;
  extra?: Partial<ChatEnvironment>;
}): ChatEnvironment {
  const { registry, baseURL } = options;
  return {
    registry,
    setup: async () => {
      const error = options.setupError?.();
      if (error) throw error;
      return { provider: new OpenAIProvider({ apiKey: 'k', baseURL, model: 'm', maxRetries: 0 }), systemPrompt: 'Be brief.', maxToolRounds: 5 };
    },
    loadAgent: async () => Agent,
    save: () => undefined,
    activeTools: () => registry.getEnabledSchemas().map((s) => s.function.name),
    describeModel: () => ({ provider: 'openai', model: 'm' }),
    ...options.extra,
  };
}
