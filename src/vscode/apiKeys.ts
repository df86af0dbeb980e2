import * as vscode from 'vscode';
import { endpointLabel, endpointOf, keyRequired, keyVariable, secretName, type Endpoint } from '../providers/endpoints';
import { isServiceName, type ServiceName } from '../providers/providerNames';
import { readSettings, SECTION } from './settings';

/** Where keys were kept before one key per endpoint: one slot per provider, sent to whatever base URL was set. */
const legacyName = (provider: ServiceName) => `toolbelt.apiKey.${provider}`;

/**
 * API keys in SecretStorage, one per endpoint (provider + host), falling back to the environment
 * for a provider's own service only. A key is sent to the endpoint it was given for and nowhere
 * else. A key stored the old way (one per provider) moves to the provider's own service the first
 * time that is asked for — when no setting names a custom base URL, so it cannot have been meant
 * for another server; otherwise it is left unused and the person is asked again.
 */
export class ApiKeys {
  constructor(
    private readonly secrets: vscode.SecretStorage,
    private readonly customBaseUrlSet: () => boolean = anyCustomBaseUrl,
  ) {}

  async get(endpoint: Endpoint): Promise<string | undefined> {
    const stored = (await this.secrets.get(secretName(endpoint))) ?? (await this.migrated(endpoint));
    if (stored) return stored;
    const variable = keyVariable(endpoint);
    return (variable && process.env[variable]?.trim()) || undefined;
  }

  needsKey(endpoint: Endpoint): boolean {
    return keyRequired(endpoint);
  }

  environmentVariable(endpoint: Endpoint): string | undefined {
    return keyVariable(endpoint);
  }

  async set(endpoint: Endpoint, key: string): Promise<void> {
    await this.secrets.store(secretName(endpoint), key.trim());
  }

  async delete(endpoint: Endpoint): Promise<void> {
    await this.secrets.delete(secretName(endpoint));
  }

  private async migrated(endpoint: Endpoint): Promise<string | undefined> {
    if (!endpoint.official || this.customBaseUrlSet()) return undefined;
    const legacy = await this.secrets.get(legacyName(endpoint.provider));
    if (!legacy) return undefined;
    await this.secrets.store(secretName(endpoint), legacy);
    await this.secrets.delete(legacyName(endpoint.provider));
    return legacy;
  }
}

/** The endpoint the settings point a provider at: the base URL applies to the configured provider only. */
export function endpointFor(provider: ServiceName): Endpoint {
  const settings = readSettings();
  return endpointOf(provider, settings.provider === provider ? settings.baseUrl : undefined);
}

function anyCustomBaseUrl(): boolean {
  const inspected = vscode.workspace.getConfiguration(SECTION).inspect<string>('baseUrl');
  return [inspected?.globalValue, inspected?.workspaceValue, inspected?.workspaceFolderValue].some((value) => typeof value === 'string' && value.trim() !== '');
}

/**
 * `toolbelt.setApiKey [provider] [key]`: the key is for the endpoint the settings point that
 * provider at (its base URL when it is the configured provider); asks for whatever is not given,
 * naming the server. An empty key deletes the stored one.
 */
export function registerApiKeyCommand(context: vscode.ExtensionContext, keys: ApiKeys, defaultProvider: () => string): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('toolbelt.setApiKey', async (providerArg?: unknown, keyArg?: unknown) => {
      let endpoint = isServiceName(providerArg) ? endpointFor(providerArg) : undefined;
      if (!endpoint) {
        const current = defaultProvider();
        const choices = [...new Map(['openai', 'gemini', ...(isServiceName(current) ? [current] : [])].map((p) => endpointFor(p as ServiceName)).map((e) => [secretName(e), e])).values()];
        const picked = await vscode.window.showQuickPick(
          choices.map((e) => ({ label: endpointLabel(e), description: e.provider === current ? 'current' : e.host, endpoint: e })),
          { title: 'Set the API key for…' },
        );
        endpoint = picked?.endpoint;
      }
      if (!endpoint) return false;
      const who = endpointLabel(endpoint);
      const variable = keys.environmentVariable(endpoint);
      const key =
        typeof keyArg === 'string'
          ? keyArg
          : await vscode.window.showInputBox({
              title: `API key for ${who} (${endpoint.host})`,
              prompt: `Sent only to ${endpoint.host}. Stored in VS Code's secret storage. Leave empty to remove the stored key${variable ? ` (then ${variable} is used if set)` : ''}.`,
              password: true,
              ignoreFocusOut: true,
            });
      if (key === undefined) return false;
      if (key.trim() === '') {
        await keys.delete(endpoint);
        void vscode.window.showInformationMessage(`Toolbelt: removed the stored API key for ${who}.`);
      } else {
        await keys.set(endpoint, key);
        void vscode.window.showInformationMessage(`Toolbelt: saved the API key for ${who}.`);
      }
      return true;
    }),
  );
}
