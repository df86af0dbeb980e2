import type { AgentEvent, AgentOptions } from '../agent/agent';
import { summarizeConversation } from '../agent/sessionSummary';
import type { ChatProvider } from '../providers/types';
import type { ApprovalDecision, ChatViewState, ContextMeter, ErrorAction, HostMessage, TranscriptItem } from '../protocol';
import type { ToolRegistry } from '../tools/registry';
import type { ConfirmationRequest } from '../tools/types';
import { ApprovalBroker } from './approvals';
import { newConversation, titleFrom, type StoredConversation } from './conversation';

/** How much of a tool result a card carries (the model gets all of it). */
export const CARD_RESULT_CHARS = 20_000;

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
export type AgentConstructor = new (provider: ChatProvider, options: AgentOptions) => {
  history: readonly import('../providers/types').ChatMessage[];
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
}

interface ProviderFailure {
  message: string;
  kind?: string;
  retryable?: boolean;
}

/**
 * One chat: the conversation, the transcript the panel shows, and the turn that may be
 * running. Turns run the Agent over the conversation and turn its events into transcript
 * updates; failures become error items whose retry goes on without resending anything.
 */
export class ChatController {
  private conversation: StoredConversation;
  private readonly listeners = new Set<(message: HostMessage) => void>();
  private readonly approvals = new ApprovalBroker();
  private abort: AbortController | undefined;
  private running: Promise<string> | undefined;
  private currentToolItem: string | undefined;
  private nextItem = 1;
  private turn = 0;
  private fittedTurn = -1;

  constructor(
    private readonly env: ChatEnvironment,
    conversation?: StoredConversation,
  ) {
    this.conversation = conversation ?? newConversation();
    this.nextItem = nextItemNumber(this.conversation);
  }

  get busy(): boolean {
    return this.running !== undefined;
  }

  get conversationId(): string {
    return this.conversation.id;
  }

  /** What save_session_context and the prompt see of this chat. */
  get sessionContext(): string {
    return summarizeConversation(this.conversation.messages);
  }

  onMessage(listener: (message: HostMessage) => void): { dispose(): void } {
    this.listeners.add(listener);
    return { dispose: () => this.listeners.delete(listener) };
  }

  state(): ChatViewState {
    const { provider, model } = this.env.describeModel();
    return {
      conversationId: this.conversation.id,
      title: this.conversation.title,
      items: this.conversation.items,
      busy: this.busy,
      provider,
      model,
      activeTools: this.env.activeTools(),
      context: this.conversation.context,
    };
  }

  /** Tells the panel that the model or the active tools changed. */
  refreshMeta(): void {
    const { provider, model, activeTools } = this.state();
    this.post({ type: 'meta', provider, model, activeTools });
  }

  /** Sends a message and runs the turn; resolves with the reply text, rejects with a readable error. */
  send(text: string): Promise<string> {
    if (this.busy) return Promise.reject(new Error('A reply is still being written; stop it or wait for it first.'));
    if (this.conversation.messages.length === 0) this.conversation.title = titleFrom(text);
    this.conversation.messages.push({ role: 'user', content: text });
    this.upsert({ kind: 'user', id: this.itemId(), text });
    return this.startTurn();
  }

  /** Goes on after a failure: the failed request is sent again, nothing the person wrote is sent twice. */
  retry(): Promise<string> {
    if (this.busy) return Promise.reject(new Error('A reply is still being written.'));
    this.conversation.items = this.conversation.items.filter((item) => item.kind !== 'error');
    this.post({ type: 'state', state: this.state() });
    const last = this.conversation.messages.at(-1);
    if (!last || (last.role !== 'user' && last.role !== 'tool')) return Promise.resolve('');
    return this.startTurn();
  }

  /** Stops the running turn: the stream, any running tool, and any approval that waits. */
  stop(): void {
    this.abort?.abort();
    this.approvals.denyAll();
  }

  decide(requestId: string, decision: ApprovalDecision): boolean {
    const item = this.conversation.items.find((i) => i.kind === 'tool' && i.approval?.requestId === requestId);
    const applied = this.approvals.decide(requestId, decision);
    if (applied && item?.kind === 'tool') {
      this.upsert({ ...item, approval: undefined, status: decision === 'deny' ? 'denied' : 'running' });
    }
    return applied;
  }

  /** The ToolContext confirm hook: the running tool's card asks the person. */
  confirm(request: ConfirmationRequest): Promise<boolean> {
    if (this.approvals.isPreApproved(request)) return Promise.resolve(true);
    return this.approvals.request({ ...request, signal: request.signal ?? this.abort?.signal }, (view) => {
      const item = this.conversation.items.find((i) => i.id === this.currentToolItem);
      if (item?.kind === 'tool') this.upsert({ ...item, status: 'awaiting_approval', approval: view });
      else this.upsert({ kind: 'notice', id: this.itemId(), text: `${request.tool} asks: ${request.summary}` });
      this.env.onApprovalRequested?.(view.summary, (decision) => this.decide(view.requestId, decision));
    });
  }

  /** Starts a fresh conversation; the current one is kept in history. */
  newConversation(): void {
    this.load(newConversation());
  }

  /** Starts a fresh conversation that carries a summary of this one, so the model starts with an empty window but not from nothing. */
  newConversationWithSummary(): void {
    const summary = summarizeConversation(this.conversation.messages);
    const earlier = this.conversation.title;
    const next = newConversation();
    if (summary) {
      next.title = `${titleFrom(earlier)} (continued)`;
      next.messages = [
        { role: 'user', content: `Here is a summary of our earlier chat "${earlier}", to continue from:\n\n${summary}` },
        { role: 'assistant', content: 'Understood: I have the summary of our earlier chat and will continue from it.' },
      ];
      next.items = [{ kind: 'notice', id: `item-${next.id}-1`, text: `Continued from "${earlier}": the model has a summary of it.` }];
    }
    this.load(next);
  }

  load(conversation: StoredConversation): void {
    this.stop();
    this.approvals.reset();
    this.env.save(this.conversation);
    this.conversation = conversation;
    this.nextItem = nextItemNumber(conversation);
    this.env.save(this.conversation);
    this.post({ type: 'state', state: this.state() });
  }

  snapshot(): StoredConversation {
    return this.conversation;
  }

  private startTurn(): Promise<string> {
    const abort = new AbortController();
    this.abort = abort;
    this.turn = Date.now();
    const turn = this.runTurn(abort.signal).finally(() => {
      this.running = undefined;
      this.abort = undefined;
      this.currentToolItem = undefined;
      this.conversation.updatedAt = Date.now();
      this.env.save(this.conversation);
      this.post({ type: 'busy', busy: false });
    });
    this.running = turn;
    this.post({ type: 'busy', busy: true });
    return turn;
  }

  private async runTurn(signal: AbortSignal): Promise<string> {
    let assistant: Extract<TranscriptItem, { kind: 'assistant' }> | undefined;
    const closeAssistant = () => {
      if (assistant) this.upsert({ ...assistant, streaming: false });
      assistant = undefined;
    };
    let agent: InstanceType<AgentConstructor> | undefined;
    try {
      const [setup, Agent] = await Promise.all([this.env.setup(), this.env.loadAgent()]);
      agent = new Agent(setup.provider, {
        toolRegistry: this.env.registry,
        systemPrompt: setup.systemPrompt,
        maxToolRounds: setup.maxToolRounds,
        history: this.conversation.messages,
      });
      let reply = '';
      for await (const event of agent.resume({ signal })) {
        switch (event.type) {
          case 'text':
            if (!assistant) {
              assistant = { kind: 'assistant', id: this.itemId(), text: '', streaming: true };
              this.upsert(assistant);
            }
            assistant.text += event.text;
            this.post({ type: 'text', itemId: assistant.id, text: event.text });
            break;
          case 'tool_call_pending':
            closeAssistant();
            this.upsert({ kind: 'tool', id: this.toolItemId(event.id), name: event.name, arguments: '', status: 'pending' });
            break;
          case 'tool_call_start':
            closeAssistant();
            this.currentToolItem = this.toolItemId(event.id);
            this.upsert({ kind: 'tool', id: this.toolItemId(event.id), name: event.name, arguments: event.arguments, status: 'running' });
            break;
          case 'tool_call_end': {
            const previous = this.conversation.items.find((i) => i.id === this.toolItemId(event.id));
            const denied = previous?.kind === 'tool' && previous.status === 'denied';
            this.upsert({
              kind: 'tool',
              id: this.toolItemId(event.id),
              name: event.name,
              arguments: event.arguments,
              status: denied || event.status === 'refused' ? 'denied' : event.status,
              result: event.result.slice(0, CARD_RESULT_CHARS),
              resultTruncated: event.result.length > CARD_RESULT_CHARS,
              durationMs: Math.round(event.durationMs),
            });
            this.currentToolItem = undefined;
            break;
          }
          case 'context':
            this.showContext(event.usage);
            break;
          case 'done':
            closeAssistant();
            reply = event.text;
            if (event.reason === 'aborted') this.upsert({ kind: 'notice', id: this.itemId(), text: 'Stopped.' });
            break;
          default:
            break;
        }
      }
      return reply;
    } catch (error) {
      closeAssistant();
      this.upsert(errorItem(error, this.itemId()));
      throw error instanceof Error ? error : new Error(String(error));
    } finally {
      if (agent) this.conversation.messages = [...agent.history];
    }
  }

  /** The header's meter, and once per turn a line saying what was left out to fit the window. */
  private showContext(usage: ContextMeter): void {
    const { tokens, contextTokens, measured, shortenedResults, droppedMessages } = usage;
    this.conversation.context = { tokens, contextTokens, measured, shortenedResults, droppedMessages };
    this.post({ type: 'context', context: this.conversation.context });
    if (measured !== 'estimate' || (shortenedResults === 0 && droppedMessages === 0) || this.fittedTurn === this.turn) return;
    this.fittedTurn = this.turn;
    const parts = [
      shortenedResults ? `${shortenedResults} older tool result${shortenedResults === 1 ? ' was' : 's were'} shortened` : '',
      droppedMessages ? `${droppedMessages} older message${droppedMessages === 1 ? ' was' : 's were'} left out (the model got a summary of them)` : '',
    ].filter(Boolean);
    this.upsert({
      kind: 'notice',
      id: this.itemId(),
      text: `To fit the model's context window (${contextTokens.toLocaleString('en-US')} tokens), ${parts.join(' and ')}. Start a new chat with a summary to begin afresh.`,
    });
  }

  private upsert(item: TranscriptItem): void {
    const index = this.conversation.items.findIndex((i) => i.id === item.id);
    if (index === -1) this.conversation.items.push(item);
    else this.conversation.items[index] = item;
    this.post({ type: 'item', item });
  }

  private post(message: HostMessage): void {
    for (const listener of [...this.listeners]) listener(message);
  }

  /** Services may reuse call ids across turns; the card ids may not. */
  private toolItemId(callId: string): string {
    return `tool-${this.conversation.id}-${this.turn}-${callId}`;
  }

  private itemId(): string {
    return `item-${this.conversation.id}-${this.nextItem++}`;
  }
}

function nextItemNumber(conversation: StoredConversation): number {
  const numbers = conversation.items.map((item) => Number(/-(\d+)$/.exec(item.id)?.[1] ?? 0));
  return Math.max(0, ...numbers) + 1;
}

function errorItem(error: unknown, id: string): TranscriptItem {
  if (error instanceof ChatSetupError) return { kind: 'error', id, message: error.message, action: error.action, retryable: true };
  const failure = error as ProviderFailure;
  const message = failure?.message ?? String(error);
  const action: ErrorAction | undefined = failure.kind === 'auth' ? 'setApiKey' : failure.kind === 'not_found' ? 'switchModel' : undefined;
  return { kind: 'error', id, message, action, retryable: true };
}
