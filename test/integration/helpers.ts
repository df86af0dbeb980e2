import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ToolbeltApi } from '../../src/vscode/api';

export const EXTENSION_ID = 'toolbelt.toolbelt';

export async function activateToolbelt(): Promise<ToolbeltApi> {
  const extension = vscode.extensions.getExtension<ToolbeltApi>(EXTENSION_ID);
  assert.ok(extension, `${EXTENSION_ID} is installed in the host`);
  return extension.activate();
}

/** Polls until `check` returns a truthy value (settings events arrive asynchronously). */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await check();
    if (last) return last as NonNullable<T>;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what} (last value: ${JSON.stringify(last)})`);
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
