import type { LeaseClock, LeaseTimer } from '../../runtime/index.js';

interface StallableTimer {
  current: ReturnType<typeof setTimeout> | undefined;
}

/**
 * A lease clock whose timers can be frozen, to stage a pause of the whole worker (a long GC, a stopped VM) without
 * stopping the process: while stalled, no lease refresh fires and {@link untilRunning} holds writes back; both
 * resume together when the stall ends, with the token the worker held before it.
 */
export class StallableLeaseClock implements LeaseClock {
  #stalledUntil = 0;

  now(): number {
    return performance.now();
  }

  setTimeout(callback: () => void, delayMs: number): LeaseTimer {
    const timer: StallableTimer = { current: undefined };
    const fire = (): void => {
      const wait = this.#stalledUntil - this.now();
      timer.current = wait > 0 ? setTimeout(fire, wait) : undefined;
      if (wait <= 0) {
        callback();
      }
    };
    timer.current = setTimeout(fire, delayMs);
    return timer;
  }

  clearTimeout(timer: LeaseTimer): void {
    const stallable = timer as StallableTimer;
    clearTimeout(stallable.current);
    stallable.current = undefined;
  }

  /** Freezes timers and writes for `ms` from now. */
  stall(ms: number): void {
    this.#stalledUntil = Math.max(this.#stalledUntil, this.now() + ms);
  }

  /** Resolves once no stall is in force. */
  async untilRunning(): Promise<void> {
    for (let wait = this.#stalledUntil - this.now(); wait > 0; wait = this.#stalledUntil - this.now()) {
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }
}
