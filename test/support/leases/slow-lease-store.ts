import type { HeldLease, InMemoryLeaseTable, LeaseStore } from '../../../runtime/index.js';

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

/**
 * A lease store over an `InMemoryLeaseTable` whose every call takes `delayMs`, like a network round trip to Redis or
 * PostgreSQL. `stallNextAcquire(ms)` makes the next acquire take that long instead (a store outage that a client
 * without a command timeout queues through).
 */
export class SlowLeaseStore implements LeaseStore {
  #stall: number | undefined;

  constructor(
    private readonly inner: InMemoryLeaseTable,
    private readonly delayMs: number,
  ) {}

  stallNextAcquire(ms: number): void {
    this.#stall = ms;
  }

  async acquire(id: string, owner: string, ms: number): Promise<bigint | undefined> {
    const stall = this.#stall;
    this.#stall = undefined;
    await sleep(stall ?? this.delayMs);
    return this.inner.acquire(id, owner, ms);
  }

  async refreshAll(leases: readonly HeldLease[], ms: number): Promise<readonly boolean[]> {
    await sleep(this.delayMs);
    return this.inner.refreshAll(leases, ms);
  }

  async release(id: string, owner: string, token: bigint): Promise<void> {
    await sleep(this.delayMs);
    await this.inner.release(id, owner, token);
  }

  async raiseFencingTokenAbove(id: string, version: bigint): Promise<void> {
    await sleep(this.delayMs);
    await this.inner.raiseFencingTokenAbove(id, version);
  }
}
