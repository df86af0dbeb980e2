import type { ChatService } from './chatService';

/**
 * Retries the failed turn by itself once its cause is fixed (a model connected, a key saved),
 * when the newest item of the chat is an error that can be retried. Held back while a flow is
 * still writing settings, so the retry never runs with half of them.
 */
export class AutoRetry {
  private held = 0;

  constructor(private readonly chat: ChatService) {}

  async hold<T>(work: () => Promise<T>): Promise<T> {
    this.held++;
    try {
      return await work();
    } finally {
      this.held--;
    }
  }

  /** Retries when the chat is waiting on an error; returns whether it did. */
  retryIfWaiting(): boolean {
    if (this.held > 0 || !this.chat.started) return false;
    const controller = this.chat.controller;
    const newest = controller.state().items.at(-1);
    if (controller.busy || newest?.kind !== 'error' || !newest.retryable) return false;
    controller.retry().catch(() => undefined); // a new failure shows as a new error card
    return true;
  }
}
