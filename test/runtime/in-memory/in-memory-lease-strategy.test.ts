import { describe, expect, it } from 'vitest';
import { InMemoryLeaseStrategy, InMemoryLeaseTable, type HeldLease } from '../../../runtime/index.js';
import { describeCompetingConsumerStrategyConformance } from '../../../runtime/testing/index.js';
import { ManualLeaseClock, settle } from '../../support/leases/manual-lease-clock.js';

describeCompetingConsumerStrategyConformance('InMemoryLeaseStrategy', () => {
  const table = new InMemoryLeaseTable();
  return {
    leaseTimeMs: 500,
    node: () => new InMemoryLeaseStrategy({ table, leaseTimeMs: 500 }),
    deleteLease: async (subscriptionId) => {
      table.deleteLease(subscriptionId);
    },
  };
});

/** A table whose refreshes fail, and whose acquire answers only when the test lets it: an outage and a slow reply. */
class FlakyTable extends InMemoryLeaseTable {
  refreshFails = false;
  #heldAcquire: Promise<void> | undefined;
  #answerAcquire: () => void = () => undefined;

  holdNextAcquire(): () => void {
    this.#heldAcquire = new Promise((resolve) => {
      this.#answerAcquire = resolve;
    });
    return () => {
      this.#answerAcquire();
    };
  }

  override async acquire(subscriptionId: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined> {
    const held = this.#heldAcquire;
    this.#heldAcquire = undefined;
    // Decided when the request arrives (now), answered when the test lets the reply through.
    const token = await super.acquire(subscriptionId, owner, leaseTimeMs);
    await held;
    return token;
  }

  override async refreshAll(leases: readonly HeldLease[], leaseTimeMs: number): Promise<readonly boolean[]> {
    if (this.refreshFails) {
      throw new Error('lease store unreachable');
    }
    return super.refreshAll(leases, leaseTimeMs);
  }
}

describe('InMemoryLeaseStrategy with a manual clock', () => {
  const setup = (): {
    clock: ManualLeaseClock;
    table: FlakyTable;
    strategy: InMemoryLeaseStrategy;
    errors: unknown[];
  } => {
    const clock = new ManualLeaseClock();
    const table = new FlakyTable({ now: () => clock.now() });
    const errors: unknown[] = [];
    const strategy = new InMemoryLeaseStrategy({
      table,
      clock,
      leaseTimeMs: 1_000,
      onError: (error) => errors.push(error),
    });
    return { clock, table, strategy, errors };
  };

  it('hasLock turns false three quarters of the lease time after the last successful refresh was sent, though refreshes fail', async () => {
    const { clock, table, strategy, errors } = setup();
    expect(await strategy.register('orders', 'node-a')).toBe(true);
    await clock.advance(333);
    expect(strategy.hasLock('orders', 'node-a')).toBe(true);
    table.refreshFails = true;
    await clock.advance(333 + 82);
    expect(strategy.hasLock('orders', 'node-a')).toBe(true);
    expect(errors.length).toBe(1);
    // The refresh at 333 was the last one that succeeded: 333 + 750 = 1083.
    await clock.advance(1_082 - 748);
    expect(strategy.hasLock('orders', 'node-a')).toBe(true);
    await clock.advance(1);
    expect(strategy.hasLock('orders', 'node-a')).toBe(false);
    expect(strategy.fencingToken('orders')).toBe(0n);
    await strategy.shutdown();
  });

  it('measures the three quarters from when the acquire was sent, not from when its reply arrived', async () => {
    const { clock, table, strategy } = setup();
    table.refreshFails = true;
    const answer = table.holdNextAcquire();
    const registered = strategy.register('orders', 'node-a');
    await settle();
    await clock.advance(300);
    answer();
    expect(await registered).toBe(true);
    await clock.advance(449);
    expect(strategy.hasLock('orders', 'node-a')).toBe(true);
    await clock.advance(1);
    expect(strategy.hasLock('orders', 'node-a')).toBe(false);
    await strategy.shutdown();
  });

  it('tells onProhibited at the three-quarter mark without an answer, before the store could expire the lease, and gives it up as lost a lease time without one', async () => {
    const { clock, table, strategy } = setup();
    const prohibited: [string, boolean][] = [];
    strategy.onProhibited((subscriptionId) => prohibited.push([subscriptionId, strategy.hasLock('orders', 'node-a')]));
    await strategy.register('orders', 'node-a');
    table.refreshFails = true;
    await clock.advance(749);
    expect(prohibited).toEqual([]);
    // The acquire at 0 was the last answer: 0 + 750. The token is kept, so a late answer could still renew it.
    await clock.advance(1);
    expect(prohibited).toEqual([['orders', false]]);
    expect(strategy.fencingToken('orders')).toBe(0n);
    // Ticks at 333, 666 and 999 fail within the lease time; the one at 1332 is past it.
    await clock.advance(1_331 - 750);
    expect(prohibited).toHaveLength(1);
    await clock.advance(1);
    expect(prohibited).toEqual([
      ['orders', false],
      ['orders', false],
    ]);
    expect(strategy.fencingToken('orders')).toBeUndefined();
    await strategy.shutdown();
  });

  it('renews every lease it holds in one refreshAll per interval, however many', async () => {
    const { clock, table, strategy } = setup();
    const calls: number[] = [];
    const refreshAll = table.refreshAll.bind(table);
    table.refreshAll = async (leases, leaseTimeMs) => {
      calls.push(leases.length);
      return refreshAll(leases, leaseTimeMs);
    };
    for (let partition = 0; partition < 64; partition += 1) {
      await strategy.register(`orders/${partition}`, 'node-a');
      await clock.advance(7);
    }
    calls.length = 0;
    await clock.advance(3_000);
    expect(calls).toEqual(new Array(9).fill(64));
    expect(strategy.hasLock('orders/63', 'node-a')).toBe(true);
    await strategy.shutdown();
  });

  it('a consumer unregistered while its acquire is in flight hands the lease straight back', async () => {
    const { clock, table, strategy } = setup();
    const answer = table.holdNextAcquire();
    const registered = strategy.register('orders', 'node-a');
    await settle();
    const unregistered = strategy.unregister('orders', 'node-a');
    answer();
    expect(await registered).toBe(false);
    await unregistered;
    expect(await table.acquire('orders', 'someone-else', 1_000)).toBe(1n);
    await clock.advance(0);
    await strategy.shutdown();
  });
});

describe('InMemoryLeaseTable', () => {
  it('keeps tokens when leases are deleted or expire, and keeps them per subscription', async () => {
    let now = 0;
    const table = new InMemoryLeaseTable({ now: () => now });
    expect(await table.acquire('orders', 'a', 100)).toBe(0n);
    table.deleteLease('orders');
    expect(await table.acquire('orders', 'b', 100)).toBe(1n);
    now = 100;
    expect(await table.acquire('orders', 'a', 100)).toBe(2n);
    expect(await table.acquire('payments', 'a', 100)).toBe(0n);
    expect(table.lastToken('orders')).toBe(2n);
  });

  it('gives the holder its own token back on a repeated acquire, and nobody else the lease', async () => {
    const table = new InMemoryLeaseTable({ now: () => 0 });
    expect(await table.acquire('orders', 'a', 100)).toBe(0n);
    expect(await table.acquire('orders', 'a', 100)).toBe(0n);
    expect(await table.acquire('orders', 'b', 100)).toBeUndefined();
  });

  it("a stale holder can neither refresh nor release the newer holder's lease", async () => {
    let now = 0;
    const table = new InMemoryLeaseTable({ now: () => now });
    const stale = await table.acquire('orders', 'a', 100);
    now = 100;
    const fresh = await table.acquire('orders', 'b', 100);
    expect(fresh).toBe(1n);
    expect(await table.refreshAll([{ subscriptionId: 'orders', owner: 'a', token: stale ?? -1n }], 100)).toEqual([
      false,
    ]);
    await table.release('orders', 'a', stale ?? -1n);
    await table.release('orders', 'b', 0n);
    expect(await table.acquire('orders', 'c', 100)).toBeUndefined();
    expect(await table.refreshAll([{ subscriptionId: 'orders', owner: 'b', token: 1n }], 100)).toEqual([true]);
  });
});

describe('InMemoryLeaseStrategy options', () => {
  it('refuses a lease time that is not a whole number of milliseconds', () => {
    expect(() => new InMemoryLeaseStrategy({ leaseTimeMs: 1.5 })).toThrow(RangeError);
    expect(() => new InMemoryLeaseStrategy({ leaseTimeMs: 0 })).toThrow(/leaseTimeMs/u);
  });
});
