import type { Verdict } from '../tools/consent';
import type { HookAgent } from '../tools/nativeCalls';

/** A decision as the agent is told it: what goes to stdout and stderr, and the exit code. */
export interface HookAnswer {
  stdout: string;
  stderr: string;
  code: number;
}

/**
 * The decision in the agent's own format. Every answer is one JSON line on stdout, exit 0,
 * except Codex's deny: exit 2 with the reason on stderr (Codex blocks on exit 2 or a deny, and
 * ignores ask and allow). Never exit 1: all three CLIs run the call after a hook that exits 1.
 *
 *   claude-code  {"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":V,"permissionDecisionReason":R}}
 *   codex        deny: the same JSON, and exit 2 with R on stderr; allow: nothing
 *   gemini-cli   {"decision":V,"reason":R}  (V: allow | deny | ask)
 *   copilot      {"permissionDecision":V,"permissionDecisionReason":R,"hookSpecificOutput":{…Claude's…}}
 *                (Copilot CLI reads the top level, VS Code's agent hooks the hookSpecificOutput)
 *   cursor       {"permission":V,"user_message":R,"agent_message":R}  (+ the camelCase names older versions read)
 */
export function hookAnswer(agent: HookAgent, verdict: Verdict, reason: string): HookAnswer {
  const line = (value: unknown): string => `${JSON.stringify(value)}\n`;
  const claude = { hookEventName: 'PreToolUse', permissionDecision: verdict, permissionDecisionReason: reason };
  switch (agent) {
    case 'claude-code':
      return { stdout: line({ hookSpecificOutput: claude }), stderr: '', code: 0 };
    case 'codex':
      return verdict === 'deny' ? { stdout: line({ hookSpecificOutput: claude }), stderr: `${reason}\n`, code: 2 } : { stdout: '', stderr: '', code: 0 };
    case 'gemini-cli':
      return { stdout: line({ decision: verdict, reason }), stderr: '', code: 0 };
    case 'copilot':
      return { stdout: line({ permissionDecision: verdict, permissionDecisionReason: reason, hookSpecificOutput: claude }), stderr: '', code: 0 };
    case 'cursor':
      return { stdout: line({ permission: verdict, user_message: reason, agent_message: reason, userMessage: reason, agentMessage: reason }), stderr: '', code: 0 };
  }
}

/**
 * Deny for an agent this hook cannot name (a wrong AGENT argument): exit 2 with the reason on
 * stderr blocks in Claude Code, Codex, Gemini CLI and Cursor; the JSON on stdout is Claude's shape.
 */
export function unknownAgentDeny(reason: string): HookAnswer {
  return {
    stdout: `${JSON.stringify({ hookSpecificOutput: { hookEventName: 'PreToolUse', permissionDecision: 'deny', permissionDecisionReason: reason }, decision: 'deny', reason, permission: 'deny', permissionDecision: 'deny' })}\n`,
    stderr: `${reason}\n`,
    code: 2,
  };
}
