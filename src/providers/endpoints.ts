import { DEFAULT_BASE_URLS } from './defaults';
import { labelOf } from './errors';
import type { ServiceName } from './providerNames';

/**
 * Where requests go: a provider at a host. A key belongs to one endpoint and is sent nowhere
 * else — an OpenAI key never to a custom server, a custom server's key never to OpenAI.
 */
export interface Endpoint {
  provider: ServiceName;
  /** `host[:port]` of the base URL, lower case; the provider's default host without one. */
  host: string;
  /** The provider's own service (api.openai.com, Gemini's API, a local Ollama at its default address). */
  official: boolean;
}

/** The environment variables that hold a key for a provider's own service (never for another host). */
const ENV_VARIABLES: Partial<Record<ServiceName, string>> = { openai: 'OPENAI_API_KEY', gemini: 'GEMINI_API_KEY' };

export function endpointOf(provider: ServiceName, baseUrl?: string): Endpoint {
  const fallback = hostOf(DEFAULT_BASE_URLS[provider]);
  const host = (baseUrl?.trim() && hostOf(baseUrl.trim())) || fallback;
  return { provider, host, official: host === fallback };
}

/** The name SecretStorage keeps the endpoint's key under. */
export function secretName(endpoint: Endpoint): string {
  return `toolbelt.apiKey.${endpoint.provider}@${endpoint.host}`;
}

/** Who a person is asked a key for: `OpenAI`, `Gemini`, `Ollama`, `the server at 127.0.0.1:1234`. */
export function endpointLabel(endpoint: Endpoint): string {
  return endpoint.official ? labelOf(endpoint.provider) : `the server at ${endpoint.host}`;
}

/** OpenAI's and Gemini's own services need a key; any other server is asked without one (it answers 401 if it wants one). */
export function keyRequired(endpoint: Endpoint): boolean {
  return endpoint.official && (endpoint.provider === 'openai' || endpoint.provider === 'gemini');
}

/** The environment variable read for the endpoint's key: only for the provider's own service. */
export function keyVariable(endpoint: Endpoint): string | undefined {
  return endpoint.official ? ENV_VARIABLES[endpoint.provider] : undefined;
}

function hostOf(url: string): string {
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return url.toLowerCase().slice(0, 200);
  }
}
