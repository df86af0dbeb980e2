import { revealHiddenCharacters as visible, type ApprovalDecision, type ApprovalRecord, type ApprovalView } from '../protocol';
import { callKey } from '../tools/canonicalJson';
import { whyAsked } from '../tools/askWording';
import type { ApprovedBy } from '../tools/interface';
import type { ConfirmationRequest } from '../tools/types';

/** How much of a proposed file the card shows (the Review diff shows all of it). */
const PROPOSED_PREVIEW_CHARS = 20_000;

interface Pending {
  view: ApprovalView;
  key: string;
  request: ConfirmationRequest;
  resolve: (approved: boolean) => void;
}

/** What "Allow for this chat" covers: the key later requests must match exactly, and the words on the button. */
export interface ApprovalScope {
  key: string;
  label: string;
  /** What the approval covers and what still asks, in one sentence. */
  detail: string;
}

/**
 * Per-call approval for destructive tools and protected writes: a request waits until the
 * person decides in the tool card. "Allow for this chat" approves exactly what the card
 * names (see approvalScope) until the conversation changes. Stopping the turn denies
 * whatever is waiting.
 */
export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();
  private readonly allowed = new Set<string>();
  private nextId = 1;

  /** Whether a request would be approved without asking. */
  isPreApproved(request: ConfirmationRequest): boolean {
    return this.allowed.has(approvalScope(request).key);
  }

  /** Registers a request; `onAsk` shows it. Resolves with the decision. */
  request(request: ConfirmationRequest, onAsk: (view: ApprovalView) => void): Promise<boolean> {
    if (this.isPreApproved(request)) return Promise.resolve(true);
    if (request.signal?.aborted) return Promise.resolve(false);
    const scope = approvalScope(request);
    const view: ApprovalView = {
      requestId: `approval-${this.nextId++}`,
      summary: visible(request.summary),
      reason: request.reason,
      scope: scope.label,
      scopeDetail: scope.detail,
      why: whyAsked(request),
      ...(request.parts?.length ? { parts: request.parts.slice(0, 20).map(visible) } : {}),
      ...(request.proposed ? { reviewable: true } : {}),
      ...(request.tool === 'run_bash' && typeof request.args.command === 'string' ? { command: visible(request.args.command) } : {}),
      ...(request.proposed?.content !== undefined ? { proposed: proposedPreview(request.proposed.display, request.proposed.content) } : {}),
    };
    return new Promise<boolean>((resolve) => {
      const done = (approved: boolean) => {
        this.pending.delete(view.requestId);
        request.signal?.removeEventListener('abort', onAbort);
        resolve(approved);
      };
      const onAbort = () => done(false);
      request.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(view.requestId, { view, key: scope.key, request, resolve: done });
      onAsk(view);
    });
  }

  /** The request behind a waiting approval (for Review: the proposed content). */
  waitingRequest(requestId: string): ConfirmationRequest | undefined {
    return this.pending.get(requestId)?.request;
  }

  /** Applies a decision; false when no such request waits (already decided, or stale). */
  decide(requestId: string, decision: ApprovalDecision): boolean {
    const pending = this.pending.get(requestId);
    if (!pending) return false;
    if (decision === 'allowForChat') this.allowed.add(pending.key);
    pending.resolve(decision !== 'deny');
    return true;
  }

  get waiting(): ApprovalView[] {
    return [...this.pending.values()].map((p) => p.view);
  }

  denyAll(): void {
    for (const pending of [...this.pending.values()]) pending.resolve(false);
  }

  /** A new conversation starts with nothing pre-approved. */
  reset(): void {
    this.denyAll();
    this.allowed.clear();
  }
}

/**
 * The narrowest thing a person can mean by "allow for this chat": `run_bash` the same command
 * text; a tool that touches paths the same tool on the same set of paths (so allowing a write
 * to `.vscode/settings.json` never allows one to `.git/hooks/`); anything else the same tool
 * with the same arguments.
 */
export function approvalScope(request: ConfirmationRequest): ApprovalScope {
  const tool = request.tool;
  if (tool === 'run_bash') {
    const command = typeof request.args.command === 'string' ? request.args.command : JSON.stringify(request.args.command);
    return {
      key: JSON.stringify([tool, command]),
      label: 'Allow this exact command for this chat',
      detail: 'Covers this exact command text, in this chat only; any other command, even one that differs by a space, asks again.',
    };
  }
  const paths = [...new Set(request.paths ?? [])].sort();
  if (paths.length > 0) {
    const recursive = tool === 'remove' && request.args.recursive === true;
    const names = listOf(paths.map((p) => `"${visible(p)}"`));
    const what = request.proposed ? ', whatever the content' : '';
    return {
      key: JSON.stringify([tool, paths, recursive]),
      label: `Allow ${pathAction(tool, recursive)} ${names} for this chat`,
      detail: `Covers ${visible(tool)} on ${paths.length === 1 ? 'exactly this path' : 'exactly these paths'}${what}, in this chat only; other paths and other tools still ask.`,
    };
  }
  return {
    key: callKey(tool, request.args),
    label: `Allow this exact ${visible(tool)} call for this chat`,
    detail: `Covers ${visible(tool)} with exactly these arguments, in this chat only; any other call asks again.`,
  };
}

function proposedPreview(path: string, content: string): { path: string; content: string; truncated: boolean } {
  const truncated = content.length > PROPOSED_PREVIEW_CHARS;
  return { path: visible(path), content: visible(truncated ? content.slice(0, PROPOSED_PREVIEW_CHARS) : content), truncated };
}

/**
 * The record a tool card keeps of its approval: the person's choice when they made one in the
 * card, otherwise who the tool reported (a rule, or nobody: auto). Undefined for a call that was
 * never approved or refused (an error before any question).
 */
export function approvalRecord(previous: ApprovalRecord | undefined, approvedBy: ApprovedBy | undefined, now: number): ApprovalRecord | undefined {
  if (previous) return previous;
  switch (approvedBy) {
    case 'rule':
      return { outcome: 'allowed', by: 'rule', at: now };
    case 'auto':
      return { outcome: 'allowed', by: 'auto', at: now };
    case 'person':
      return { outcome: 'allowed', by: 'you', at: now };
    default:
      return undefined;
  }
}

/** The record of a decision made in the card. */
export function decisionRecord(decision: ApprovalDecision, now: number): ApprovalRecord {
  return { outcome: decision === 'deny' ? 'denied' : decision === 'allowForChat' ? 'allowedForChat' : 'allowed', by: 'you', at: now };
}

function pathAction(tool: string, recursive: boolean): string {
  switch (tool) {
    case 'remove':
      return recursive ? 'deleting (recursively)' : 'deleting';
    case 'move':
      return 'moves between';
    case 'mkdir':
      return 'creating';
    case 'read_file':
      return 'reading';
    default:
      return 'writes to';
  }
}

function listOf(items: string[]): string {
  return items.length <= 1 ? items.join('') : `${items.slice(0, -1).join(', ')} and ${items.at(-1)}`;
}
