// Which endpoint a key belongs to: the provider and the host of its base URL. A key is stored for
// one endpoint and sent to no other, so an OpenAI key never reaches a custom server and a custom
// server's key never reaches OpenAI. Pure (no vscode).
import { DEFAULT_BASE_URLS } from './defaults';
import { PROVIDER_LABELS, type ProviderName } from './providerNames';

export interface Endpoint {
  provider: ProviderName;
  /** `toolbelt.baseUrl` as set ('' for the provider's own service). */
  baseUrl?: string;
}

export interface EndpointIdentity {
  /** `openai`, `gemini` for the providers' own services; `openai@127.0.0.1:1234` for a server elsewhere. */
  id: string;
  /** The provider's own service (OpenAI's API, Gemini's API): it needs a key, and its environment variable counts. */
  own: boolean;
  /** The host (with port) keys for a custom server are stored under. */
  host?: string;
  /** Who the key is for, in a sentence: "OpenAI", "the server at 127.0.0.1:1234". */
  label: string;
  /** The short form for titles: "OpenAI", "127.0.0.1:1234". */
  shortLabel: string;
}

const OWN_HOSTS: Partial<Record<ProviderName, string>> = {
  openai: 'api.openai.com',
  gemini: 'generativelanguage.googleapis.com',
};

/** The endpoint a provider and base URL name. */
export function endpointIdentity(endpoint: Endpoint): EndpointIdentity {
  const { provider } = endpoint;
  const own = OWN_HOSTS[provider];
  const configured = (endpoint.baseUrl ?? '').trim();
  if (provider === 'vscode') return { id: 'vscode', own: false, label: PROVIDER_LABELS.vscode, shortLabel: 'VS Code' };
  const host = hostOf(configured || (provider === 'ollama' ? DEFAULT_BASE_URLS.ollama : ''));
  if (own && (!host || host === own)) return { id: provider, own: true, label: PROVIDER_LABELS[provider], shortLabel: PROVIDER_LABELS[provider] };
  const where = host || '(no address)';
  const label = provider === 'ollama' ? `Ollama at ${where}` : `the server at ${where}`;
  return { id: `${provider}@${where}`, own: false, host: where, label, shortLabel: provider === 'ollama' ? `Ollama at ${where}` : where };
}

/** The host and port of a base URL, lower-case; the text itself (bounded) when it is no URL. */
export function hostOf(baseUrl: string): string {
  if (!baseUrl) return '';
  try {
    return new URL(baseUrl).host.toLowerCase();
  } catch {
    return baseUrl.trim().toLowerCase().slice(0, 120);
  }
}
