import type { ConsentQuestion, PolicyRule } from './consent';
import type { ToolContext } from './types';
import type { ResolvedPath } from './workspacePaths';

/** Where a protected path lies: the repository (`.git/`), workspace settings (`.vscode/`), a workspace file, an agent's own configuration. */
export type ProtectedArea = 'git' | 'vscode' | 'workspace-file' | 'agent-config';

/**
 * The agents' own configuration at the workspace's root (Claude Code, Codex, Gemini CLI, Cursor,
 * Claude's `.mcp.json`, Copilot's hooks): a change there can switch off the hook that puts the
 * agent under this policy (`toolbelt hook`), so it needs a person's say, like `.vscode/`.
 * Folders end with `/`.
 */
export const AGENT_CONFIG_PATHS: readonly string[] = ['.claude/', '.codex/', '.gemini/', '.cursor/', '.github/hooks/', '.mcp.json'];

/** The entry of AGENT_CONFIG_PATHS a workspace-relative path lies in, if any (any separator, any case). */
export function agentConfigArea(relative: string): string | undefined {
  const normal = relative.split(/[\\/]/).filter(Boolean).join('/').toLowerCase();
  return AGENT_CONFIG_PATHS.find((entry) => (entry.endsWith('/') ? `${normal}/`.startsWith(entry) : normal === entry));
}

/**
 * `.git/`, `.vscode/` and `*.code-workspace`: the repository with its hooks, and the settings that
 * decide what tools and commands may run. Changing them needs a person's say. Any separator,
 * any case (a case-insensitive file system would let `.VSCode/` through otherwise).
 */
export function protectedArea(relative: string): ProtectedArea | undefined {
  const segments = relative.split(/[\\/]/).filter(Boolean).map((s) => s.toLowerCase());
  if (segments.includes('.git')) return 'git';
  if (segments.includes('.vscode')) return 'vscode';
  if (agentConfigArea(relative)) return 'agent-config';
  return (segments[segments.length - 1] ?? '').endsWith('.code-workspace') ? 'workspace-file' : undefined;
}

export function isProtectedPath(relative: string): boolean {
  return protectedArea(relative) !== undefined;
}

export interface ChangeConsent {
  tool: string;
  summary: string;
  targets: readonly ResolvedPath[];
  /** The tool asks before every call, whatever the path (remove). */
  destructive?: boolean;
  /** For write_file: the content, so the person can review the difference. */
  content?: string;
  /**
   * Whether the change asks when the person chose to review every write (`writeApprovals:
   * 'always'`); true unless the tool writes only its own file (save_session_context).
   */
  reviewed?: boolean;
}

/**
 * The one question a change to files needs, if any: `protected` when a target is protected,
 * else `destructive` for a tool that always asks, else `write` when the person reviews every
 * write. Without a person a protected change is refused; the others run.
 */
export function changeQuestions(ctx: ToolContext, change: ChangeConsent): ConsentQuestion[] {
  const guarded = change.targets.find((t) => isProtectedPath(t.relative));
  const agentConfig = guarded !== undefined && protectedArea(guarded.relative) === 'agent-config';
  const review = ctx.writeApprovals === 'always' && change.reviewed !== false;
  if (!guarded && !change.destructive && !review) return [];
  const written = change.content !== undefined ? change.targets[0] : undefined;
  return [
    {
      reason: guarded ? 'protected' : change.destructive ? 'destructive' : 'write',
      summary: change.summary,
      paths: change.targets.map((t) => t.display),
      ...(written && change.content !== undefined ? { proposed: { absolute: written.absolute, display: written.display, content: change.content } } : {}),
      ...(guarded
        ? {
            nobody:
              `"${guarded.display}" is a protected path (${agentConfig ? "an agent's own configuration" : '.git/, .vscode/, *.code-workspace'}); ` +
              "changing it needs the user's confirmation, and none can be asked here. It was not changed.",
          }
        : {}),
      declined: `The user declined: ${change.summary}. Nothing was changed.`,
      rule: guarded ? (agentConfig ? AGENT_CONFIG_RULE : PROTECTED_RULE) : change.destructive ? { builtin: `${change.tool} asks before every call` } : { setting: 'toolbelt.approvals.writes', entry: 'always' },
    },
  ];
}

/** The built-in rule behind every `protected` question. */
export const PROTECTED_RULE: PolicyRule = { builtin: 'changes to protected paths (.git/, .vscode/, *.code-workspace) ask' };

/** The built-in rule behind a `protected` question about an agent's own configuration. */
export const AGENT_CONFIG_RULE: PolicyRule = { builtin: `changes to the agents' own configuration (${AGENT_CONFIG_PATHS.join(', ')}) ask` };
