import { describeValue } from '../describe-value.js';
import { longestTimerMs } from './subscription-timing.js';

/**
 * When `DurableSubscription` writes the position of the events it handled: once `events` handled positions are
 * pending, or `ms` after the oldest pending one was handled, whichever comes first. Leaving it out writes every event
 * before the next one is handled. A pending position is also written, fenced, before this node pauses or shuts down.
 */
export interface CheckpointPolicy {
  /** Write once this many handled events are pending; a whole number, at least 1. */
  readonly events?: number;
  /**
   * Write once the oldest pending position has waited this many milliseconds (1 to 2 147 483 647), whether or not
   * more events arrive: an idle source still gets its last position written.
   */
  readonly ms?: number;
}

/** A policy checked and read once: `events` is `Infinity` when only `ms` is set. */
export interface ResolvedCheckpointPolicy {
  readonly events: number;
  readonly ms: number | undefined;
}

/** Every handled event written before the next one is handled: what a subscription does without a policy. */
export const checkpointEveryEvent: ResolvedCheckpointPolicy = Object.freeze({ events: 1, ms: undefined });

/**
 * Checks a `checkpointEvery` option and reads each field once, so a getter cannot answer one value to the check and
 * another to the subscription. `where` names the option in messages.
 * @throws TypeError for a value that is not an object, or one with neither `events` nor `ms`.
 * @throws RangeError for an `events` that is not a whole number ≥ 1, or an `ms` outside 1 to 2 147 483 647.
 */
export function resolveCheckpointPolicy(policy: unknown, where: string): ResolvedCheckpointPolicy {
  if (typeof policy !== 'object' || policy === null) {
    throw new TypeError(`${where} must be an object such as { events: 100, ms: 1000 }, got ${describeValue(policy)}.`);
  }
  const { events, ms } = policy as Record<string, unknown>;
  if (events === undefined && ms === undefined) {
    throw new TypeError(
      `${where} needs events, ms or both, got ${describeValue(policy)}. Leave the option out to checkpoint every event.`,
    );
  }
  if (events !== undefined && !(typeof events === 'number' && Number.isSafeInteger(events) && events >= 1)) {
    throw new RangeError(`${where}.events must be a whole number of events, at least 1; got ${describeValue(events)}.`);
  }
  if (ms !== undefined && !(typeof ms === 'number' && ms >= 1 && ms <= longestTimerMs)) {
    throw new RangeError(
      `${where}.ms must be a number of milliseconds from 1 to ${longestTimerMs} (the longest timer Node has); ` +
        `got ${describeValue(ms)}.`,
    );
  }
  return Object.freeze({ events: events ?? Number.POSITIVE_INFINITY, ms });
}
