import { nodeTimers, raceWithTimeout, timedOut, type TimerSource } from './race-with-timeout.js';

/** How long a `shutdown()` waits, in all, for work in flight and for giving leases up: 5 s. */
export const shutdownWaitMs = 5_000;

/** A monotonic clock with timers, such as a `LeaseClock`. */
export interface DeadlineClock extends TimerSource {
  now(): number;
}

const processClock: DeadlineClock = { ...nodeTimers, now: () => performance.now() };

/**
 * The one cap every `shutdown()` shares: started when shutdown begins, it lets each later step wait only for what is
 * left of the 5 s, so several steps together never wait longer than that.
 */
export class ShutdownDeadline {
  readonly #clock: DeadlineClock;
  readonly #endsAt: number;

  /** Starts the 5 s on `clock`: the process's monotonic clock and Node's timers by default. */
  constructor(clock: DeadlineClock = processClock) {
    this.#clock = clock;
    this.#endsAt = clock.now() + shutdownWaitMs;
  }

  /** Waits until every one of `works` has settled or the deadline has passed; resolves to whether all settled in time. */
  async settle(works: Iterable<Promise<unknown>>): Promise<boolean> {
    const outcome = await raceWithTimeout(Promise.allSettled(works), this.#endsAt - this.#clock.now(), this.#clock);
    return outcome !== timedOut;
  }
}
