import type { AgentEvent, AgentSettings } from '../agent/agentLoop';
import type { ApprovalDecision, ErrorAction } from '../protocol';
import type { ChatMessage, ChatProvider } from '../providers/types';
import type { ToolRegistry } from '../tools/registry';
import type { StoredConversation } from './conversation';
import type { CheckpointStoreLike } from './turnCheckpoints';

// What a ChatController needs from the editor it runs in.

/** What a turn needs from the editor, resolved when the turn starts. */
export interface TurnSetup {
  provider: ChatProvider;
  systemPrompt: string;
  maxToolRounds: number;
}

/** A problem to fix before a turn can run (no API key, …), shown with a button that fixes it. */
export class ChatSetupError extends Error {
  override name = 'ChatSetupError';
  constructor(
    message: string,
    readonly action: ErrorAction,
  ) {
    super(message);
  }
}

/** The Agent class, from the lazily loaded chat bundle. */
export type AgentConstructor = new (provider: ChatProvider, options: AgentSettings & { toolRegistry: ToolRegistry }) => {
  history: readonly ChatMessage[];
  resume(options: { signal?: AbortSignal; stream?: boolean }): AsyncIterable<AgentEvent>;
  getSystemPrompt(): string;
};

export interface ChatEnvironment {
  registry: ToolRegistry;
  /** Provider, prompt and limits from the settings; throws ChatSetupError when something is missing. */
  setup(): Promise<TurnSetup>;
  loadAgent(): Promise<AgentConstructor>;
  /** Persists the conversation (after every turn and every change of conversation). */
  save(conversation: StoredConversation): void;
  activeTools(): string[];
  describeModel(): { provider: string; model: string };
  /** Called when a tool waits for approval, so the editor can make sure someone sees it. */
  onApprovalRequested?(summary: string, decide: (decision: ApprovalDecision) => void): void;
  /** The store that records what each turn changes, for undo; opened on first use. */
  checkpoints?(): Promise<CheckpointStoreLike>;
  /** Asks the person before undo changes protected paths (.git/, .vscode/, *.code-workspace); without it they are left alone. */
  confirmProtectedUndo?(paths: string[]): Promise<boolean>;
  /** Opens a diff of a file as it was before a turn (a stored copy) against the file now. */
  compare?(before: string, current: string, title: string): void;
  log?(message: string): void;
}
