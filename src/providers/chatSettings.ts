import { DEFAULT_MODELS } from './defaults';
import { isProviderName, type ProviderName, type ServiceName } from './providerNames';
import type { ToolCallingMode } from './types';

const TOOL_CALLING_MODES: readonly ToolCallingMode[] = ['auto', 'native', 'prompt'];

/** The chat's settings (`toolbelt.*`), checked and clamped: one reading for the panel, VS Code's Chat and the CLI. */
export interface ChatSettings {
  provider: ProviderName;
  model: string;
  baseUrl: string;
  systemPrompt: string;
  sessionContextFile: string;
  maxToolRounds: number;
  requestTimeoutSeconds: number;
  toolCalling: ToolCallingMode;
  /** 0: the model's own window. */
  contextWindow: number;
}

/** What a provider is built from (the Agent's ProviderConfig without the key). */
export interface ProviderSettings {
  provider: ServiceName;
  model: string;
  baseUrl?: string;
  idleTimeoutMs: number;
  toolCalling: ToolCallingMode;
  contextTokens?: number;
}

/** The chat settings from `get(key)` (key without `toolbelt.`, e.g. `chat.maxToolRounds`), whoever stores them. */
export function readChatSettings(get: (key: string) => unknown): ChatSettings {
  const text = (key: string) => {
    const value = get(key);
    return typeof value === 'string' ? value : '';
  };
  const provider = text('provider').trim();
  return {
    provider: isProviderName(provider) ? provider : 'openai',
    model: text('model').trim(),
    baseUrl: text('baseUrl').trim(),
    systemPrompt: text('systemPrompt'),
    sessionContextFile: text('sessionContextFile') || '.toolbelt/session-context.md',
    maxToolRounds: clampInteger(get('chat.maxToolRounds'), 1, 200, 25),
    requestTimeoutSeconds: clampInteger(get('chat.requestTimeoutSeconds'), 5, 600, 60),
    toolCalling: TOOL_CALLING_MODES.includes(get('toolCalling') as ToolCallingMode) ? (get('toolCalling') as ToolCallingMode) : 'auto',
    contextWindow: clampInteger(get('chat.contextWindow'), 0, 10_000_000, 0),
  };
}

/** The provider the settings describe, for a service (not `vscode`, whose models VS Code picks). */
export function providerSettingsOf(settings: ChatSettings, provider: ServiceName): ProviderSettings {
  return {
    provider,
    model: settings.model || DEFAULT_MODELS[provider],
    ...(settings.baseUrl ? { baseUrl: settings.baseUrl } : {}),
    idleTimeoutMs: settings.requestTimeoutSeconds * 1000,
    toolCalling: settings.toolCalling,
    ...(settings.contextWindow ? { contextTokens: settings.contextWindow } : {}),
  };
}

function clampInteger(value: unknown, min: number, max: number, fallback: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) return fallback;
  return Math.min(max, Math.max(min, Math.round(value)));
}
