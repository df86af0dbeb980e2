import { summarizeConversation } from '../agent/sessionSummary';
import type { ApprovalDecision, Attachment, ChatViewState, ContextMeter, HostMessage, TranscriptItem } from '../protocol';
import type { UndoOptions, UndoResult } from '../tools/undo';
import type { ToolResult } from '../tools/interface';
import type { ConfirmationRequest } from '../tools/types';
import { ApprovalBroker, approvalRecord, decisionRecord } from './approvals';
import { chipsOf, withAttachments } from './attachments';
import { panelCaller } from './panelCaller';
import type { AgentConstructor, ChatEnvironment } from './chatEnvironment';
import { continuedFrom, fittedNotice, newConversation, nextItemNumber, titleFrom, type StoredConversation } from './conversation';
import { errorItem } from './errorItem';
import { runPersonToolCall } from './personToolCall';
import { TurnCheckpoints } from './turnCheckpoints';
import { rewindTurn, STOPPED_NOTICE, turnActionsFor, type RewindRequest } from './turnRewind';

/** How much of a tool result a card carries (the model gets all of it). */
export const CARD_RESULT_CHARS = 20_000;

export { ChatSetupError, type AgentConstructor, type ChatEnvironment, type TurnSetup } from './chatEnvironment';

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
  private readonly checkpoints: TurnCheckpoints;

  constructor(
    private readonly env: ChatEnvironment,
    conversation?: StoredConversation,
  ) {
    this.conversation = conversation ?? newConversation();
    this.nextItem = nextItemNumber(this.conversation);
    this.checkpoints = new TurnCheckpoints(() => env.checkpoints?.() ?? Promise.resolve(undefined), (message) => env.log?.(message));
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
      turnActions: turnActionsFor(this.conversation),
    };
  }

  /** Tells the panel that the model or the active tools changed. */
  refreshMeta(): void {
    const { provider, model, activeTools } = this.state();
    this.post({ type: 'meta', provider, model, activeTools });
  }

  /** Sends a message (with context attached before it) and runs the turn; resolves with the reply text, rejects with a readable error. */
  send(text: string, attachments: readonly Attachment[] = []): Promise<string> {
    if (this.busy) return Promise.reject(new Error('A reply is still being written; stop it or wait for it first.'));
    if (this.conversation.messages.length === 0) this.conversation.title = titleFrom(text);
    this.conversation.messages.push({ role: 'user', content: withAttachments(text, attachments) });
    this.upsert({ kind: 'user', id: this.itemId(), text, ...chipsOf(attachments) });
    return this.startTurn();
  }

  /** Goes on after a failure: the failed request is sent again, nothing the person wrote is sent twice. */
  retry(): Promise<string> {
    if (this.busy) return Promise.reject(new Error('A reply is still being written.'));
    // An answer, then an error: a regenerated answer failed and the earlier one came back.
    const regenerate = this.conversation.items.at(-1)?.kind === 'error' && this.conversation.messages.at(-1)?.role === 'assistant';
    this.conversation.items = this.conversation.items.filter((item) => item.kind !== 'error');
    if (regenerate) return this.rewind({ kind: 'regenerate' });
    this.post({ type: 'state', state: this.state() });
    const last = this.conversation.messages.at(-1);
    if (!last || (last.role !== 'user' && last.role !== 'tool')) return Promise.resolve('');
    return this.startTurn();
  }

  /** Regenerate, Edit & resend and Continue (turnRewind.ts): the last turn rewound, then a new turn; nothing is lost when it fails. */
  rewind(request: RewindRequest): Promise<string> {
    if (this.busy) return Promise.reject(new Error('A reply is still being written; stop it or wait for it first.'));
    const changed = () => this.load(this.conversation, false);
    return rewindTurn(this.conversation, request, { newItemId: () => this.itemId(), undoTurn: (id) => this.undoTurn(id), startTurn: () => this.startTurn(), changed });
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
      this.upsert({ ...item, approval: undefined, status: decision === 'deny' ? 'denied' : 'running', decision: decisionRecord(decision, Date.now()) });
    }
    return applied;
  }

  /** The turn's confirm hook: the running tool's card asks the person. */
  confirm(request: ConfirmationRequest): Promise<boolean> {
    if (this.approvals.isPreApproved(request)) {
      request.decidedBy = 'rule';
      return Promise.resolve(true);
    }
    return this.approvals.request({ ...request, signal: request.signal ?? this.abort?.signal }, (view) => {
      const item = this.conversation.items.find((i) => i.id === this.currentToolItem);
      if (item?.kind === 'tool') this.upsert({ ...item, status: 'awaiting_approval', approval: view });
      else this.upsert({ kind: 'notice', id: this.itemId(), text: `${request.tool} asks: ${request.summary}` });
      this.env.onApprovalRequested?.(view.summary, (decision) => this.decide(view.requestId, decision));
    });
  }

  /** What a write waiting for approval proposes, for the Review diff. */
  proposedChange(requestId: string): ConfirmationRequest['proposed'] {
    return this.approvals.waitingRequest(requestId)?.proposed;
  }

  /** Puts back what one turn's tools changed (the newest turn not undone yet). */
  async undoTurn(turnId: string): Promise<UndoResult> {
    if (this.busy) throw new Error('Wait for the reply to finish (or stop it) before undoing a turn.');
    try {
      const result = await this.checkpoints.undoTurn(turnId, this.undoOptions());
      this.showUndone(result);
      return result;
    } catch (error) {
      const item = this.turnItem(turnId);
      if (item) this.upsert({ ...item, problem: error instanceof Error ? error.message : String(error) });
      throw error;
    }
  }

  /** Undoes the newest turn of this chat that changed files; what was restored and what was skipped. */
  async undoLastTurn(): Promise<{ restored: string[]; skipped: string[] }> {
    if (this.busy) throw new Error('Wait for the reply to finish (or stop it) before undoing a turn.');
    const result = await this.checkpoints.undoLastTurn(this.conversation.id, this.undoOptions());
    if (!result) return { restored: [], skipped: [] };
    this.showUndone(result);
    return { restored: result.restored, skipped: result.skipped.map((s) => s.path) };
  }

  /** Undo asks the person (through the editor) before it changes protected paths. */
  private undoOptions(): UndoOptions {
    const confirm = this.env.confirmProtectedUndo;
    return confirm ? { confirmProtected: (paths) => confirm(paths) } : {};
  }

  /** Opens the difference between a skipped file as the turn left it and as it is now. */
  compare(turnId: string, path: string): boolean {
    const copy = this.checkpoints.skippedCopy(turnId, path);
    if (!copy || !this.env.compare) return false;
    this.env.compare(copy.before, copy.absolute, copy.before ? `${path}: before the turn ↔ now` : `${path}: before the turn (no such file) ↔ now`);
    return true;
  }

  /** Shows an item that belongs to no turn (an Apply to File proposal), or updates it; saved with the chat. */
  showItem(item: TranscriptItem): void {
    this.upsert(item);
    this.env.save(this.conversation);
  }

  /** The item with this id in the chat shown now, if it is there. */
  item(id: string): TranscriptItem | undefined {
    return this.conversation.items.find((i) => i.id === id);
  }

  /** A tool call the person started in the panel (Apply to File): a turn of its own, with its card, approval, Undo row and log record. */
  async runPersonToolCall(name: string, args: Record<string, unknown>): Promise<ToolResult> {
    if (this.busy) throw new Error('A reply is still being written; stop it or wait for it first.');
    let result: ToolResult | undefined;
    await this.startTurn(async (signal) => {
      await this.checkpoints.begin(`${this.conversation.id}:${this.turn}`, this.conversation.id);
      const turn = { registry: this.env.registry, caller: panelCaller(this, (targets) => this.checkpoints.beforeChange(targets)), cardId: this.toolItemId('person'), upsert: (item: TranscriptItem) => this.upsert(item), cardResultChars: CARD_RESULT_CHARS };
      result = await runPersonToolCall({ ...turn, setAsking: (id) => (this.currentToolItem = id) }, name, args, signal).finally(() => this.finishTurnRecord());
      return result.text;
    });
    return result!;
  }

  /** Starts a fresh conversation; the current one is kept in history. */
  newConversation(): void {
    this.load(newConversation());
  }

  /** Starts a fresh conversation that carries a summary of this one, so the model starts with an empty window but not from nothing. */
  newConversationWithSummary(): void {
    this.load(continuedFrom(this.conversation));
  }

  /** Shows `conversation` (another chat, or this one changed outside a turn when `switching` is false). */
  load(conversation: StoredConversation, switching = true): void {
    this.stop();
    if (switching) this.approvals.reset();
    this.env.save(this.conversation);
    this.conversation = conversation;
    this.nextItem = nextItemNumber(conversation);
    this.env.save(this.conversation);
    this.post({ type: 'state', state: this.state() });
  }

  snapshot(): StoredConversation {
    return this.conversation;
  }

  private startTurn(body: (signal: AbortSignal) => Promise<string> = (signal) => this.runTurn(signal)): Promise<string> {
    const abort = new AbortController();
    this.abort = abort;
    this.turn = Date.now();
    const turn = body(abort.signal).finally(() => {
      this.running = undefined;
      this.abort = undefined;
      this.currentToolItem = undefined;
      this.conversation.updatedAt = Date.now();
      this.env.save(this.conversation);
      this.post({ type: 'turnActions', actions: turnActionsFor(this.conversation) });
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
      await this.checkpoints.begin(`${this.conversation.id}:${this.turn}`, this.conversation.id);
      const [setup, Agent] = await Promise.all([this.env.setup(), this.env.loadAgent()]);
      agent = new Agent(setup.provider, {
        toolRegistry: this.env.registry,
        caller: panelCaller(this, (targets) => this.checkpoints.beforeChange(targets)),
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
              disabledTool: (event.status === 'refused' && this.env.registry.hasTool(event.name) && !this.env.registry.isToolEnabled(event.name)) || undefined,
              durationMs: Math.round(event.durationMs),
              decision: approvalRecord(previous?.kind === 'tool' ? previous.decision : undefined, event.approvedBy, Date.now()),
            });
            this.currentToolItem = undefined;
            if (event.name === 'run_bash' && event.status !== 'refused') this.checkpoints.noteSideEffect('Commands run by run_bash may have changed files; undo cannot put those back.');
            break;
          }
          case 'context':
            this.showContext(event.usage);
            break;
          case 'done':
            closeAssistant();
            reply = event.text;
            if (event.reason === 'aborted') this.upsert({ kind: 'notice', id: this.itemId(), text: STOPPED_NOTICE });
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
      await this.finishTurnRecord();
    }
  }

  private showUndone(result: UndoResult): void {
    const item = this.turnItem(result.turnId);
    if (!item) return;
    // A file the turn created has no copy from before: Compare shows it against an empty one.
    const skipped = result.skipped.map((s) => ({ path: s.path, reason: s.reason, comparable: Boolean(s.absolute) }));
    this.upsert({ ...item, problem: undefined, undone: { restored: result.restored, removed: result.removed ?? [], unchanged: result.unchanged ?? [], skipped } });
  }

  private turnItem(turnId: string): Extract<TranscriptItem, { kind: 'turn' }> | undefined {
    const item = this.conversation.items.find((i) => i.kind === 'turn' && i.turnId === turnId);
    return item?.kind === 'turn' ? item : undefined;
  }

  /** After a turn: a row with what it changed and its Undo, and a note when older undo records were dropped. */
  private async finishTurnRecord(): Promise<void> {
    const record = await this.checkpoints.end();
    if (!record) return;
    if (record.summary) {
      const { turnId, paths, notes, incomplete } = record.summary;
      const missing = incomplete.map((m) => `${m.path}: ${m.reason}`);
      this.upsert({ kind: 'turn', id: this.itemId(), turnId, files: paths, notes: [...notes, ...missing] });
    }
    if (record.dropped.length > 0) {
      this.upsert({ kind: 'notice', id: this.itemId(), text: `Undo is no longer available for ${record.dropped.length} older turn${record.dropped.length === 1 ? '' : 's'}: their records were dropped to keep the undo store within its size and age limits.` });
    }
  }

  /** The header's meter, and once per turn a line saying what was left out to fit the window. */
  private showContext(usage: ContextMeter): void {
    const { tokens, contextTokens, measured, shortenedResults, droppedMessages } = usage;
    this.conversation.context = { tokens, contextTokens, measured, shortenedResults, droppedMessages };
    this.post({ type: 'context', context: this.conversation.context });
    if (measured !== 'estimate' || (shortenedResults === 0 && droppedMessages === 0) || this.fittedTurn === this.turn) return;
    this.fittedTurn = this.turn;
    this.upsert({ kind: 'notice', id: this.itemId(), text: fittedNotice(this.conversation.context) });
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
