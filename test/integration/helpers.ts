import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';

export const EXTENSION_ID = 'toolbelt.toolbelt';

export async function activateToolbelt(): Promise<ToolbeltApi> {
  const extension = vscode.extensions.getExtension<ToolbeltApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed in the host`);
  return extension.activate();
}

export { waitFor } from '../support/waitFor';

/** Writes `toolbelt.<key>` values into the workspace settings (undefined removes one). */
export async function setChatSettings(values: Record<string, unknown>): Promise<void> {
  const config = vscode.workspace.getConfiguration('toolbelt');
  for (const [key, value] of Object.entries(values)) await config.update(key, value, vscode.ConfigurationTarget.Workspace);
}

export function registryConfig() {
  return vscode.workspace.getConfiguration('toolbelt');
}

/** Writes toolbelt.tools.registry into the workspace's .vscode/settings.json. */
export async function setRegistry(entries: unknown): Promise<void> {
  await registryConfig().update('tools.registry', entries, vscode.ConfigurationTarget.Workspace);
}

export function workspaceRegistry(): unknown {
  return registryConfig().inspect('tools.registry')?.workspaceValue;
}

export function names(list: { name: string }[]): string[] {
  return list.map((t) => t.name);
}
