import * as vscode from 'vscode';
import type { HostMessage } from '../../protocol';

/**
 * What the chat says of restricted mode: the workspace settings VS Code ignores until the folder
 * is trusted, read from the manifest's `capabilities.untrustedWorkspaces.restrictedConfigurations`
 * (the list VS Code itself applies), so the line never drifts from it.
 */
export function trustMessage(packageJSON: unknown, trusted: boolean = vscode.workspace.isTrusted): HostMessage {
  return { type: 'trust', trusted, ignoredSettings: trusted ? [] : restrictedSettings(packageJSON) };
}

export function restrictedSettings(packageJSON: unknown): string[] {
  const list = (packageJSON as { capabilities?: { untrustedWorkspaces?: { restrictedConfigurations?: unknown } } } | undefined)?.capabilities?.untrustedWorkspaces?.restrictedConfigurations;
  return Array.isArray(list) ? list.filter((key): key is string => typeof key === 'string') : [];
}
