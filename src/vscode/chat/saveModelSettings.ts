import * as vscode from 'vscode';
import type { ProviderName } from '../../providers/providerNames';
import { SECTION } from '../settings';
import { BACK, pickStep, type StepFrame } from './quickSteps';

const MODEL_KEYS = ['provider', 'baseUrl', 'model'] as const;
export type SaveLevel = 'user' | 'workspace';

/**
 * Whose choice the model is. It is the person's (user settings) unless they choose the
 * workspace: `.vscode/settings.json` is shared with everyone on the repository, so a personal
 * endpoint never lands there unasked. Asked only when the workspace sets one of the model's
 * settings itself (then a user value would not apply here, and the person should know).
 */
export async function saveLevelStep(frame: StepFrame): Promise<SaveLevel | typeof BACK | undefined> {
  const shared = workspaceModelKeys();
  if (shared.length === 0) return 'user';
  const named = shared.map((key) => `toolbelt.${key}`).join(', ');
  type LevelItem = vscode.QuickPickItem & { level: SaveLevel };
  const picked = await pickStep<LevelItem>({
    ...frame,
    placeholder: `Save this model for whom? This workspace's .vscode/settings.json sets ${named} itself.`,
    items: [
      { label: 'For me (my user settings)', detail: `This workspace's own ${named} still applies in it until removed from .vscode/settings.json.`, level: 'user' },
      { label: 'For everyone on this workspace (.vscode/settings.json)', detail: 'Shared: committed with the repository, it applies to every teammate who opens it.', level: 'workspace' },
    ],
  });
  return picked === undefined || picked === BACK ? picked : picked.level;
}

/** The model's settings this (trusted) workspace or one of its folders sets itself: they win over the person's here. */
export function workspaceModelKeys(): string[] {
  if (!vscode.workspace.isTrusted) return [];
  const config = vscode.workspace.getConfiguration(SECTION);
  return MODEL_KEYS.filter((key) => {
    const inspected = config.inspect(key);
    return inspected?.workspaceValue !== undefined || inspected?.workspaceFolderValue !== undefined;
  });
}

/** Writes provider, base URL and model together at the level chosen; returns where, in words. */
export async function writeModelSettings(values: { provider: ProviderName; baseUrl?: string; model: string }, level: SaveLevel = 'user'): Promise<'user settings' | 'workspace settings'> {
  const config = vscode.workspace.getConfiguration(SECTION);
  const target = level === 'workspace' ? vscode.ConfigurationTarget.Workspace : vscode.ConfigurationTarget.Global;
  await config.update('provider', values.provider, target);
  if (values.provider !== 'vscode') await config.update('baseUrl', values.baseUrl || undefined, target);
  await config.update('model', values.model, target);
  return level === 'workspace' ? 'workspace settings' : 'user settings';
}
