import { revealHiddenCharacters as visible, type ApprovalDecision, type ApprovalView } from '../protocol';
import type { ConfirmationRequest } from '../tools/types';

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
      ...(request.parts?.length ? { parts: request.parts.slice(0, 20).map(visible) } : {}),
      ...(request.proposed ? { reviewable: true } : {}),
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
    return { key: JSON.stringify([tool, command]), label: 'Allow this exact command for this chat' };
  }
  const paths = [...new Set(request.paths ?? [])].sort();
  if (paths.length > 0) {
    const recursive = tool === 'remove' && request.args.recursive === true;
    const names = listOf(paths.map((p) => `"${visible(p)}"`));
    return { key: JSON.stringify([tool, paths, recursive]), label: `Allow ${pathAction(tool, recursive)} ${names} for this chat` };
  }
  return { key: JSON.stringify([tool, canonical(request.args)]), label: `Allow this exact ${visible(tool)} call for this chat` };
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

/** Arguments with sorted keys, so the same call keys the same whatever order the model wrote. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((k) => [k, canonical((value as Record<string, unknown>)[k])]),
    );
  }
  return value;
}
