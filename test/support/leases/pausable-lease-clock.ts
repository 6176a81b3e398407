import type { LeaseClock, LeaseTimer } from '../../../runtime/index.js';

/**
 * Real time and real timers, except that `pause()` holds back every timer callback until `resume()`: a strategy on
 * this clock behaves like a node whose process was stopped (no refresh goes out) while the world's clock runs on.
 */
export class PausableLeaseClock implements LeaseClock {
  #paused = false;
  readonly #held: (() => void)[] = [];

  now(): number {
    return performance.now();
  }

  setTimeout(callback: () => void, delayMs: number): LeaseTimer {
    return setTimeout(() => {
      if (this.#paused) {
        this.#held.push(callback);
      } else {
        callback();
      }
    }, delayMs);
  }

  clearTimeout(timer: LeaseTimer): void {
    clearTimeout(timer as Parameters<typeof clearTimeout>[0]);
  }

  pause(): void {
    this.#paused = true;
  }

  resume(): void {
    this.#paused = false;
    for (const callback of this.#held.splice(0)) {
      callback();
    }
  }
}
