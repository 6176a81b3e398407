import { raceWithTimeout } from '../background/index.js';

/** Lets a waiting loop sleep until it is woken or a timeout passes, whichever comes first. */
export class Wakeup {
  #wake: (() => void) | undefined;
  #woken: Promise<void> | undefined;

  /** Resolves when {@link Wakeup.wake} is called or after `timeoutMs`. */
  async wait(timeoutMs: number): Promise<void> {
    this.#woken ??= new Promise<void>((resolve) => {
      this.#wake = resolve;
    });
    await raceWithTimeout(this.#woken, timeoutMs);
  }

  /** Wakes every current waiter. */
  wake(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    this.#woken = undefined;
    wake?.();
  }
}
