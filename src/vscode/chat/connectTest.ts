import * as vscode from 'vscode';
import { describeReport, testConnection } from '../../providers/connectionTest';
import type { ProviderErrorKind } from '../../providers/errors';
import type { ServiceName } from '../../providers/providerNames';
import { editDistance } from '../../tools/toolCatalog';
import type { StepFrame } from './quickSteps';
import { loadChatRuntime } from './runtimeLoader';

/** What the test step of Connect a Model ended in. */
export type TestOutcome =
  | { kind: 'passed'; summary: string }
  /** The person chose to save although the test failed: `failure` says why it failed. */
  | { kind: 'untested'; failure: string }
  | { kind: 'back' }
  | { kind: 'cancel' }
  | { kind: 'askKey' }
  | { kind: 'retry' }
  /** Try again at this base URL (the same with /v1). */
  | { kind: 'baseUrl'; baseUrl: string };

export interface TestTarget {
  provider: ServiceName;
  /** '' for the provider's own service. */
  baseUrl: string;
  model: string;
  apiKey?: string;
  /** Who is tested, as the flow names it: "127.0.0.1:1234", "Ollama", "OpenAI". */
  name: string;
}

type Item = vscode.QuickPickItem & { outcome?: TestOutcome };

/**
 * The last step of Connect a Model: one short streamed request with a test tool, shown as a step
 * of the flow (its counter included). Passing ends the flow; a failure stays in the flow with
 * what went wrong and what can be done: try /v1, enter the key, go back, try again, or save anyway.
 */
export async function testStep(frame: StepFrame, target: TestTarget, log: Pick<vscode.LogOutputChannel, 'warn'>): Promise<TestOutcome> {
  const pick = vscode.window.createQuickPick<Item>();
  pick.title = frame.title;
  pick.step = frame.step;
  pick.totalSteps = frame.totalSteps;
  pick.ignoreFocusOut = true;
  pick.buttons = [vscode.QuickInputButtons.Back];
  pick.placeholder = `Testing ${target.name} · ${target.model}…`;
  pick.busy = true;
  pick.items = [{ label: '$(sync~spin) Sending one short request with a test tool…', detail: 'It checks that the model answers, streams and can call tools. Escape stops it.' }];
  const abort = new AbortController();
  const disposables: vscode.Disposable[] = [pick];
  try {
    return await new Promise<TestOutcome>((resolve) => {
      let settled = false;
      const done = (outcome: TestOutcome) => {
        if (settled) return;
        settled = true;
        abort.abort();
        resolve(outcome);
      };
      disposables.push(
        pick.onDidTriggerButton(() => done({ kind: 'back' })),
        pick.onDidHide(() => done({ kind: 'cancel' })),
        pick.onDidAccept(() => {
          const outcome = pick.selectedItems[0]?.outcome;
          if (outcome) done(outcome);
        }),
      );
      pick.show();
      runTest(target, abort.signal).then(
        (summary) => done({ kind: 'passed', summary }),
        (error: unknown) => {
          if (settled) return;
          const message = error instanceof Error ? error.message : String(error);
          log.warn(`Connect a model: the test of ${target.name} · ${target.model} failed: ${message}`);
          pick.busy = false;
          pick.placeholder = `The test of ${target.name} · ${target.model} failed. What next?`;
          pick.items = failureItems(target, error, message);
        },
      );
    });
  } finally {
    vscode.Disposable.from(...disposables).dispose();
  }
}

async function runTest(target: TestTarget, signal: AbortSignal): Promise<string> {
  const provider = loadChatRuntime().createProvider({ provider: target.provider, model: target.model, baseUrl: target.baseUrl || undefined, apiKey: target.apiKey, toolCalling: 'native', maxRetries: 0 });
  return describeReport(await testConnection(provider, { signal, timeoutMs: 60_000 }));
}

/** The failure, then the fixes that fit it, the likeliest first. */
export function failureItems(target: TestTarget, error: unknown, message: string): Item[] {
  // By its kind, not instanceof: the error comes from the chat runtime's bundle, which has its own copy of the class.
  const kind = errorKind(error);
  const items: Item[] = [{ label: '$(error) The test request failed', detail: message, outcome: { kind: 'retry' }, alwaysShow: true }];
  const withV1 = suggestV1(target);
  if (withV1 && (kind === 'not_found' || kind === 'protocol' || kind === 'bad_request')) {
    items.push({ label: `Try ${withV1}`, description: 'OpenAI-compatible servers usually answer under /v1', outcome: { kind: 'baseUrl', baseUrl: withV1 } });
  }
  if (kind === 'auth') items.push({ label: 'Enter the API key…', description: `for ${target.name} only`, outcome: { kind: 'askKey' } });
  items.push(
    { label: 'Try again', outcome: { kind: 'retry' } },
    { label: kind === 'not_found' ? 'Back: pick another model' : 'Back', outcome: { kind: 'back' } },
    { label: 'Save without a passing test', description: 'the chat shows this error until the server answers', outcome: { kind: 'untested', failure: message } },
  );
  return items;
}

function errorKind(error: unknown): ProviderErrorKind | undefined {
  const kind = error && typeof error === 'object' ? (error as { kind?: unknown }).kind : undefined;
  return typeof kind === 'string' ? (kind as ProviderErrorKind) : undefined;
}

/** The base URL with /v1 added, for an OpenAI-compatible server whose address has no /v1 yet. */
export function suggestV1(target: Pick<TestTarget, 'provider' | 'baseUrl'>): string | undefined {
  if (target.provider !== 'openai' || !target.baseUrl) return undefined;
  const trimmed = target.baseUrl.replace(/\/+$/, '');
  return /\/v\d+[a-z]*$/i.test(trimmed) ? undefined : `${trimmed}/v1`;
}

/** A listed model name close to one typed by hand (a likely typo), if there is one. */
export function closestModel(typed: string, listed: readonly string[]): string | undefined {
  const wanted = typed.trim().toLowerCase();
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const name of listed) {
    const distance = name.toLowerCase().startsWith(wanted) ? 0.5 : editDistance(wanted, name.toLowerCase());
    if (distance < bestDistance) [best, bestDistance] = [name, distance];
  }
  return bestDistance <= Math.max(2, Math.floor(wanted.length / 4)) ? best : undefined;
}
