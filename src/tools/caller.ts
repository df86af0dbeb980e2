import type { ChangeTarget, ConfirmationRequest, ToolContext } from './types';

/**
 * Who asked for one tool call: a panel chat turn, an `@toolbelt` request, Copilot's agent, an MCP
 * client, the CLI. Everything that belongs to the call rather than to the workspace travels here
 * — how to ask the person, where its undo record goes, which conversation it belongs to — so
 * two callers running at once never see each other's state.
 */
export interface ToolCaller {
  /** What kind of caller: `panel`, `participant`, `vscode-chat`, `mcp`, `cli`, `library`, … (the log records it). */
  readonly kind: string;
  /** The conversation the call belongs to (the log's chat id), e.g. a panel chat's id or an MCP client's name. */
  readonly chatId?: string;
  /** How a person would name the caller: `@toolbelt`, `Claude Code`. */
  readonly label?: string;
  /** The conversation so far, as markdown (what save_session_context writes). */
  readonly sessionContext?: string;
  /** Asks the person; without it nobody can be asked (see consent.ts for what then runs). */
  confirm?(request: ConfirmationRequest): Promise<boolean>;
  /** Called right before the call changes files (after any approval), so the caller can undo it. */
  beforeChange?(targets: readonly ChangeTarget[]): Promise<void>;
}

/**
 * The caller of a call that names none: the hooks a library user put on the ToolContext. The
 * context is only read, never wrapped or changed, so frozen and class-based contexts work.
 */
export function contextCaller(ctx: ToolContext): ToolCaller {
  return {
    kind: 'library',
    get sessionContext() {
      return ctx.sessionContext;
    },
    ...(typeof ctx.confirm === 'function' ? { confirm: (request: ConfirmationRequest) => ctx.confirm!(request) } : {}),
    ...(typeof ctx.beforeChange === 'function' ? { beforeChange: (targets: readonly ChangeTarget[]) => ctx.beforeChange!(targets) } : {}),
  };
}
