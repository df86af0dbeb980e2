import * as vscode from 'vscode';
import { findBuiltin } from '../../tools/manifest';
import { readEntry } from '../../tools/registryEntries';
import { readRegistryEntries } from '../settings';
import type { OfferSource } from './offeredToolKeys';
import { availabilityOf, type Availability } from './toolAvailability';

/** What decides whether a builtin is offered before the tool manager exists. */
export interface OfferSettings {
  /** `toolbelt.tools.registry` as written. */
  entries: unknown;
  /** The person's switch for a tool, if they set one. */
  toggle(tool: string): boolean | undefined;
  trusted: boolean;
}

/**
 * The host's rule (availabilityOf over its registry, src/tools/toolManager.ts) read straight from
 * what the registry is built from: a builtin is registered when an entry names it (ToolManager
 * reads entries with the same readEntry, and before the host runs no tool source exists to name
 * anything else), switched on by the person's switch or else its manifest default, and locked by
 * trust as availabilityOf says. test/unit/presence.test.ts holds it to the host's answer.
 */
export function availabilityFromSettings(tool: string, settings: OfferSettings): Availability {
  const list = Array.isArray(settings.entries) ? settings.entries : [];
  const registered = list.some((entry, index) => readEntry(entry, index, { warnings: [], errors: [] })?.name === tool);
  const enabled = settings.toggle(tool) ?? findBuiltin(tool)?.enabledByDefault ?? false;
  return availabilityOf(tool, { registered, enabled, trusted: settings.trusted });
}

/**
 * The offer before the host runs: the settings and the switches as they were when it started (only
 * the host changes the switches; presence.ts loads the host when the registry changes, since a
 * tool it names from then on has no stand-in, src/vscode/standIns.ts) and trust as it is now
 * (OfferedToolKeys asks again when trust is granted).
 */
export function settingsOffer(toggle: OfferSettings['toggle']): OfferSource {
  let entries: unknown;
  let read = false;
  return {
    availability(tool) {
      if (!read) [entries, read] = [readRegistryEntries(), true];
      return availabilityFromSettings(tool, { entries, toggle, trusted: vscode.workspace.isTrusted });
    },
    onDidChange: () => ({ dispose: () => undefined }),
  };
}
