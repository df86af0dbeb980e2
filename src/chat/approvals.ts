import type { ApprovalDecision, ApprovalView } from '../protocol';
import type { ConfirmationRequest } from '../tools/types';

interface Pending {
  view: ApprovalView;
  key: string;
  resolve: (approved: boolean) => void;
}

/**
 * Per-call approval for destructive tools and protected writes: a request waits until the
 * person decides in the tool card. "Allow for this chat" approves that tool (for that reason)
 * until the conversation changes. Stopping the turn denies whatever is waiting.
 */
export class ApprovalBroker {
  private readonly pending = new Map<string, Pending>();
  private readonly allowed = new Set<string>();
  private nextId = 1;

  /** Whether a request would be approved without asking. */
  isPreApproved(request: ConfirmationRequest): boolean {
    return this.allowed.has(keyOf(request));
  }

  /** Registers a request; `onAsk` shows it. Resolves with the decision. */
  request(request: ConfirmationRequest, onAsk: (view: ApprovalView) => void): Promise<boolean> {
    if (this.isPreApproved(request)) return Promise.resolve(true);
    if (request.signal?.aborted) return Promise.resolve(false);
    const view: ApprovalView = { requestId: `approval-${this.nextId++}`, summary: request.summary, reason: request.reason };
    return new Promise<boolean>((resolve) => {
      const done = (approved: boolean) => {
        this.pending.delete(view.requestId);
        request.signal?.removeEventListener('abort', onAbort);
        resolve(approved);
      };
      const onAbort = () => done(false);
      request.signal?.addEventListener('abort', onAbort, { once: true });
      this.pending.set(view.requestId, { view, key: keyOf(request), resolve: done });
      onAsk(view);
    });
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

function keyOf(request: ConfirmationRequest): string {
  return `${request.tool}:${request.reason}`;
}
