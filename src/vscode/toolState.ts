import * as path from 'node:path';
import type * as vscode from 'vscode';
import { readStateFile, stateFolder } from './jsonStateFile';

/** The state file of the workspace's tools, in the workspace storage folder (src/vscode/storage.ts). */
export const TOOL_STATE_FILE = 'tool-state.json';
/** The person's switches in it, tool name → enabled: the tree's checkboxes, Enable/Disable Tool (WorkspaceTools). */
export const TOGGLES_KEY = 'toolbelt.toolToggles';

/**
 * The switches as WorkspaceTools reads them, without it (presence.ts, before the host loads):
 * only the host changes them, so one read holds until it takes over.
 */
export function readToolToggles(context: Pick<vscode.ExtensionContext, 'storageUri' | 'workspaceState'>): (tool: string) => boolean | undefined {
  const folder = stateFolder(context);
  const stored: unknown = folder ? readStateFile(path.join(folder, TOOL_STATE_FILE))[TOGGLES_KEY] : context.workspaceState.get(TOGGLES_KEY);
  const toggles = stored && typeof stored === 'object' ? (stored as Record<string, unknown>) : {};
  return (tool) => {
    const value = toggles[tool];
    return typeof value === 'boolean' ? value : undefined;
  };
}
