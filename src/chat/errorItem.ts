import type { ErrorAction, TranscriptItem } from '../protocol';

/** What a failed turn threw: a ProviderError (kind, provider) or any error. */
interface Failure {
  message?: string;
  kind?: string;
  /** Set by a setup problem (no API key, …): the one action that fixes it. */
  action?: ErrorAction;
}

/**
 * The buttons that fix a failure, the likeliest first. A missing key or an unreachable server
 * is what a new user meets before anything is set up, so both offer Connect a model.
 */
export function errorActions(failure: Failure): ErrorAction[] {
  if (failure.action === 'setApiKey') return ['connectModel', 'setApiKey'];
  if (failure.action) return failure.action === 'connectModel' ? ['connectModel'] : [failure.action, 'connectModel'];
  switch (failure.kind) {
    case 'auth':
      return ['setApiKey', 'connectModel'];
    case 'network':
      return ['connectModel', 'switchModel', 'openSettings'];
    case 'not_found':
      return ['switchModel', 'connectModel'];
    case 'timeout':
      return ['openSettings', 'switchModel'];
    case 'bad_request':
    case 'protocol':
      return ['switchModel', 'openSettings'];
    case 'rate_limit':
    case 'server':
      return ['switchModel'];
    default:
      return [];
  }
}

/** The transcript's card for a failed turn; every one can be retried once its cause is fixed. */
export function errorItem(error: unknown, id: string): TranscriptItem {
  const failure = (error && typeof error === 'object' ? error : {}) as Failure;
  const message = typeof failure.message === 'string' ? failure.message : String(error);
  const actions = errorActions(failure);
  return { kind: 'error', id, message, action: actions[0], actions, retryable: true };
}
