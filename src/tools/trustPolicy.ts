import type { ToolRisk } from './types';

/**
 * The one rule for untrusted workspaces: only tools that read may be enabled there. Tools that
 * write files, run programs, or come from outside Toolbelt (EXTERNAL_TOOL_RISK) stay off until
 * the person trusts the workspace. The manager, the tree and the commands all ask here.
 */
export function mayEnableWhenUntrusted(risk: ToolRisk): boolean {
  return risk === 'read';
}

/** Whether the workspace's trust keeps a tool of this risk switched off now. */
export function isLockedByTrust(risk: ToolRisk, trusted: boolean): boolean {
  return !trusted && !mayEnableWhenUntrusted(risk);
}

/** Why `tool` cannot be enabled in this workspace, or undefined when trust is no obstacle. */
export function whyLockedWhenUntrusted(tool: { name: string; risk: ToolRisk; external?: boolean }, trusted: boolean): string | undefined {
  if (!isLockedByTrust(tool.risk, trusted)) return undefined;
  const what = tool.external ? 'comes from outside Toolbelt and may change anything' : 'can change files or run programs';
  return `"${tool.name}" ${what}, so it cannot be enabled until you trust this workspace.`;
}
