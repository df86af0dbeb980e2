import * as vscode from 'vscode';
import { DEFAULT_MODELS } from '../../providers/defaults';
import { endpointOf, type Endpoint } from '../../providers/endpoints';
import { customHost, providerDisplayName } from '../../providers/errors';
import { PROVIDER_NAMES, type ProviderName } from '../../providers/providerNames';
import { readSettings } from '../settings';
import { connectModel, type ConnectDeps, type ConnectStart } from './connectModel';

type SwitchItem = vscode.QuickPickItem & { start?: ConnectStart; connect?: boolean; current?: boolean };

/**
 * `toolbelt.chat.switchModel`: the current model first, checked; then each provider by its
 * display name with whether its key is set; then Connect a Model. Picking a provider runs the
 * connect flow from that provider on (its model list, a key only when missing, a test).
 */
export async function switchModel(deps: ConnectDeps): Promise<boolean> {
  const settings = readSettings();
  const currentName = providerDisplayName(settings.provider, settings.baseUrl);
  const model = settings.model || DEFAULT_MODELS[settings.provider] || 'first model offered';
  const items: SwitchItem[] = [
    {
      label: `$(check) ${model}`,
      description: `${currentName} · current`,
      // A custom server is asked without a key unless one is stored for it; it answers 401 if it wants one.
      detail: await keyState(deps, settings.provider === 'vscode' ? undefined : endpointOf(settings.provider, settings.baseUrl)),
      current: true,
    },
    { label: 'Switch to', kind: vscode.QuickPickItemKind.Separator },
    ...(await Promise.all(PROVIDER_NAMES.map((provider) => providerItem(deps, provider, customHost(settings.provider, settings.baseUrl) ? undefined : settings.provider)))),
    ...(settings.provider === 'openai' && settings.baseUrl
      ? []
      : [{ label: 'OpenAI-compatible server', description: 'LM Studio, vLLM, llama.cpp… at an address you give', start: 'compatible' as const }]),
    { label: '', kind: vscode.QuickPickItemKind.Separator },
    { label: 'Connect a Model…', description: 'find local servers, pick a provider, a model, test it', connect: true },
  ];
  const pick = vscode.window.createQuickPick<SwitchItem>();
  pick.title = 'Chat with…';
  pick.placeholder = `Now: ${currentName} · ${model}`;
  pick.items = items;
  pick.activeItems = [items[0]];
  const picked = await new Promise<SwitchItem | undefined>((resolve) => {
    pick.onDidAccept(() => resolve(pick.selectedItems[0]));
    pick.onDidHide(() => resolve(undefined));
    pick.show();
  });
  pick.dispose();
  if (!picked) return false;
  if (picked.connect) return connectModel(deps);
  // The current model: pick another one of the same server.
  const start: ConnectStart | undefined = picked.current ? startOf(settings.provider, settings.baseUrl) : picked.start;
  return start ? connectModel(deps, start) : false;
}

async function providerItem(deps: ConnectDeps, provider: ProviderName, current: ProviderName | undefined): Promise<SwitchItem> {
  const name = providerDisplayName(provider);
  return { label: name, description: [provider === current ? 'current provider' : '', await keyState(deps, provider === 'vscode' ? undefined : endpointOf(provider))].filter(Boolean).join(' · '), start: provider };
}

async function keyState(deps: ConnectDeps, endpoint: Endpoint | undefined): Promise<string> {
  if (!endpoint) return 'signs in through VS Code';
  const stored = await deps.keys.get(endpoint);
  if (deps.keys.needsKey(endpoint)) return stored ? '$(key) API key set' : 'no API key set';
  if (!endpoint.official) return stored ? `$(key) API key set for ${endpoint.host}` : 'no API key sent';
  return stored ? '$(key) API key set' : 'no API key needed';
}

function startOf(provider: ProviderName, baseUrl: string): ConnectStart {
  return provider === 'openai' && baseUrl ? 'compatible' : provider;
}
