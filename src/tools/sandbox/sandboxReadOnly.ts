import * as path from 'node:path';
import { isInside } from '../pathChecks';
import { AGENT_CONFIG_PATHS } from '../protectedPaths';

/**
 * Files the host, CI or another agent runs or obeys later, read-only in every sandbox on top of
 * `.vscode/`, `*.code-workspace` and git's own files: dev containers, CI workflows, git hook
 * managers, direnv, and every agent's own configuration (a command that rewrote `.claude/` or
 * `.mcp.json` would change what the next agent is allowed to do). Workspace-relative; a trailing
 * `/` names a folder. `toolbelt.sandbox.readOnlyPaths` adds to this list; nothing removes from it.
 */
export const DEFAULT_READ_ONLY_PATHS: readonly string[] = Object.freeze([
  '.devcontainer/',
  '.devcontainer.json',
  '.github/workflows/',
  '.gitlab-ci.yml',
  '.husky/',
  '.envrc',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  'lefthook.yaml',
  '.lefthook.yml',
  ...AGENT_CONFIG_PATHS,
]);

/** Why an entry cannot be used (absolute, or leading out of the folder), or undefined. */
export function readOnlyEntryProblem(entry: string): string | undefined {
  const relative = entry.trim().replace(/\/+$/, '');
  if (path.isAbsolute(relative) || relative.startsWith('~')) return `"${entry}" is not relative to the workspace folder`;
  const normal = path.normalize(relative);
  if (normal === '.' || normal === '..' || normal.startsWith(`..${path.sep}`)) return `"${entry}" leads out of the workspace folder`;
  return undefined;
}

/** The absolute paths the built-in list and `entries` name in each workspace folder (unusable entries left out). */
export function readOnlyPathsIn(roots: readonly string[], entries: readonly string[]): string[] {
  const usable = [...DEFAULT_READ_ONLY_PATHS, ...entries].filter((entry) => entry.trim() && readOnlyEntryProblem(entry) === undefined);
  const paths = roots.flatMap((root) => usable.map((entry) => path.join(root, entry.trim().replace(/\/+$/, ''))).filter((p) => p !== root && isInside(root, p)));
  return [...new Set(paths)];
}
