import type { ProviderName, ServiceName } from './providerNames';

/** Default models and addresses, apart from the provider code so the extension can name them without loading an SDK. */
export const DEFAULT_MODELS: Readonly<Record<ProviderName, string>> = {
  openai: 'gpt-4o-mini',
  ollama: 'qwen2.5:7b',
  gemini: 'gemini-2.0-flash',
  // The first chat model VS Code offers (other than Toolbelt's own).
  vscode: '',
};

export const DEFAULT_BASE_URLS: Readonly<Record<ServiceName, string>> = {
  openai: 'https://api.openai.com/v1',
  ollama: 'http://127.0.0.1:11434/v1',
  gemini: 'https://generativelanguage.googleapis.com',
};
