/** Default models and addresses, apart from the provider code so the extension can name them without loading an SDK. */
export const DEFAULT_MODELS: Readonly<Record<string, string>> = {
  openai: 'gpt-4o-mini',
  ollama: 'qwen2.5:7b',
  gemini: 'gemini-2.0-flash',
};

export const DEFAULT_BASE_URLS: Readonly<Record<string, string>> = {
  openai: 'https://api.openai.com/v1',
  ollama: 'http://127.0.0.1:11434/v1',
  gemini: 'https://generativelanguage.googleapis.com',
};
