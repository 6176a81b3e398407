import type { LeaseClock, LeaseTimer } from '../../../runtime/index.js';

interface ManualTimer {
  readonly at: number;
  readonly callback: () => void;
}

/** A clock that moves only when a test calls `advance`, firing the timers that come due, in order. */
export class ManualLeaseClock implements LeaseClock {
  #now = 0;
  readonly #timers = new Set<ManualTimer>();

  now(): number {
    return this.#now;
  }

  setTimeout(callback: () => void, delayMs: number): LeaseTimer {
    const timer: ManualTimer = { at: this.#now + delayMs, callback };
    this.#timers.add(timer);
    return timer;
  }

  clearTimeout(timer: LeaseTimer): void {
    this.#timers.delete(timer as ManualTimer);
  }

  /** Moves time forward by `ms`, firing each due timer and letting the promises it starts settle. */
  async advance(ms: number): Promise<void> {
    const until = this.#now + ms;
    for (;;) {
      const due = [...this.#timers].filter((timer) => timer.at <= until).sort((a, b) => a.at - b.at)[0];
      if (due === undefined) {
        break;
      }
      this.#timers.delete(due);
      this.#now = due.at;
      due.callback();
      await settle();
    }
    this.#now = until;
    await settle();
  }
}

/** Lets every promise chain started so far run to its next real wait. */
export async function settle(): Promise<void> {
  for (let round = 0; round < 20; round += 1) {
    await new Promise<void>((resolve) => setImmediate(resolve));
  }
}
