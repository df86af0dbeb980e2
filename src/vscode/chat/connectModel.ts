import * as vscode from 'vscode';
import { describeReport, testConnection } from '../../providers/connectionTest';
import { DEFAULT_MODELS } from '../../providers/defaults';
import { endpointOf, type Endpoint } from '../../providers/endpoints';
import { providerDisplayName, ProviderError } from '../../providers/errors';
import { detectLocalServers, listModels, type ListedModel, type LocalServer } from '../../providers/modelList';
import type { ProviderName, ServiceName } from '../../providers/providerNames';
import type { ApiKeys } from '../apiKeys';
import { readSettings, SECTION } from '../settings';
import { BACK, inputStep, pickStep } from './quickSteps';
import { loadChatRuntime } from './runtimeLoader';
import { modelIdOf, otherChatModels } from './vscodeModels';

/** Where the flow may start: a provider picked in the switcher skips the first step. */
export type ConnectStart = 'openai' | 'compatible' | 'ollama' | 'gemini' | 'vscode';

export interface ConnectDeps {
  keys: ApiKeys;
  log: vscode.LogOutputChannel;
  /** Runs `work` with the automatic retry held back (a key saved mid-flow must not retry with old settings). */
  holdRetries<T>(work: () => Promise<T>): Promise<T>;
  /** Called once the new settings are written: retries the failed turn, if one waits. */
  connected(): void;
}

interface Draft {
  start?: ConnectStart;
  provider: ServiceName;
  /** `compatible`: an OpenAI-compatible server at an address of the person's choosing. */
  compatible: boolean;
  baseUrl: string;
  detected?: LocalServer;
  apiKey?: string;
  keyIsNew: boolean;
  /** The server asked for a key while listing its models. */
  keyAsked: boolean;
  model?: string;
}

type Step = 'provider' | 'baseUrl' | 'key' | 'model';
const TITLE = 'Connect a Model';

/**
 * Provider → base URL → API key (only when needed) → model from the server's own list → a test
 * request → the settings. Returns true when the settings were written.
 */
export async function connectModel(deps: ConnectDeps, start?: ConnectStart): Promise<boolean> {
  const current = readSettings();
  const detection = start ? Promise.resolve([]) : detectLocalServers();
  const draft: Draft = { provider: 'openai', compatible: false, baseUrl: '', keyIsNew: false, keyAsked: false };
  if (start === 'vscode') return connectVsCodeModel(deps, current.model);
  if (start) applyStart(draft, start, current);
  const trail: Step[] = [];
  let step = (start ? nextStep(draft, 'provider', await needsKey(deps, draft)) : 'provider') as Step | 'done';
  while (step !== 'done') {
    const frame = { title: TITLE, step: trail.length + 1, totalSteps: trail.length + remainingSteps(draft, step), back: trail.length > 0 };
    const result = await runStep(step, frame, draft, deps, detection, current);
    if (result === undefined) return false;
    if (result === 'vscode') return connectVsCodeModel(deps, current.model);
    if (result === BACK) {
      step = trail.pop() ?? 'provider';
      continue;
    }
    if (result === 'askKey') {
      trail.push(step);
      step = 'key';
      continue;
    }
    trail.push(step);
    step = step === 'model' ? 'done' : nextStep(draft, step, await needsKey(deps, draft));
    if (step === 'done') {
      const outcome = await testAndSave(deps, draft);
      if (outcome === 'saved') return true;
      if (outcome === 'cancel') return false;
      step = trail.pop() ?? 'model';
    }
  }
  return false;
}

function applyStart(draft: Draft, start: ConnectStart, current: ReturnType<typeof readSettings>): void {
  draft.start = start;
  draft.compatible = start === 'compatible';
  draft.provider = start === 'compatible' ? 'openai' : (start as ServiceName);
  const keep = current.provider === draft.provider && current.baseUrl;
  draft.baseUrl = start === 'compatible' ? (keep && current.baseUrl) || 'http://127.0.0.1:1234/v1' : start === 'ollama' ? (keep && current.baseUrl) || 'http://127.0.0.1:11434' : '';
}

function nextStep(draft: Draft, after: Step, keyNeeded: boolean): Step {
  const order: Step[] = ['provider', 'baseUrl', 'key', 'model'];
  for (const step of order.slice(order.indexOf(after) + 1)) {
    if (step === 'baseUrl' && (draft.detected || !(draft.compatible || draft.provider === 'ollama'))) continue;
    if (step === 'key' && !keyNeeded) continue;
    return step;
  }
  return 'model';
}

function remainingSteps(draft: Draft, step: Step): number {
  const all: Step[] = ['provider', 'baseUrl', 'key', 'model'];
  let count = 0;
  for (const s of all.slice(all.indexOf(step))) {
    if (s === 'baseUrl' && (draft.detected || !(draft.compatible || draft.provider === 'ollama'))) continue;
    if (s === 'key' && step !== 'key' && !(needsKeyNow(draft))) continue;
    count++;
  }
  return count;
}

/** The endpoint the draft talks to: its base URL for a custom server or Ollama, the provider's own service otherwise. */
function draftEndpoint(draft: Draft): Endpoint {
  return endpointOf(draft.provider, draft.provider === 'ollama' || draft.compatible ? draft.baseUrl : undefined);
}

/** OpenAI's own service and Gemini need a key; a custom server only when it says so. */
function needsKeyNow(draft: Draft): boolean {
  return !draft.apiKey && ((draft.provider === 'openai' && !draft.compatible) || draft.provider === 'gemini');
}

async function needsKey(deps: ConnectDeps, draft: Draft): Promise<boolean> {
  if (draft.apiKey || !needsKeyNow(draft)) return false;
  const stored = await deps.keys.get(draftEndpoint(draft));
  if (stored) draft.apiKey = stored;
  return !stored;
}

type ProviderItem = vscode.QuickPickItem & { choice?: ConnectStart; server?: LocalServer };

async function runStep(
  step: Step,
  frame: { title: string; step: number; totalSteps: number; back: boolean },
  draft: Draft,
  deps: ConnectDeps,
  detection: Promise<LocalServer[]>,
  current: ReturnType<typeof readSettings>,
): Promise<typeof BACK | undefined | 'next' | 'askKey' | 'vscode'> {
  switch (step) {
    case 'provider': {
      const items = detection.then(async (servers) => providerItems(servers, deps));
      const picked = await pickStep<ProviderItem>({ ...frame, placeholder: 'Which service runs the model?', items });
      if (picked === undefined || picked === BACK) return picked;
      if (picked.choice === 'vscode') return 'vscode';
      draft.detected = picked.server;
      draft.apiKey = undefined;
      draft.keyAsked = false;
      if (picked.server) {
        draft.provider = picked.server.provider;
        draft.compatible = picked.server.provider === 'openai';
        draft.baseUrl = picked.server.baseUrl;
      } else applyStart(draft, picked.choice ?? 'openai', current);
      return 'next';
    }
    case 'baseUrl': {
      const value = await inputStep({
        ...frame,
        value: draft.baseUrl,
        prompt: draft.provider === 'ollama' ? "Ollama's address (its default is http://127.0.0.1:11434)." : 'The server\'s OpenAI-compatible base URL, usually ending in /v1 (LM Studio: http://127.0.0.1:1234/v1).',
        validate: validateBaseUrl,
      });
      if (value === undefined || value === BACK) return value;
      draft.baseUrl = value.trim().replace(/\/+$/, '');
      return 'next';
    }
    case 'key': {
      const name = providerDisplayName(draft.provider, draft.compatible ? draft.baseUrl : undefined);
      const value = await inputStep({
        ...frame,
        password: true,
        prompt: `The API key for ${name}. Stored in VS Code's secret storage (as "Toolbelt: Set API Key" does) once the connection works.`,
        placeholder: draft.provider === 'gemini' ? 'AIza…' : 'sk-…',
        validate: (v) => (v.trim() ? undefined : 'Enter a key (Escape cancels).'),
      });
      if (value === undefined || value === BACK) return value;
      draft.apiKey = value.trim();
      draft.keyIsNew = true;
      return 'next';
    }
    case 'model':
      return modelStep(frame, draft, current);
  }
}

async function providerItems(servers: LocalServer[], deps: ConnectDeps): Promise<ProviderItem[]> {
  const keyState = async (provider: ProviderName) => (provider !== 'vscode' && (await deps.keys.get(endpointOf(provider))) ? 'API key set' : 'needs an API key');
  const found: ProviderItem[] = servers.map((server) => ({
    label: `${server.name} on this computer`,
    description: `${server.baseUrl} · ${server.models.length} model${server.models.length === 1 ? '' : 's'}`,
    detail: 'Found running now; no API key needed.',
    server,
  }));
  return [
    ...(found.length ? [{ label: 'Found on this computer', kind: vscode.QuickPickItemKind.Separator }, ...found, { label: 'Services', kind: vscode.QuickPickItemKind.Separator }] : []),
    { label: 'OpenAI', description: await keyState('openai'), choice: 'openai' },
    { label: 'OpenAI-compatible server', description: 'LM Studio, vLLM, llama.cpp, OpenRouter… at an address you give', choice: 'compatible' },
    { label: 'Ollama', description: servers.some((s) => s.name === 'Ollama') ? 'at another address' : 'no API key needed', choice: 'ollama' },
    { label: 'Gemini', description: await keyState('gemini'), choice: 'gemini' },
    { label: 'VS Code', description: "a model VS Code offers (GitHub Copilot's, another extension's)", choice: 'vscode' },
  ];
}

type ModelItem = vscode.QuickPickItem & { model?: string; action?: 'type' | 'key' | 'reload' };

async function modelStep(frame: { title: string; step: number; totalSteps: number; back: boolean }, draft: Draft, current: ReturnType<typeof readSettings>): Promise<typeof BACK | undefined | 'next' | 'askKey'> {
  const name = providerDisplayName(draft.provider, draft.compatible ? draft.baseUrl : undefined);
  const trim = (url: string) => url.replace(/\/+$/, '');
  const sameEndpoint = draft.compatible || draft.provider === 'ollama' ? trim(current.baseUrl) === trim(draft.baseUrl) : !current.baseUrl;
  const currentModel = current.provider === draft.provider && sameEndpoint ? current.model : '';
  let listError: ProviderError | undefined;
  const items = (draft.detected ? Promise.resolve(draft.detected.models) : listModels({ provider: draft.provider, baseUrl: draft.baseUrl || undefined, apiKey: draft.apiKey })).then(
    (models: ListedModel[]) => modelItems(models, currentModel),
    (error: unknown): ModelItem[] => {
      listError = error instanceof ProviderError ? error : undefined;
      const message = error instanceof Error ? error.message : String(error);
      const fixes: ModelItem[] = listError?.kind === 'auth' ? [{ label: 'Enter the API key…', action: 'key' }] : [{ label: 'Try again', action: 'reload' }];
      return [{ label: 'Could not list the models', detail: message, action: 'reload' } as ModelItem, ...fixes, { label: 'Type a model name…', action: 'type' }];
    },
  );
  const picked = await pickStep<ModelItem>({ ...frame, placeholder: `Pick a model ${name} offers`, items, active: (item) => item.model === currentModel });
  if (picked === undefined || picked === BACK) return picked;
  if (picked.action === 'key') return 'askKey';
  if (picked.action === 'reload') return modelStep(frame, draft, current);
  if (picked.action === 'type') {
    const typed = await inputStep({ ...frame, back: true, value: currentModel || (draft.compatible ? '' : DEFAULT_MODELS[draft.provider]), prompt: `The model name as ${name} knows it.`, validate: (v) => (v.trim() ? undefined : 'Enter a model name.') });
    if (typed === undefined) return undefined;
    if (typed === BACK) return modelStep(frame, draft, current);
    draft.model = typed.trim();
    return 'next';
  }
  draft.model = picked.model;
  return 'next';
}

function modelItems(models: ListedModel[], currentModel: string): ModelItem[] {
  const items: ModelItem[] = models.map((m) => ({
    label: m.id === currentModel ? `$(check) ${m.id}` : m.id,
    description: [m.id === currentModel ? 'current' : '', m.detail ?? ''].filter(Boolean).join(' · ') || undefined,
    model: m.id,
  }));
  items.sort((a, b) => Number(b.model === currentModel) - Number(a.model === currentModel));
  return [...items, { label: 'Type a model name…', alwaysShow: true, action: 'type' }];
}

/** Sends one tiny request; on success writes the settings (and the new key) and says what works. */
async function testAndSave(deps: ConnectDeps, draft: Draft): Promise<'saved' | 'back' | 'cancel'> {
  const baseUrl = draft.provider === 'ollama' || draft.compatible ? draft.baseUrl : '';
  const model = draft.model ?? DEFAULT_MODELS[draft.provider];
  const name = providerDisplayName(draft.provider, baseUrl);
  let outcome: string | Error;
  try {
    const report = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: `Testing ${name} · ${model}…`, cancellable: true },
      async (_progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        const provider = loadChatRuntime().createProvider({ provider: draft.provider, model, baseUrl: baseUrl || undefined, apiKey: draft.apiKey, toolCalling: 'native', maxRetries: 0 });
        return testConnection(provider, { signal: abort.signal, timeoutMs: 60_000 });
      },
    );
    outcome = describeReport(report);
  } catch (error) {
    outcome = error instanceof Error ? error : new Error(String(error));
  }
  if (outcome instanceof Error) {
    if (outcome instanceof ProviderError && outcome.kind === 'aborted') return 'back';
    deps.log.warn(`Connect a model: the test of ${name} · ${model} failed: ${outcome.message}`);
    const choice = await vscode.window.showWarningMessage(`The test request failed: ${outcome.message}`, 'Back', 'Save Anyway');
    if (choice === 'Back') return 'back';
    if (choice !== 'Save Anyway') return 'cancel';
    outcome = 'Not tested.';
  }
  const target = await deps.holdRetries(async () => {
    // Stored for this endpoint only: the server it was given for.
    if (draft.keyIsNew && draft.apiKey) await deps.keys.set(draftEndpoint(draft), draft.apiKey);
    return writeModelSettings({ provider: draft.provider, baseUrl, model });
  });
  deps.log.info(`Connect a model: ${name} · ${model} (${target}). ${outcome}`);
  void vscode.window.showInformationMessage(`Toolbelt: connected to ${name} · ${model}. ${outcome}`);
  deps.connected();
  return 'saved';
}

async function connectVsCodeModel(deps: ConnectDeps, current: string): Promise<boolean> {
  const picked = await pickVsCodeModel(current);
  if (!picked) return false;
  await deps.holdRetries(() => writeModelSettings({ provider: 'vscode', model: picked }));
  deps.connected();
  return true;
}

/** VS Code's chat models (Copilot's, other extensions') as a list to pick from; `<vendor>/<id>`. */
export async function pickVsCodeModel(current: string): Promise<string | undefined> {
  const models = await otherChatModels();
  if (models.length === 0) {
    void vscode.window.showWarningMessage('VS Code offers no chat model now: sign in to a model provider (e.g. GitHub Copilot) first.');
    return undefined;
  }
  const picked = await vscode.window.showQuickPick(
    models.map((model) => ({ label: modelIdOf(model), description: `${model.name}${modelIdOf(model) === current ? ' · current' : ''}` })),
    { title: "VS Code's model" },
  );
  return picked?.label;
}

/**
 * Writes provider, base URL and model together, to the user settings (what most people want:
 * one model everywhere), or to the workspace when it sets any of them itself (and is trusted),
 * since a workspace value would hide the user's. Returns where it wrote.
 */
export async function writeModelSettings(values: { provider: ProviderName; baseUrl?: string; model: string }): Promise<'user settings' | 'workspace settings'> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const keys = ['provider', 'baseUrl', 'model'] as const;
  const inWorkspace = vscode.workspace.isTrusted && keys.some((key) => config.inspect(key)?.workspaceValue !== undefined);
  const target = inWorkspace ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update('provider', values.provider, target);
  if (values.provider !== 'vscode') await config.update('baseUrl', values.baseUrl || undefined, target);
  await config.update('model', values.model, target);
  return inWorkspace ? 'workspace settings' : 'user settings';
}

export function validateBaseUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return 'Enter a full address, e.g. http://127.0.0.1:1234/v1';
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'The address must start with http:// or https://';
}
