import { createHash } from 'node:crypto';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * The path of the CLI's state folder for a workspace (undo records, the call log `toolbelt hook`
 * writes): one folder per workspace under `base` (--state-dir / TOOLBELT_STATE_DIR), else
 * `$XDG_STATE_HOME/toolbelt` (`~/.local/state/toolbelt`; `%LOCALAPPDATA%\toolbelt` on Windows).
 * Only the path: src/cli/stateDir.ts refuses one inside the workspace; the extension reads the log there.
 */
export function stateFolderPath(workspaceRoot: string, base: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const home = os.homedir();
  const root =
    base ??
    (process.platform === 'win32'
      ? path.join(env.LOCALAPPDATA || path.join(home, 'AppData', 'Local'), 'toolbelt')
      : path.join(env.XDG_STATE_HOME || path.join(home, '.local', 'state'), 'toolbelt'));
  const id = createHash('sha256').update(workspaceRoot).digest('hex').slice(0, 16);
  const name = path.basename(workspaceRoot).replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 40) || 'workspace';
  return path.join(root, `${name}-${id}`);
}
