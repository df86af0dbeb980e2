import * as vscode from 'vscode';
import { ApiKeys } from '../apiKeys';
import { SettingsWatcher } from '../settings';
import { readToolToggles } from '../toolState';
import type { ChatProviderShape } from './chatProviderApi';
import { builtinOf } from './lmToolEntries';
import { OfferedToolKeys } from './offeredToolKeys';
import { settingsOffer } from './settingsOffer';
import { ToolbeltModelProvider, VENDOR } from './toolbeltModelProvider';

/** How presence loads the host (src/vscode/lazyHost.ts): once, synchronously; `reason` names what needed it. */
export type LoadHost = (reason: string) => unknown;

/**
 * Toolbelt in VS Code's chat before anything has used Toolbelt: what every window does without
 * being asked, kept small so it blocks the extension host for a few milliseconds only. The shell
 * loads it (dist/presence.js, docs/ARCHITECTURE.md, "Bundles") 1.5 s after activation, or before the
 * host if something needs the host sooner; the host (src/vscode/host.ts) then takes these over.
 */
export interface Presence {
  /** The one configuration listener; the host's services use it too. */
  readonly watcher: SettingsWatcher;
  readonly keys: ApiKeys;
  /** The `toolbelt.tool.<name>.offered` context keys, from the settings until the host hands them its tools (`follow`). */
  readonly offered: OfferedToolKeys;
  /** Where presence's log lines go from now on; those said before go there first. */
  attachLog(log: Pick<vscode.LogOutputChannel, 'info' | 'warn'>): void;
  /** The workspace's descriptions of its `toolbelt_*` tools, for Toolbelt's model; the host hands them over. */
  describeToolsWith(descriptionOf: (lmToolName: string) => string | undefined): void;
}

/**
 * Sets the context keys from the settings, the person's switches and trust (the host's rule,
 * src/vscode/nativeChat/settingsOffer.ts), and lists Toolbelt's model for VS Code's model picker;
 * a request to that model, or a change of `toolbelt.tools.registry`, loads the host.
 */
export function startPresence(context: vscode.ExtensionContext, loadHost: LoadHost, nextTask: NextTask = afterThisTask): Presence {
  const log = new EarlyLog();
  const watcher = new SettingsWatcher();
  const keys = new ApiKeys(context.secrets);
  const offered = new OfferedToolKeys(settingsOffer(readToolToggles(context)), log);
  const descriptions = hostDescriptions(loadHost);
  const provider = new ToolbeltModelProvider(keys, watcher, descriptions.of);
  context.subscriptions.push(
    watcher,
    offered,
    provider,
    watcher.onDidChange((change) => change.registry && loadQuietly(loadHost, 'a change of toolbelt.tools.registry')),
    // A task of its own: registering a vendor is the costliest step here (3–5 ms measured).
    nextTask(() => listModel(context, provider, log)),
  );
  return { watcher, keys, offered, attachLog: (channel) => log.attach(channel), describeToolsWith: descriptions.handOver };
}

/** Runs `task` in a task of its own, unless disposed first (tests step through these themselves). */
export type NextTask = (task: () => void) => vscode.Disposable;

const afterThisTask: NextTask = (task) => {
  const timer = setTimeout(task, 0);
  return new vscode.Disposable(() => clearTimeout(timer));
};

/**
 * The workspace's descriptions of its `toolbelt_*` tools live in the host's registry: a request to
 * Toolbelt's model that carries one of them loads the host if it has not loaded, and the host
 * hands them over (`handOver`); other tools keep the description they came with.
 */
export function hostDescriptions(loadHost: LoadHost): { of(lmToolName: string): string | undefined; handOver(descriptionOf: (lmToolName: string) => string | undefined): void } {
  let describe: ((lmToolName: string) => string | undefined) | undefined;
  return {
    of(lmToolName) {
      if (!describe && builtinOf(lmToolName) === undefined) return undefined;
      if (!describe) loadHost("Toolbelt's model in VS Code's chat");
      return describe?.(lmToolName);
    },
    handOver: (descriptionOf) => void (describe = descriptionOf),
  };
}

/** Registers Toolbelt's model (VS Code 1.104+) and asks for it once: the picker lists a vendor's models only after something has. */
function listModel(context: vscode.ExtensionContext, provider: ChatProviderShape, log: EarlyLog): void {
  const lm = vscode.lm as unknown as { registerLanguageModelChatProvider?(vendor: string, provider: ChatProviderShape): vscode.Disposable };
  if (typeof lm.registerLanguageModelChatProvider !== 'function') {
    log.info(`This VS Code (${vscode.version}) cannot list Toolbelt's model in its model picker; 1.104 or later can.`);
    return;
  }
  context.subscriptions.push(lm.registerLanguageModelChatProvider(VENDOR, provider));
  vscode.lm.selectChatModels({ vendor: VENDOR }).then(
    (models) => log.info(`VS Code's model picker lists ${models.map((m) => m.name).join(', ') || 'no Toolbelt model'}.`),
    (error: unknown) => log.warn(`Could not list Toolbelt's model in VS Code: ${String(error)}`),
  );
}

function loadQuietly(loadHost: LoadHost, reason: string): void {
  try {
    loadHost(reason);
  } catch {
    // The shell has said why, once (src/vscode/lazyHost.ts).
  }
}

/** Log lines from before the host's output channel exists (creating one costs every window); the host attaches it. */
class EarlyLog {
  private readonly early: [level: 'info' | 'warn', message: string][] = [];
  private channel: Pick<vscode.LogOutputChannel, 'info' | 'warn'> | undefined;

  info(message: string): void {
    this.write('info', message);
  }

  warn(message: string): void {
    this.write('warn', message);
  }

  attach(channel: Pick<vscode.LogOutputChannel, 'info' | 'warn'>): void {
    this.channel = channel;
    for (const [level, message] of this.early.splice(0)) channel[level](message);
  }

  private write(level: 'info' | 'warn', message: string): void {
    if (this.channel) this.channel[level](message);
    else this.early.push([level, message]);
  }
}
