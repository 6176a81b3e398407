import { describeValue } from '../describe-value.js';

/** The longest delay Node's timers take; a longer one fires at once, with a warning. */
export const longestTimerMs = 2_147_483_647;

/**
 * Checks one of `DurableSubscription`'s waits (`retryDelayMs`, `holdBackPollMs`, `takeoverGraceMs`) and returns it, or
 * `fallback` when it is not given. A wait of NaN or a negative one would make every retry immediate, and one beyond
 * Node's longest timer fires at once: either way a failing run would be retried without end.
 * @throws RangeError naming `name` unless the wait is a number of milliseconds from 0 to 2 147 483 647.
 */
export function resolveWaitMs(value: unknown, fallback: number, name: string): number {
  const waitMs = value ?? fallback;
  if (typeof waitMs !== 'number' || !(waitMs >= 0 && waitMs <= longestTimerMs)) {
    throw new RangeError(
      `${name} must be a number of milliseconds from 0 to ${longestTimerMs} (the longest timer Node has); ` +
        `got ${describeValue(waitMs)}.`,
    );
  }
  return waitMs;
}
