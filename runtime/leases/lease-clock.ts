/** A handle returned by {@link LeaseClock.setTimeout}. */
export type LeaseTimer = object | number;

/**
 * The time source and timers a lease strategy runs on. `now()` is a monotonic millisecond reading of this node's
 * own clock: it only decides when `hasLock` stops answering true, never when a lease expires (the lease store does).
 */
export interface LeaseClock {
  now(): number;
  setTimeout(callback: () => void, delayMs: number): LeaseTimer;
  clearTimeout(timer: LeaseTimer): void;
}

/** The process's monotonic clock and Node's timers. */
export const systemLeaseClock: LeaseClock = Object.freeze({
  now: () => performance.now(),
  setTimeout: (callback: () => void, delayMs: number): LeaseTimer => setTimeout(callback, delayMs),
  clearTimeout: (timer: LeaseTimer): void => {
    clearTimeout(timer as Parameters<typeof clearTimeout>[0]);
  },
});
