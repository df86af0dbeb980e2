/** Timers and a monotonic clock, injectable so tests need not wait on the wall clock. */
export interface Scheduler {
  now(): number;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

export const realScheduler: Scheduler = {
  now: () => performance.now(),
  setTimeout: (callback, ms) => setTimeout(callback, ms),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

/**
 * The wall-clock budget of one tool call. It runs only while the tool works: a person
 * deciding on an approval pauses it (pauses nest), so a slow "Allow" never times a call out.
 */
export class CallBudget {
  private used = 0;
  private since: number | undefined;
  private pauses = 0;
  private timer: unknown;
  private finished = false;

  constructor(
    private readonly budgetMs: number,
    private readonly onExpired: () => void,
    private readonly scheduler: Scheduler = realScheduler,
  ) {
    this.resume();
  }

  /** Pauses the budget; the returned function (idempotent) resumes it. */
  pause(): () => void {
    this.pauses++;
    if (this.pauses === 1) this.halt();
    let resumed = false;
    return () => {
      if (resumed) return;
      resumed = true;
      this.pauses--;
      if (this.pauses === 0) this.resume();
    };
  }

  /** Stops counting for good (the call ended or was stopped). */
  finish(): void {
    this.halt();
    this.finished = true;
  }

  /** Milliseconds the tool ran, pauses left out. */
  get elapsedMs(): number {
    return this.used + (this.since === undefined ? 0 : this.scheduler.now() - this.since);
  }

  private resume(): void {
    if (this.finished) return;
    this.since = this.scheduler.now();
    const left = Math.max(0, this.budgetMs - this.used);
    this.timer = this.scheduler.setTimeout(() => {
      this.halt();
      this.finished = true;
      this.onExpired();
    }, left);
  }

  private halt(): void {
    if (this.since !== undefined) this.used += this.scheduler.now() - this.since;
    this.since = undefined;
    if (this.timer !== undefined) this.scheduler.clearTimeout(this.timer);
    this.timer = undefined;
  }
}
