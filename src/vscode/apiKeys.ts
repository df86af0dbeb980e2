import * as vscode from 'vscode';
import { ChatSetupError } from '../chat/chatEnvironment';
import { endpointIdentity, type Endpoint, type EndpointIdentity } from '../providers/endpoints';
import { labelOf } from '../providers/errors';
import { isProviderName, PROVIDER_NAMES, type ProviderName } from '../providers/providerNames';
import { readSettings, SECTION } from './settings';

/** Environment variables hold keys for the providers' own services only (a custom server never gets them). */
const ENV_VARIABLES: Partial<Record<ProviderName, string>> = {
  openai: 'OPENAI_API_KEY',
  gemini: 'GEMINI_API_KEY',
};
/** Set once the keys of the one-slot-per-provider days are sorted into endpoints. */
const MIGRATED = 'toolbelt.apiKeys.perEndpoint';

/**
 * One API key per endpoint (provider + base URL host) in SecretStorage: a key is sent only to the
 * endpoint it was given for. OpenAI's and Gemini's own services fall back to OPENAI_API_KEY and
 * GEMINI_API_KEY; any other endpoint (LM Studio, vLLM, a proxy, Ollama) is asked without a key
 * unless one is stored for it.
 */
export class ApiKeys {
  private migration: Promise<void> | undefined;

  constructor(
    private readonly secrets: vscode.SecretStorage,
    /** The endpoint the person's own (user) settings name: the only one an old key moves to without asking. */
    private readonly userEndpoint: () => Endpoint | undefined = userSettingsEndpoint,
  ) {}

  identity(endpoint: Endpoint): EndpointIdentity {
    return endpointIdentity(endpoint);
  }

  async get(endpoint: Endpoint): Promise<string | undefined> {
    await this.migrated();
    const identity = endpointIdentity(endpoint);
    if (endpoint.provider === 'vscode') return undefined;
    const stored = await this.secrets.get(secretName(identity));
    if (stored) return stored;
    const variable = identity.own ? ENV_VARIABLES[endpoint.provider] : undefined;
    return (variable && process.env[variable]?.trim()) || undefined;
  }

  /**
   * Whether a request cannot go without a key: OpenAI's and Gemini's own services, and any Gemini
   * endpoint (its protocol always carries one). An OpenAI-compatible server elsewhere or Ollama is
   * asked without a key, and says so with a 401 if it wants one.
   */
  needsKey(endpoint: Endpoint): boolean {
    return endpointIdentity(endpoint).own || endpoint.provider === 'gemini';
  }

  environmentVariable(endpoint: Endpoint): string | undefined {
    return endpointIdentity(endpoint).own ? ENV_VARIABLES[endpoint.provider] : undefined;
  }

  async set(endpoint: Endpoint, key: string): Promise<void> {
    await this.migrated();
    await this.secrets.store(secretName(endpointIdentity(endpoint)), key.trim());
  }

  async delete(endpoint: Endpoint): Promise<void> {
    await this.migrated();
    await this.secrets.delete(secretName(endpointIdentity(endpoint)));
  }

  private migrated(): Promise<void> {
    this.migration ??= this.migrate().catch(() => undefined);
    return this.migration;
  }

  /**
   * Keys used to live in one slot per provider (`toolbelt.apiKey.openai`), sent to whatever base
   * URL was configured. That slot stays the provider's own service's key. Where the person's own
   * user settings name a custom server, the key went there with every request, so it is copied to
   * that server's slot too: it keeps working, and nothing is sent anywhere it was not sent before.
   * A server named only by a workspace gets no old key (the workspace could point anywhere).
   */
  private async migrate(): Promise<void> {
    if (await this.secrets.get(MIGRATED)) return;
    const mine = this.userEndpoint();
    const identity = mine && endpointIdentity(mine);
    if (mine && identity && !identity.own && identity.host && (mine.provider === 'openai' || mine.provider === 'gemini')) {
      const legacy = await this.secrets.get(`toolbelt.apiKey.${mine.provider}`);
      if (legacy && !(await this.secrets.get(secretName(identity)))) await this.secrets.store(secretName(identity), legacy);
    }
    await this.secrets.store(MIGRATED, '1');
  }
}

/**
 * The key stored for the configured endpoint (one key per endpoint, apiKeys.ts). A server other
 * than the providers' own (LM Studio, vLLM, Ollama) is asked without a key unless one is stored
 * for it; it says so with a 401 if it wants one. The panel, @toolbelt and Toolbelt's model in VS
 * Code's model picker all go through here.
 */
export async function requireKey(keys: ApiKeys, endpoint: Endpoint): Promise<string | undefined> {
  const apiKey = await keys.get(endpoint);
  if (apiKey || !keys.needsKey(endpoint)) return apiKey;
  const variable = keys.environmentVariable(endpoint);
  const identity = keys.identity(endpoint);
  throw new ChatSetupError(
    `No ${labelOf(endpoint.provider)} API key is set${identity.own ? '' : ` for ${identity.host}`}. Use "Toolbelt: Set API Key"${variable ? ` or the ${variable} environment variable` : ''}, or switch to a local server (Ollama, LM Studio), which needs none.`,
    'setApiKey',
  );
}

/** `toolbelt.apiKey.openai` for OpenAI's own service (the name keys always had), `toolbelt.apiKey.openai@127.0.0.1:1234` for a server elsewhere. */
export function secretName(identity: EndpointIdentity): string {
  return `toolbelt.apiKey.${identity.id}`;
}

function userSettingsEndpoint(): Endpoint | undefined {
  const config = vscode.workspace.getConfiguration(SECTION);
  const provider = config.inspect<string>('provider')?.globalValue ?? 'openai';
  const baseUrl = config.inspect<string>('baseUrl')?.globalValue;
  return isProviderName(provider) && typeof baseUrl === 'string' && baseUrl.trim() ? { provider, baseUrl } : undefined;
}

type EndpointItem = vscode.QuickPickItem & { endpoint: Endpoint };

/**
 * `toolbelt.setApiKey [provider] [key] [baseUrl]`: the key for one endpoint. A provider without a
 * base URL means the configured endpoint when it is that provider's, else the provider's own
 * service. Asks for whatever is not given, naming the server; an empty key deletes the stored one.
 */
export function registerApiKeyCommand(context: vscode.ExtensionContext, keys: ApiKeys, currentProvider: () => ProviderName = () => readSettings().provider): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('toolbelt.setApiKey', async (providerArg?: unknown, keyArg?: unknown, baseUrlArg?: unknown) => {
      const current: Endpoint = { provider: currentProvider(), baseUrl: readSettings().baseUrl };
      const provider = PROVIDER_NAMES.find((p) => p === providerArg && p !== 'vscode');
      const endpoint = provider
        ? { provider, baseUrl: typeof baseUrlArg === 'string' ? baseUrlArg : provider === current.provider ? current.baseUrl : '' }
        : await pickEndpoint(keys, current);
      if (!endpoint) return false;
      const identity = keys.identity(endpoint);
      const variable = keys.environmentVariable(endpoint);
      const key =
        typeof keyArg === 'string'
          ? keyArg
          : await vscode.window.showInputBox({
              title: `API key for ${identity.label}`,
              prompt: identity.own
                ? `Stored in VS Code's secret storage and sent only to ${identity.label}. Leave empty to remove it${variable ? ` (then ${variable} is used if set)` : ''}.`
                : `Stored in VS Code's secret storage and sent only to ${identity.host}, never to OpenAI or another server. Leave empty to remove it (the server is then asked without a key).`,
              placeHolder: endpoint.provider === 'gemini' ? 'AIza…' : 'sk-…',
              password: true,
              ignoreFocusOut: true,
            });
      if (key === undefined) return false;
      if (key.trim() === '') {
        await keys.delete(endpoint);
        void vscode.window.showInformationMessage(`Toolbelt: removed the stored API key for ${identity.label}.`);
      } else {
        await keys.set(endpoint, key);
        void vscode.window.showInformationMessage(`Toolbelt: saved the API key for ${identity.label}; it is sent only there.`);
      }
      return true;
    }),
  );
}

/** The configured endpoint first, then OpenAI's and Gemini's own services. */
async function pickEndpoint(keys: ApiKeys, current: Endpoint): Promise<Endpoint | undefined> {
  const candidates: Endpoint[] = [...(current.provider === 'vscode' ? [] : [current]), { provider: 'openai' }, { provider: 'gemini' }];
  const seen = new Set<string>();
  const items: EndpointItem[] = [];
  for (const endpoint of candidates) {
    const identity = keys.identity(endpoint);
    if (seen.has(identity.id)) continue;
    seen.add(identity.id);
    const stored = await keys.get(endpoint);
    const isCurrent = identity.id === keys.identity(current).id;
    items.push({ label: identity.shortLabel, description: [isCurrent ? 'current' : '', stored ? 'key set' : keys.needsKey(endpoint) ? 'needs a key' : 'no key (asked without one)'].filter(Boolean).join(' · '), endpoint });
  }
  const picked = await vscode.window.showQuickPick(items, { title: 'Set the API key for…', placeHolder: 'Each key is sent only to the server it is set for' });
  return picked?.endpoint;
}
