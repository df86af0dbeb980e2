// The messages between the chat webview and the extension host. Both sides import this file;
// it imports nothing. The host validates everything it receives with parseWebviewMessage.

export type ToolCardStatus = 'pending' | 'awaiting_approval' | 'running' | 'ok' | 'error' | 'denied' | 'cancelled';

export interface ApprovalView {
  requestId: string;
  summary: string;
  reason: 'destructive' | 'protected' | 'sensitive' | 'command' | 'write' | 'external' | 'unsandboxed';
  /** What "Allow for this chat" covers, in words, e.g. `Allow this exact command for this chat`. */
  scope?: string;
  /** For a command: the parts no rule allows. */
  parts?: string[];
  /** The change can be reviewed in a diff editor before deciding. */
  reviewable?: boolean;
  /** Exactly what "Allow for this chat" covers and what still asks, in one sentence. */
  scopeDetail?: string;
  /** Why this call asks, in one line (e.g. why the path is protected). */
  why?: string;
  /** For run_bash: the command, shown as code. */
  command?: string;
  /** For write_file: the content proposed, shown as text (cut for the card when long). */
  proposed?: { path: string; content: string; truncated: boolean };
}

/** Who decided a tool call and when: `you` in the card, a `rule` (Allow for this chat, allowed commands), or `auto` (nothing asked). */
export interface ApprovalRecord {
  outcome: 'allowed' | 'allowedForChat' | 'denied';
  by: 'you' | 'rule' | 'auto';
  /** Epoch milliseconds. */
  at: number;
}

/** Context from the editor attached to a message (a file, or a selection in one), as its chip shows it. */
export interface AttachmentChip {
  kind: 'file' | 'selection';
  /** Workspace-relative path ("<folder>/…" in another root of a multi-root workspace), or an untitled editor's name. */
  path: string;
  /** First and last line (1-based) of a selection. */
  range?: { start: number; end: number };
  /** Why only part of it was attached, when it was cut. */
  notice?: string;
}

/** A chip with the text that goes to the model. */
export interface Attachment extends AttachmentChip {
  content: string;
}

/** At most this many attachments per message, each and all together at most this many characters. */
export const MAX_ATTACHMENTS = 20;
export const MAX_ATTACHMENT_CHARS = 100_000;
export const MAX_ATTACHED_CHARS = 200_000;

export type TranscriptItem =
  | { kind: 'user'; id: string; text: string; attachments?: AttachmentChip[] }
  | { kind: 'assistant'; id: string; text: string; streaming?: boolean }
  | {
      kind: 'tool';
      id: string;
      /** The name the model called it by. */
      name: string;
      /** The name settings and the Tools view give it, where that differs (`tickets/lookup_ticket`). */
      label?: string;
      arguments: string;
      status: ToolCardStatus;
      result?: string;
      /** The result was longer than what the card holds. */
      resultTruncated?: boolean;
      /** The model called a registered tool that is switched off: the card offers to enable it and ask again. */
      disabledTool?: boolean;
      /** Run time only: the time a person took to decide is left out. */
      durationMs?: number;
      approval?: ApprovalView;
      decision?: ApprovalRecord;
    }
  | {
      kind: 'error';
      id: string;
      message: string;
      /** The first of `actions` (kept for transcripts saved before `actions`). */
      action?: ErrorAction;
      /** The buttons that fix it, the likeliest first. */
      actions?: ErrorAction[];
      retryable: boolean;
    }
  /** What a finished turn changed on disk, with its Undo. */
  | {
      kind: 'turn';
      id: string;
      turnId: string;
      /** Workspace-relative paths the turn's tools changed. */
      files: string[];
      /** What undo cannot reach (run_bash side effects, files too big to keep). */
      notes: string[];
      /** After Undo: what happened to each file. `restored` lists every file that is as before the turn again; `removed` and `unchanged` say which of them the turn had created, and which needed nothing. */
      undone?: { restored: string[]; removed?: string[]; unchanged?: string[]; skipped: { path: string; reason: string; comparable: boolean }[] };
      /** Why Undo failed, when it did. */
      problem?: string;
    }
  | { kind: 'notice'; id: string; text: string }
  /** Apply to File: a change shown as a diff that waits for Keep or Undo before anything is written. */
  | {
      kind: 'apply';
      id: string;
      /** Workspace-relative path of the file. */
      path: string;
      /** What the change does to the file, in one sentence. */
      summary: string;
      added: number;
      removed: number;
      status: ApplyStatus;
      /** What happened, once decided (why it was not written, when it was not). */
      outcome?: string;
    };

/** `pending` waits for Keep or Undo; `kept` was written; `discarded` was never written; `failed` could not be written; `expired` is a proposal from before a reload. */
export type ApplyStatus = 'pending' | 'kept' | 'discarded' | 'failed' | 'expired';
export type ApplyDecision = 'keep' | 'discard' | 'show';

export type ErrorAction = 'setApiKey' | 'openSettings' | 'switchModel' | 'connectModel';

/** How full the model's context window was for the latest request. */
export interface ContextMeter {
  tokens: number;
  contextTokens: number;
  /** `estimate` before a request; `reported` is the service's own count. */
  measured: 'estimate' | 'reported';
  shortenedResults: number;
  droppedMessages: number;
}

export interface ChatViewState {
  conversationId: string;
  title: string;
  items: TranscriptItem[];
  busy: boolean;
  provider: string;
  model: string;
  /** Names of the tools the model is offered. */
  activeTools: string[];
  context?: ContextMeter;
  turnActions?: TurnActions;
}

/** Which of the last messages offer Edit & resend, Regenerate and Continue (transcript item ids). */
export interface TurnActions {
  edit?: string;
  regenerate?: string;
  continue?: string;
}

/** One earlier chat in the panel's history list. */
export interface HistoryEntry {
  id: string;
  title: string;
  updatedAt: number;
  /** How many messages the person sent. */
  messages: number;
}

/** One thing `#` can attach, as the panel lists it; the host keeps what it stands for. */
export interface ContextSuggestion {
  kind: 'selection' | 'editor' | 'file' | 'symbol';
  label: string;
  /** Where it is: the folder, `file.ts:3-7`, `function · src/a.ts:12`. */
  detail: string;
}

export type HostMessage =
  | { type: 'state'; state: ChatViewState }
  /** Adds an item, or replaces the one with the same id. */
  | { type: 'item'; item: TranscriptItem }
  /** Appends streamed text to an assistant item. */
  | { type: 'text'; itemId: string; text: string }
  | { type: 'busy'; busy: boolean }
  /** The model or the active tools changed. */
  | { type: 'meta'; provider: string; model: string; activeTools: string[] }
  | { type: 'reply'; id: string; ok: boolean; error?: string }
  | { type: 'context'; context: ContextMeter }
  | { type: 'focusInput' }
  /** Restricted mode: the workspace settings VS Code ignores until the folder is trusted (none when trusted). */
  | { type: 'trust'; trusted: boolean; ignoredSettings: string[] }
  | { type: 'turnActions'; actions: TurnActions }
  /** The chats of this workspace, newest first; `show` opens the history list. */
  | { type: 'history'; entries: HistoryEntry[]; currentId: string; show: boolean; problem?: string }

  /** What the context picker attached (none when it was cancelled), or why it attached nothing. */
  | { type: 'attachments'; attachments: Attachment[]; problem?: string }
  /** Opens the composer's context picker (the "Add Context" command). */
  | { type: 'addContext' }
  /** What `#` offers for the text typed after it (`seq` matches the request). */
  | { type: 'contextSuggestions'; seq: number; items: ContextSuggestion[] };

export type ViewCommand = 'newChat' | 'newChatWithSummary' | 'history' | 'switchModel' | 'setApiKey' | 'openSettings' | 'openTools' | 'configureTools' | 'connectModel' | 'trustWorkspace';
export const VIEW_COMMANDS: readonly ViewCommand[] = ['newChat', 'newChatWithSummary', 'history', 'switchModel', 'setApiKey', 'openSettings', 'openTools', 'configureTools', 'connectModel', 'trustWorkspace'];
export type ApprovalDecision = 'allow' | 'allowForChat' | 'deny';

export type WebviewMessage =
  | { type: 'ready' }
  | { type: 'send'; id: string; text: string; attachments?: Attachment[] }
  /** Opens the context picker; `used`: characters the composer's attachments hold already. */
  | { type: 'pickContext'; used: number }
  /** What `#` should offer for `query` (the text typed after it). */
  | { type: 'suggestContext'; seq: number; query: string }
  /** Attaches suggestion `index` of the list answering `seq`. */
  | { type: 'attachSuggestion'; seq: number; index: number; used: number }
  | { type: 'stop' }
  | { type: 'retry' }
  | { type: 'approve'; requestId: string; decision: ApprovalDecision }
  | { type: 'command'; command: ViewCommand }
  | { type: 'copy'; text: string }
  | { type: 'openLink'; href: string }
  | { type: 'undo'; turnId: string }
  | { type: 'review'; requestId: string }
  | { type: 'compare'; turnId: string; path: string }
  | { type: 'regenerate' }
  | { type: 'editLast'; id: string; text: string }
  | { type: 'continue' }
  | { type: 'listChats' }
  | { type: 'openChat'; chatId: string }
  | { type: 'renameChat'; chatId: string; title: string }
  | { type: 'deleteChat'; chatId: string }
  /** A code block's buttons: into the active editor, into a file (through write_file), into an untitled editor. */
  | { type: 'insertCode'; code: string }
  | { type: 'applyCode'; code: string; path?: string; language?: string }
  | { type: 'newFile'; code: string; language?: string }
  /** Enables a switched-off tool the model called, then asks again (Regenerate). */
  | { type: 'enableAndRetry'; tool: string }
  /** Keep, Undo or Show Diff on an Apply to File proposal. */
  | { type: 'applyDecision'; itemId: string; decision: ApplyDecision };

export const MAX_TITLE_CHARS = 200;

export const MAX_MESSAGE_CHARS = 100_000;
/** The largest code block the panel hands to the editor (the same bound as Copy). */
export const MAX_CODE_CHARS = 1_000_000;

/** Checks a message from the webview; anything malformed yields undefined and is ignored. */
export function parseWebviewMessage(value: unknown): WebviewMessage | undefined {
  if (!value || typeof value !== 'object') return undefined;
  const message = value as Record<string, unknown>;
  const isText = (v: unknown, max = MAX_MESSAGE_CHARS): v is string => typeof v === 'string' && v.length <= max;
  switch (message.type) {
    case 'ready':
    case 'stop':
    case 'retry':
    case 'regenerate':
    case 'continue':
    case 'listChats':
      return { type: message.type };
    case 'editLast':
      return isText(message.id, 100) && isText(message.text) && message.text.trim() !== '' ? { type: 'editLast', id: message.id, text: message.text } : undefined;
    case 'openChat':
    case 'deleteChat':
      return isText(message.chatId, 200) ? { type: message.type, chatId: message.chatId } : undefined;
    case 'renameChat':
      return isText(message.chatId, 200) && isText(message.title, MAX_TITLE_CHARS) && message.title.trim() !== '' ? { type: 'renameChat', chatId: message.chatId, title: message.title.trim() } : undefined;
    case 'send': {
      if (!isText(message.id, 100) || !isText(message.text) || message.text.trim() === '') return undefined;
      if (message.attachments === undefined) return { type: 'send', id: message.id, text: message.text };
      const attachments = parseAttachments(message.attachments);
      return attachments ? { type: 'send', id: message.id, text: message.text, attachments } : undefined;
    }
    case 'pickContext':
      return Number.isSafeInteger(message.used) && (message.used as number) >= 0 ? { type: 'pickContext', used: message.used as number } : undefined;
    case 'suggestContext':
      return Number.isSafeInteger(message.seq) && isText(message.query, 200) ? { type: 'suggestContext', seq: message.seq as number, query: message.query } : undefined;
    case 'attachSuggestion':
      return [message.seq, message.index, message.used].every((n) => Number.isSafeInteger(n) && (n as number) >= 0)
        ? { type: 'attachSuggestion', seq: message.seq as number, index: message.index as number, used: message.used as number }
        : undefined;
    case 'approve':
      return isText(message.requestId, 100) && (message.decision === 'allow' || message.decision === 'allowForChat' || message.decision === 'deny')
        ? { type: 'approve', requestId: message.requestId, decision: message.decision }
        : undefined;
    case 'command':
      return VIEW_COMMANDS.includes(message.command as ViewCommand) ? { type: 'command', command: message.command as ViewCommand } : undefined;
    case 'copy':
      return isText(message.text, 1_000_000) ? { type: 'copy', text: message.text } : undefined;
    case 'openLink':
      return isText(message.href, 2000) ? { type: 'openLink', href: message.href } : undefined;
    case 'review':
      return isText(message.requestId, 100) ? { type: 'review', requestId: message.requestId } : undefined;
    case 'undo':
      return isText(message.turnId, 200) ? { type: 'undo', turnId: message.turnId } : undefined;
    case 'compare':
      return isText(message.turnId, 200) && isText(message.path, 4096) ? { type: 'compare', turnId: message.turnId, path: message.path } : undefined;
    case 'insertCode':
      return isText(message.code, MAX_CODE_CHARS) ? { type: 'insertCode', code: message.code } : undefined;
    case 'applyCode':
      return isText(message.code, MAX_CODE_CHARS) && (message.path === undefined || isText(message.path, 4096)) && (message.language === undefined || isText(message.language, 100))
        ? { type: 'applyCode', code: message.code, path: message.path, language: message.language }
        : undefined;
    case 'newFile':
      return isText(message.code, MAX_CODE_CHARS) && (message.language === undefined || isText(message.language, 100)) ? { type: 'newFile', code: message.code, language: message.language } : undefined;
    case 'applyDecision':
      return isText(message.itemId, 200) && (message.decision === 'keep' || message.decision === 'discard' || message.decision === 'show')
        ? { type: 'applyDecision', itemId: message.itemId, decision: message.decision }
        : undefined;
    case 'enableAndRetry':
      return isText(message.tool, 200) && message.tool !== '' ? { type: 'enableAndRetry', tool: message.tool } : undefined;
    default:
      return undefined;
  }
}

/** Attachments within the counts and sizes above, with only the fields they may have; undefined if any is malformed. */
export function parseAttachments(value: unknown): Attachment[] | undefined {
  if (!Array.isArray(value) || value.length > MAX_ATTACHMENTS) return undefined;
  const parsed: Attachment[] = [];
  let total = 0;
  for (const raw of value as unknown[]) {
    if (!raw || typeof raw !== 'object') return undefined;
    const { kind, path, range, notice, content } = raw as Record<string, unknown>;
    if (kind !== 'file' && kind !== 'selection') return undefined;
    if (typeof path !== 'string' || path === '' || path.length > 4096) return undefined;
    if (typeof content !== 'string' || content.length > MAX_ATTACHMENT_CHARS) return undefined;
    if (notice !== undefined && (typeof notice !== 'string' || notice.length > 1000)) return undefined;
    const lines = range as { start?: unknown; end?: unknown } | undefined;
    const validRange = lines !== undefined && Number.isSafeInteger(lines?.start) && Number.isSafeInteger(lines?.end) && (lines.start as number) >= 1 && (lines.end as number) >= (lines.start as number);
    if (range !== undefined && !validRange) return undefined;
    total += content.length;
    if (total > MAX_ATTACHED_CHARS) return undefined;
    parsed.push({
      kind,
      path,
      ...(validRange ? { range: { start: lines.start as number, end: lines.end as number } } : {}),
      ...(notice ? { notice } : {}),
      content,
    });
  }
  return parsed;
}

// What a person approves or reads must be what runs, not what a crafted name pretends: the
// characters that reorder or hide text are shown as escapes, by the one helper the CLI uses too.
export { revealHiddenCharacters } from './common/visibleText';
