import * as vscode from 'vscode';
import { PROVIDER_NAMES, type ProviderName } from '../providers/providerNames';

const ENV_VARIABLES: Record<ProviderName, string | undefined> = {
  openai: 'OPENAI_API_KEY',
  ollama: undefined,
  gemini: 'GEMINI_API_KEY',
  vscode: undefined,
};

/** API keys per provider in SecretStorage, falling back to the environment. Ollama and VS Code's own models need none. */
export class ApiKeys {
  constructor(private readonly secrets: vscode.SecretStorage) {}

  async get(provider: ProviderName): Promise<string | undefined> {
    const stored = await this.secrets.get(secretKey(provider));
    if (stored) return stored;
    const variable = ENV_VARIABLES[provider];
    return (variable && process.env[variable]?.trim()) || undefined;
  }

  needsKey(provider: ProviderName): boolean {
    return provider === 'openai' || provider === 'gemini';
  }

  environmentVariable(provider: ProviderName): string | undefined {
    return ENV_VARIABLES[provider];
  }

  async set(provider: ProviderName, key: string): Promise<void> {
    await this.secrets.store(secretKey(provider), key.trim());
  }

  async delete(provider: ProviderName): Promise<void> {
    await this.secrets.delete(secretKey(provider));
  }
}

function secretKey(provider: ProviderName): string {
  return `toolbelt.apiKey.${provider}`;
}

/** `toolbelt.setApiKey [provider] [key]`: asks for whatever is not given; an empty key deletes the stored one. */
export function registerApiKeyCommand(context: vscode.ExtensionContext, keys: ApiKeys, defaultProvider: () => ProviderName): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('toolbelt.setApiKey', async (providerArg?: unknown, keyArg?: unknown) => {
      let provider = PROVIDER_NAMES.find((p) => p === providerArg);
      if (!provider) {
        const picked = await vscode.window.showQuickPick(
          PROVIDER_NAMES.filter((p) => keys.needsKey(p)).map((p) => ({ label: p, description: p === defaultProvider() ? 'current provider' : undefined })),
          { title: 'Set the API key for…' },
        );
        provider = picked?.label as ProviderName | undefined;
      }
      if (!provider) return false;
      const key =
        typeof keyArg === 'string'
          ? keyArg
          : await vscode.window.showInputBox({
              title: `${provider} API key`,
              prompt: `Stored in VS Code's secret storage. Leave empty to remove the stored key${keys.environmentVariable(provider) ? ` (then ${keys.environmentVariable(provider)} is used if set)` : ''}.`,
              password: true,
              ignoreFocusOut: true,
            });
      if (key === undefined) return false;
      if (key.trim() === '') {
        await keys.delete(provider);
        void vscode.window.showInformationMessage(`Toolbelt: removed the stored ${provider} API key.`);
      } else {
        await keys.set(provider, key);
        void vscode.window.showInformationMessage(`Toolbelt: saved the ${provider} API key.`);
      }
      return true;
    }),
  );
}
