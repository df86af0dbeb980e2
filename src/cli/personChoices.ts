import * as path from 'node:path';
import { flagValue, flagValues, hasFlag, type FlagSpec, type ParsedArgs } from './args';

/**
 * What the person decided, from their command line (and the settings file they name): never read
 * from the workspace. The workspace says which tools exist and what its rules are; these say which
 * of its asks the person settles in advance.
 */
export interface PersonChoices {
  /** The person's own settings file (`--user-settings`, or TOOLBELT_USER_SETTINGS). */
  userSettingsFile?: string;
  /** Tools that stay off until the person says so (remove, run_bash), switched on. */
  enable: ReadonlySet<string>;
  /** Servers of `.vscode/mcp.json` that may start, as they are defined when toolbelt starts. */
  approveServers: ReadonlySet<string>;
  /** MCP servers' tools (`<server>/<tool>`) that run without asking each call. */
  runWithoutAsking: ReadonlySet<string>;
  /** The workspace's `toolbelt.runBash.allowedCommands`, as they are when toolbelt starts, apply. */
  acceptWorkspaceCommands: boolean;
  /** Where undo records and the call log live (`--state-dir`, or TOOLBELT_STATE_DIR). */
  stateDir?: string;
}

export const COMMON_FLAGS: Readonly<Record<string, FlagSpec>> = {
  workspace: { value: true },
  'user-settings': { value: true },
  'state-dir': { value: true },
  help: {},
};

export const CHOICE_FLAGS: Readonly<Record<string, FlagSpec>> = {
  enable: { value: true, repeat: true },
  'approve-server': { value: true, repeat: true },
  'accept-workspace-commands': {},
  'run-without-asking': { value: true, repeat: true },
};

export function choicesFrom(parsed: ParsedArgs, env: NodeJS.ProcessEnv, cwd: string): PersonChoices {
  const file = flagValue(parsed, 'user-settings') ?? (env.TOOLBELT_USER_SETTINGS || undefined);
  const stateDir = flagValue(parsed, 'state-dir') ?? (env.TOOLBELT_STATE_DIR || undefined);
  return {
    ...(file ? { userSettingsFile: path.resolve(cwd, file) } : {}),
    ...(stateDir ? { stateDir: path.resolve(cwd, stateDir) } : {}),
    enable: new Set(flagValues(parsed, 'enable').map((name) => name.trim())),
    approveServers: new Set(flagValues(parsed, 'approve-server').map((name) => name.trim())),
    runWithoutAsking: new Set(flagValues(parsed, 'run-without-asking').map((name) => name.trim())),
    acceptWorkspaceCommands: hasFlag(parsed, 'accept-workspace-commands'),
  };
}
