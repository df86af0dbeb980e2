import type { PolicyRule } from '../tools/consent';
import type { Policy } from './policy';
import { decideNativeCall, type HookAgent, type NativeCall, type NativeDecision, type NativePolicy } from '../tools/nativeCalls';
import { HookEventError, parseHookEvent } from './hookEvents';

/** The agents whose own tools the policy knows by name, VS Code's first (its Chat is where a person meets them beside Toolbelt's). */
export const NATIVE_ORDER: readonly HookAgent[] = ['copilot', 'claude-code', 'gemini-cli', 'codex', 'cursor'];

/** Each agent's hook event for one call of `tool`, as the agent sends it (hookEvents.ts reads it back). */
function nativeEvent(agent: HookAgent, root: string, tool: string, args: Record<string, unknown>): Record<string, unknown> {
  const common = { session_id: 'policy-explain', cwd: root, tool_name: tool, tool_input: args };
  if (agent === 'cursor') return { ...common, hook_event_name: 'preToolUse', workspace_roots: [root] };
  if (agent === 'gemini-cli') return { ...common, hook_event_name: 'BeforeTool' };
  return { ...common, hook_event_name: 'PreToolUse', ...(agent === 'claude-code' ? { permission_mode: 'default' } : {}) };
}

/** Another agent's own tool call, read as that agent's hook event would carry it; `malformed`: the hook could not read it. */
export type NativeToolCall = { agent: HookAgent; call: NativeCall } | { agent: HookAgent; malformed: string };

/**
 * The first agent with a tool of this name (VS Code's run_in_terminal, Claude Code's Bash…), and
 * the call as its hook reads it; undefined when no agent has one.
 */
export function nativeToolCall(root: string, tool: string, args: Record<string, unknown>): NativeToolCall | undefined {
  for (const agent of NATIVE_ORDER) {
    try {
      const { call } = parseHookEvent(agent, JSON.stringify(nativeEvent(agent, root, tool, args)), {});
      if (call && call.kind === 'other' && !call.inert) continue;
      if (call) return { agent, call };
    } catch (error) {
      // The agent's own tool, with arguments it would not send: the hook fails closed on them.
      if (!(error instanceof HookEventError)) throw error;
      return { agent, malformed: error.message };
    }
  }
  return undefined;
}

export const HOOK_FAILS_CLOSED: PolicyRule = { builtin: 'the hook fails closed' };

/** Why a call the hook cannot read is denied. */
export function unreadableCall(malformed: string): string {
  return `the hook cannot read this call (${malformed}), and it denies what it cannot read`;
}

/** What `toolbelt hook AGENT` decides for such a call: a call the hook cannot read is denied. */
export function decideNativeTool(found: NativeToolCall, policy: NativePolicy): NativeDecision {
  if ('malformed' in found) return { verdict: 'deny', reason: unreadableCall(found.malformed), rule: HOOK_FAILS_CLOSED };
  return decideNativeCall(found.call, policy);
}

/** The policy as the hook applies it cannot be read: the hook denies every call while it is so. */
export class PolicyUnreadable extends Error {
  override name = 'PolicyUnreadable';
}

/** The hook's view of a workspace's policy; a policy with problems is unreadable to it (it fails closed). */
export function nativePolicyOf(root: string, policy: Policy, runWithoutAsking: ReadonlySet<string>, fileProblems: readonly string[] = []): NativePolicy {
  const problems = [...fileProblems, ...policy.problems];
  if (problems.length > 0) throw new PolicyUnreadable(`the policy cannot be read: ${problems.join(' ')}`);
  return { root, commandPolicy: policy.commandPolicy, sensitiveGlobs: policy.sensitiveGlobs, sandbox: policy.sandbox, runWithoutAsking };
}
