/** The services Toolbelt talks to over HTTP itself. */
export type ServiceName = 'openai' | 'ollama' | 'gemini';
export const SERVICE_NAMES: readonly ServiceName[] = ['openai', 'ollama', 'gemini'];

/** Every value of `toolbelt.provider`: a service, or `vscode` (a model VS Code offers through `vscode.lm`). */
export type ProviderName = ServiceName | 'vscode';
export const PROVIDER_NAMES: readonly ProviderName[] = [...SERVICE_NAMES, 'vscode'];

export const PROVIDER_LABELS: Readonly<Record<ProviderName, string>> = {
  openai: 'OpenAI',
  ollama: 'Ollama',
  gemini: 'Gemini',
  vscode: "VS Code's language models",
};

export function isProviderName(value: unknown): value is ProviderName {
  return typeof value === 'string' && (PROVIDER_NAMES as readonly string[]).includes(value);
}


export function isServiceName(value: unknown): value is ServiceName {
  return typeof value === 'string' && (SERVICE_NAMES as readonly string[]).includes(value);
}
