/**
 * The timers a race runs on: Node's by default; a lease strategy passes its `LeaseClock` so tests can drive time.
 * Whatever `setTimeout` returns is handed back to `clearTimeout` unchanged.
 */
export interface TimerSource {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(timer: unknown): void;
}

/** What {@link raceWithTimeout} resolves to when the time ran out first. */
export const timedOut: unique symbol = Symbol('timedOut');

/** Node's own timers. */
export const nodeTimers: TimerSource = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (timer) => {
    clearTimeout(timer as Parameters<typeof clearTimeout>[0]);
  },
};

/**
 * Resolves to what `work` resolves to, or to {@link timedOut} once `timeoutMs` have passed, whichever comes first; the
 * timer is cleared either way, so a race that `work` wins leaves nothing behind to keep the process alive. A rejection
 * of `work` before the time runs out rejects the race; one after it is ignored.
 */
export async function raceWithTimeout<T>(
  work: Promise<T>,
  timeoutMs: number,
  timers: TimerSource = nodeTimers,
): Promise<T | typeof timedOut> {
  let timer: unknown;
  const expired = new Promise<typeof timedOut>((resolve) => {
    timer = timers.setTimeout(
      () => {
        resolve(timedOut);
      },
      Math.max(0, timeoutMs),
    );
  });
  try {
    return await Promise.race([work, expired]);
  } finally {
    timers.clearTimeout(timer);
    work.catch(() => undefined);
  }
}
