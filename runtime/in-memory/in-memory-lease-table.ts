import type { HeldLease, LeaseStore } from '../leases/lease-store.js';

/** Options of {@link InMemoryLeaseTable}. */
export interface InMemoryLeaseTableOptions {
  /** The table's own clock, which alone decides when a lease expires (the "server time"); `performance.now` by default. */
  readonly now?: () => number;
}

interface TableLease {
  readonly owner: string;
  readonly token: bigint;
  expiresAt: number;
}

/**
 * Leases and fencing tokens in process memory, shared by several {@link InMemoryLeaseStrategy} "nodes" in one process:
 * for tests and single-process apps. Each method decides and writes without an `await` in between, so it is one
 * atomic step. Tokens live apart from leases and are never deleted, so deleting a lease never resets them.
 */
export class InMemoryLeaseTable implements LeaseStore {
  readonly #now: () => number;
  readonly #leases = new Map<string, TableLease>();
  readonly #lastTokens = new Map<string, bigint>();

  constructor(options: InMemoryLeaseTableOptions = {}) {
    this.#now = options.now ?? (() => performance.now());
  }

  async acquire(subscriptionId: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined> {
    const now = this.#now();
    const held = this.#live(subscriptionId, now);
    if (held !== undefined) {
      if (held.owner !== owner) {
        return undefined;
      }
      held.expiresAt = now + leaseTimeMs;
      return held.token;
    }
    const last = this.#lastTokens.get(subscriptionId);
    const token = last === undefined ? 0n : last + 1n;
    this.#lastTokens.set(subscriptionId, token);
    this.#leases.set(subscriptionId, { owner, token, expiresAt: now + leaseTimeMs });
    return token;
  }

  async refreshAll(leases: readonly HeldLease[], leaseTimeMs: number): Promise<readonly boolean[]> {
    const now = this.#now();
    return leases.map(({ subscriptionId, owner, token }) => {
      const held = this.#live(subscriptionId, now);
      if (held?.owner !== owner || held.token !== token) {
        return false;
      }
      held.expiresAt = now + leaseTimeMs;
      return true;
    });
  }

  async release(subscriptionId: string, owner: string, token: bigint): Promise<void> {
    const held = this.#live(subscriptionId, this.#now());
    if (held?.owner === owner && held.token === token) {
      this.#leases.delete(subscriptionId);
    }
  }

  async raiseFencingTokenAbove(subscriptionId: string, version: bigint): Promise<void> {
    const last = this.#lastTokens.get(subscriptionId);
    if (last === undefined || last < version) {
      this.#lastTokens.set(subscriptionId, version);
    }
  }

  /** Deletes a lease the way an operator deleting a lock by hand would; the token counter stays. */
  deleteLease(subscriptionId: string): void {
    this.#leases.delete(subscriptionId);
  }

  /**
   * Forgets the token counter of `subscriptionId`, as a lease server restarted without persistence would; the next
   * grant mints 0 again. For tests of the lost-counter case: never part of normal operation.
   */
  forgetTokens(subscriptionId: string): void {
    this.#lastTokens.delete(subscriptionId);
  }

  /** The last token minted for `subscriptionId` (or the floor it was raised to), or `undefined` when there is none. */
  lastToken(subscriptionId: string): bigint | undefined {
    return this.#lastTokens.get(subscriptionId);
  }

  #live(subscriptionId: string, now: number): TableLease | undefined {
    const held = this.#leases.get(subscriptionId);
    if (held !== undefined && held.expiresAt <= now) {
      this.#leases.delete(subscriptionId);
      return undefined;
    }
    return held;
  }
}
