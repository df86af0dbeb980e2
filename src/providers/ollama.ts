import { DEFAULT_BASE_URLS, DEFAULT_MODELS } from './defaults';
import { OpenAIProvider, type OpenAIProviderOptions } from './openai';

export const OLLAMA_DEFAULT_BASE_URL = DEFAULT_BASE_URLS.ollama;
export const OLLAMA_DEFAULT_MODEL = DEFAULT_MODELS.ollama;

export interface OllamaProviderOptions extends Omit<OpenAIProviderOptions, 'apiKey'> {
  /** Ollama needs none; a proxy in front of it might. */
  apiKey?: string;
}

/** Ollama speaks the OpenAI Chat Completions format (tools since 0.1.26) at its own address, without a key. */
export class OllamaProvider extends OpenAIProvider {
  override readonly name = 'ollama';

  constructor(options: OllamaProviderOptions) {
    super({ ...options, apiKey: options.apiKey || 'ollama', model: options.model || OLLAMA_DEFAULT_MODEL });
  }

  protected override defaultBaseURL(): string {
    return OLLAMA_DEFAULT_BASE_URL;
  }
}
