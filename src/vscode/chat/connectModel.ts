import * as vscode from 'vscode';
import { DEFAULT_MODELS } from '../../providers/defaults';
import { endpointLabel, endpointOf, secretName, type Endpoint } from '../../providers/endpoints';
import { providerDisplayName, ProviderError } from '../../providers/errors';
import { detectLocalServers, listModels, type ListedModel, type LocalServer } from '../../providers/modelList';
import type { ProviderName, ServiceName } from '../../providers/providerNames';
import type { ApiKeys } from '../apiKeys';
import { readSettings } from '../settings';
import { closestModel, suggestV1, testStep } from './connectTest';
import { BACK, inputStep, pickStep } from './quickSteps';
import { saveLevelStep, workspaceModelKeys, writeModelSettings } from './saveModelSettings';
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
  /** The key for `keyEndpoint` only: forgotten the moment the draft points elsewhere (keyOf). */
  apiKey?: string;
  keyEndpoint?: string;
  keyIsNew: boolean;
  /** The server asked for a key while listing its models. */
  keyAsked: boolean;
  model?: string;
}

type Step = 'provider' | 'baseUrl' | 'key' | 'model' | 'test';
const TITLE = 'Connect a Model';

/**
 * Provider → base URL → API key (only when needed) → model from the server's own list → a test
 * request (a step of its own, its result shown in the flow) → the settings. Returns true when the
 * settings were written.
 */
export async function connectModel(deps: ConnectDeps, start?: ConnectStart): Promise<boolean> {
  const current = readSettings();
  const detection = start ? Promise.resolve([]) : detectLocalServers();
  const draft: Draft = { provider: 'openai', compatible: false, baseUrl: '', keyIsNew: false, keyAsked: false };
  if (start === 'vscode') return connectVsCodeModel(deps, current.model);
  if (start) applyStart(draft, start, current);
  const trail: Step[] = [];
  let step: Step = start ? nextStep(draft, 'provider', await needsKey(deps, draft)) : 'provider';
  while (true) {
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
    if (result === 'again') continue;
    if (result === 'saved') return true;
    trail.push(step);
    step = step === 'model' ? 'test' : nextStep(draft, step, await needsKey(deps, draft));
  }
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
  const all: Step[] = ['provider', 'baseUrl', 'key', 'model', 'test'];
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

/**
 * The draft's key, when it was given or stored for the endpoint the draft points at now. A key
 * never follows the draft to another server: a new address or provider starts without one.
 */
function keyOf(draft: Draft): string | undefined {
  if (draft.apiKey !== undefined && draft.keyEndpoint !== secretName(draftEndpoint(draft))) {
    draft.apiKey = undefined;
    draft.keyEndpoint = undefined;
    draft.keyIsNew = false;
  }
  return draft.apiKey;
}

function setKey(draft: Draft, key: string, isNew: boolean): void {
  draft.apiKey = key;
  draft.keyEndpoint = secretName(draftEndpoint(draft));
  draft.keyIsNew = isNew;
}

/** OpenAI's own service and Gemini need a key; a custom server only when it says so. */
function needsKeyNow(draft: Draft): boolean {
  return !keyOf(draft) && ((draft.provider === 'openai' && !draft.compatible) || draft.provider === 'gemini');
}

/** Whether the key step is needed; a key stored for the endpoint (and only that one) is used as it is. */
async function needsKey(deps: ConnectDeps, draft: Draft): Promise<boolean> {
  if (keyOf(draft)) return false;
  const stored = await deps.keys.get(draftEndpoint(draft));
  if (stored) setKey(draft, stored, false);
  return !stored && needsKeyNow(draft);
}

type ProviderItem = vscode.QuickPickItem & { choice?: ConnectStart; server?: LocalServer };

async function runStep(
  step: Step,
  frame: { title: string; step: number; totalSteps: number; back: boolean },
  draft: Draft,
  deps: ConnectDeps,
  detection: Promise<LocalServer[]>,
  current: ReturnType<typeof readSettings>,
): Promise<typeof BACK | undefined | 'next' | 'askKey' | 'vscode' | 'again' | 'saved'> {
  switch (step) {
    case 'provider': {
      const items = detection.then(async (servers) => providerItems(servers, deps));
      const picked = await pickStep<ProviderItem>({ ...frame, placeholder: 'Which service runs the model?', items });
      if (picked === undefined || picked === BACK) return picked;
      if (picked.choice === 'vscode') return 'vscode';
      draft.detected = picked.server;
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
      const value = await inputStep({
        ...frame,
        password: true,
        prompt: `The API key for ${endpointLabel(draftEndpoint(draft))} (${draftEndpoint(draft).host}): kept in VS Code's secret storage for it alone when you save, and sent nowhere else.`,
        placeholder: draft.provider === 'gemini' ? 'AIza…' : 'sk-…',
        validate: (v) => (v.trim() ? undefined : 'Enter a key (Escape cancels).'),
      });
      if (value === undefined || value === BACK) return value;
      setKey(draft, value.trim(), true);
      return 'next';
    }
    case 'model':
      return modelStep(frame, draft, current);
    case 'test':
      return testThenSave(frame, deps, draft);
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
  let listed: string[] = [];
  let movedTo: string | undefined;
  const list = (baseUrl: string) => (draft.detected ? Promise.resolve(draft.detected.models) : listModels({ provider: draft.provider, baseUrl: baseUrl || undefined, apiKey: keyOf(draft) }));
  // An address without /v1 is the commonest slip with OpenAI-compatible servers: /v1 is tried too.
  const withV1 = draft.compatible ? suggestV1({ provider: draft.provider, baseUrl: draft.baseUrl }) : undefined;
  const models = list(draft.baseUrl).catch(async (error: unknown) => {
    if (!withV1) throw error;
    const found = await list(withV1).catch(() => Promise.reject(error));
    draft.baseUrl = movedTo = withV1;
    return found;
  });
  const items = models.then(
    (found: ListedModel[]) => {
      listed = found.map((m) => m.id);
      const note: ModelItem[] = movedTo ? [{ label: `Found at ${movedTo}: the address now ends in /v1`, kind: vscode.QuickPickItemKind.Separator }] : [];
      return [...note, ...modelItems(found, currentModel)];
    },
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
    const typed = await inputStep({
      ...frame,
      back: true,
      value: currentModel || (draft.compatible ? '' : DEFAULT_MODELS[draft.provider]),
      prompt: `The model name as ${name} knows it.`,
      validate: (v) => (v.trim() ? undefined : 'Enter a model name.'),
      warn: (v) => notListed(v, listed, name),
    });
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

/** The test step; then the settings (and a new key) are written, saying honestly whether the test passed. */
async function testThenSave(frame: { title: string; step: number; totalSteps: number; back: boolean }, deps: ConnectDeps, draft: Draft): Promise<typeof BACK | undefined | 'askKey' | 'again' | 'saved'> {
  const baseUrl = draft.provider === 'ollama' || draft.compatible ? draft.baseUrl : '';
  const model = draft.model ?? DEFAULT_MODELS[draft.provider];
  const name = providerDisplayName(draft.provider, baseUrl);
  const outcome = await testStep(frame, { provider: draft.provider, baseUrl, model, apiKey: keyOf(draft), name }, deps.log);
  switch (outcome.kind) {
    case 'cancel':
      return undefined;
    case 'back':
      return BACK;
    case 'askKey':
      return 'askKey';
    case 'retry':
      return 'again';
    case 'baseUrl':
      draft.baseUrl = outcome.baseUrl;
      return 'again';
    case 'passed':
    case 'untested':
      break;
  }
  const level = await saveLevelStep(frame);
  if (level === undefined) return undefined;
  if (level === BACK) return 'again';
  const target = await deps.holdRetries(async () => {
    // Stored for this endpoint only: the server it was given for.
    const key = keyOf(draft);
    if (draft.keyIsNew && key) await deps.keys.set(draftEndpoint(draft), key);
    return writeModelSettings({ provider: draft.provider, baseUrl, model }, level);
  });
  const shadowed = level === 'user' ? workspaceModelKeys() : [];
  if (shadowed.length > 0) {
    void vscode.window.showWarningMessage(`Toolbelt: saved ${name} · ${model} in your user settings; this workspace's own ${shadowed.map((key) => `toolbelt.${key}`).join(', ')} still applies in it.`);
  }
  if (outcome.kind === 'passed') {
    deps.log.info(`Connect a model: ${name} · ${model} (${target}). ${outcome.summary}`);
    void vscode.window.showInformationMessage(`Toolbelt: connected to ${name} · ${model}. ${outcome.summary}`);
  } else {
    deps.log.warn(`Connect a model: saved ${name} · ${model} (${target}) although the test failed: ${outcome.failure}`);
    void vscode.window.showWarningMessage(`Toolbelt: saved ${name} · ${model} as the chat's model (${target}), but the test request failed, so the chat may fail the same way: ${outcome.failure}`);
  }
  deps.connected();
  return 'saved';
}

/** Says so when a typed model name is not on the list the server gave a step earlier (Enter still uses it). */
function notListed(value: string, listed: readonly string[], server: string): string | undefined {
  const typed = value.trim();
  if (!typed || listed.length === 0 || listed.includes(typed)) return undefined;
  const near = closestModel(typed, listed);
  return `${server} did not list "${typed}" among its ${listed.length} model${listed.length === 1 ? '' : 's'}${near ? `: did you mean ${near}?` : '.'} Enter uses it anyway.`;
}

async function connectVsCodeModel(deps: ConnectDeps, current: string): Promise<boolean> {
  const picked = await pickVsCodeModel(current);
  if (!picked) return false;
  const level = await saveLevelStep({ title: TITLE, step: 2, totalSteps: 2, back: false });
  if (level === undefined || level === BACK) return false;
  await deps.holdRetries(() => writeModelSettings({ provider: 'vscode', model: picked }, level));
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

export function validateBaseUrl(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value.trim());
  } catch {
    return 'Enter a full address, e.g. http://127.0.0.1:1234/v1';
  }
  return url.protocol === 'http:' || url.protocol === 'https:' ? undefined : 'The address must start with http:// or https://';
}
