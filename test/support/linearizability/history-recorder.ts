import { CheckpointWriteConditionNotFulfilledError } from '../../../runtime/index.js';
import type { CheckpointOperation, History, HistoryEvent } from './history.js';

/** A history event stamped with the monotonic clock, so recorders in several processes can be merged. */
export interface TimedHistoryEvent {
  readonly time: bigint;
  readonly event: HistoryEvent;
}

/**
 * Records every call a client makes as invoke/ok/fail/info events. The default clock is `process.hrtime.bigint()`,
 * CLOCK_MONOTONIC on Linux, shared by every process on the machine: events from worker processes merge in true order.
 */
export class HistoryRecorder {
  readonly #events: TimedHistoryEvent[] = [];
  readonly #clock: () => bigint;

  constructor(clock: () => bigint = () => process.hrtime.bigint()) {
    this.#clock = clock;
  }

  /**
   * Runs `call` as `operation` by `process` and records how it ended, then settles like `call`.
   * Resolved: ok. Refused by its condition: fail (refused). TypeError or RangeError from the argument checks every
   * storage runs before touching anything: fail (not-applied). Anything else (timeouts, closed connections): info.
   */
  async record<T>(process: string, operation: CheckpointOperation, call: () => Promise<T>): Promise<T> {
    this.#push({ type: 'invoke', process, operation });
    let value: T;
    try {
      value = await call();
    } catch (error) {
      if (error instanceof CheckpointWriteConditionNotFulfilledError) {
        this.#push({ type: 'fail', process, reason: 'refused' });
      } else if (error instanceof TypeError || error instanceof RangeError) {
        this.#push({ type: 'fail', process, reason: 'not-applied' });
      } else {
        this.#push({ type: 'info', process });
      }
      throw error;
    }
    const observed = operation.kind === 'read' || operation.kind === 'writeVersion' ? observedValue(value) : undefined;
    this.#push(observed === undefined ? { type: 'ok', process } : { type: 'ok', process, value: observed });
    return value;
  }

  /** The events recorded so far from index `from` on, in the order they happened; pass a previous length to get only new ones. */
  timedEvents(from = 0): readonly TimedHistoryEvent[] {
    return this.#events.slice(from);
  }

  /** How many events have been recorded. */
  get length(): number {
    return this.#events.length;
  }

  /** The events recorded so far as a history for `checkLinearizability`. */
  history(): History {
    return this.#events.map(({ event }) => event);
  }

  #push(event: HistoryEvent): void {
    this.#events.push({ time: this.#clock(), event });
  }
}

/**
 * Merges events recorded in several processes into one history. At equal times an invoke sorts before a
 * completion, so a tie never invents a real-time order that may not have existed.
 */
export function mergeTimedHistories(...parts: readonly (readonly TimedHistoryEvent[])[]): History {
  return mergeTimedEvents(...parts).map(({ event }) => event);
}

/** {@link mergeTimedHistories} keeping each event's time, for a caller that splits the history by time. */
export function mergeTimedEvents(...parts: readonly (readonly TimedHistoryEvent[])[]): TimedHistoryEvent[] {
  return parts
    .flat()
    .map((timed, arrival) => ({ ...timed, arrival }))
    .sort((a, b) =>
      a.time === b.time ? rank(a.event) - rank(b.event) || a.arrival - b.arrival : a.time < b.time ? -1 : 1,
    )
    .map(({ time, event }) => ({ time, event }));
}

function rank(event: HistoryEvent): number {
  return event.type === 'invoke' ? 0 : 1;
}

function observedValue(value: unknown): string | bigint | undefined {
  if (value === undefined || typeof value === 'string' || typeof value === 'bigint') {
    return value;
  }
  throw new TypeError(
    `A read or writeVersion resolved to ${typeof value}; the checker only understands string, bigint or undefined.`,
  );
}
