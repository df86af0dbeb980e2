import { findBuiltin } from '../../tools/manifest';
import { isLockedByTrust } from '../../tools/trustPolicy';

/** What the workspace's registry says of one builtin right now. */
export interface ToolState {
  registered: boolean;
  enabled: boolean;
  trusted: boolean;
}

/** Why a tool is (not) offered to models: only `offered` tools run when invoked. */
export type Availability = 'offered' | 'unknown' | 'unregistered' | 'disabled' | 'untrusted';

export function availabilityOf(tool: string, state: ToolState): Availability {
  const definition = findBuiltin(tool);
  if (!definition) return 'unknown';
  if (!state.registered) return 'unregistered';
  if (isLockedByTrust(definition.risk, state.trusted)) return 'untrusted';
  return state.enabled ? 'offered' : 'disabled';
}

/**
 * What a model (and the person reading the chat) is told when it calls a tool the workspace does
 * not offer: it did not run, and exactly how a person can switch it on.
 */
export function enableHint(tool: string, availability: Exclude<Availability, 'offered'>): string {
  const notRun = `Toolbelt's ${tool} tool is not active in this workspace, so the call did not run and nothing changed.`;
  switch (availability) {
    case 'unknown':
      return `Toolbelt has no tool named "${tool}"; nothing ran.`;
    case 'unregistered':
      return `${notRun} To activate it, add {"name": "${tool}"} to "toolbelt.tools.registry" in the workspace's .vscode/settings.json, or enable ${tool} under Available in the Toolbelt Tools view ("Toolbelt: Enable Tool"). Ask the user to do that; do not retry until they have.`;
    case 'disabled':
      return `${notRun} It is registered in "toolbelt.tools.registry" but switched off: the user can tick its checkbox in the Toolbelt Tools view (or run "Toolbelt: Enable Tool"). Ask the user; do not retry until they have.`;
    case 'untrusted':
      return `${notRun} It can change files or run programs, and this workspace is not trusted (restricted mode). The user must trust the workspace (Workspaces: Manage Workspace Trust) and then enable ${tool} in the Toolbelt Tools view.`;
  }
}
