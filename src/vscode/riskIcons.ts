import type { ToolRisk } from '../tools/types';

// What a builtin can do, at a glance in the Tools tree: a codicon and a few words per kind of harm.
// Pure (no vscode import): the tree turns the icon id into a ThemeIcon, and unit tests read it here.

export interface RiskLook {
  /** A codicon id: `eye`, `edit`, `trash`, `terminal`. */
  icon: string;
  label: string;
}

const BY_RISK: Record<ToolRisk, RiskLook> = {
  read: { icon: 'eye', label: 'Read-only' },
  write: { icon: 'edit', label: 'Changes files' },
  exec: { icon: 'terminal', label: 'Runs commands' },
};

/** Deleting is a different harm from writing: it gets an icon of its own. */
const BY_NAME: Record<string, RiskLook> = {
  remove: { icon: 'trash', label: 'Deletes files' },
  run_bash: { icon: 'terminal', label: 'Runs commands' },
};

export function riskLook(tool: { name: string; risk: ToolRisk }): RiskLook {
  return BY_NAME[tool.name] ?? BY_RISK[tool.risk];
}

/** Tools that ask the person before every call (the builtins registered disabled: remove, run_bash). */
export function asksEachTime(tool: { enabledByDefault?: boolean }): boolean {
  return tool.enabledByDefault === false;
}

/** The badge on a row of a tool that asks before every call. */
export const ASKS_EACH_TIME = 'asks each time';

/** Whether enabling this tool lets the model run programs: the one-time note explains what that means. */
export function runsCommands(tool: { risk: ToolRisk }): boolean {
  return tool.risk === 'exec';
}
