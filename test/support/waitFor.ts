/**
 * Polls `check` until it returns a truthy value and returns that value; throws naming `what` (and the
 * last value seen) when `timeoutMs` passes first. The one poll helper of every suite.
 */
export async function waitFor<T>(check: () => T | Promise<T>, what: string, timeoutMs = 10_000): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  for (;;) {
    last = await check();
    if (last) return last as NonNullable<T>;
    // Checked once more after the deadline: a busy event loop can sleep through it, and the
    // condition may have come true meanwhile.
    if (Date.now() >= deadline) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`Timed out waiting for ${what} (last value: ${JSON.stringify(last)})`);
}
