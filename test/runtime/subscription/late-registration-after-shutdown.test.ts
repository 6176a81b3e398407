import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DurableSubscription,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  LeaseKeepingStrategy,
} from '../../../runtime/index.js';
import { EventLog } from '../../support/leases/event-log.js';
import { SlowLeaseStore } from '../../support/leases/slow-lease-store.js';

// shutdown() waits at most 5 s. A registration still in flight then (a store outage that a client without a command
// timeout queues through) lands later; the subscription's own supervisor must give it up at once, or the strategy
// acquires and refreshes a lease that nobody delivers under and every other node is kept out for good. On fake time.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
  vi.useRealTimers();
});

describe("a registration still in flight when shutdown()'s 5 s run out (fake time)", () => {
  it('is unregistered once it lands, so another node takes the subscription over', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const table = new InMemoryLeaseTable();
    const store = new SlowLeaseStore(table, 0);
    store.stallNextAcquire(6_000);
    // The strategy belongs to the node, not to the subscription: it keeps running after the subscription's shutdown.
    const strategy = new LeaseKeepingStrategy(store, { leaseTimeMs: 600 });
    const other = new InMemoryLeaseStrategy({ table, leaseTimeMs: 600 });
    cleanups.push(async () => {
      await Promise.all([strategy.shutdown(), other.shutdown(), vi.advanceTimersByTimeAsync(10_000)]);
    });
    const errors: unknown[] = [];
    const subscription = new DurableSubscription({
      storage: new InMemoryCheckpointStorage(),
      strategy,
      subscriberId: 'node-a',
      retryDelayMs: 50,
      onError: (error) => errors.push(error),
    });
    subscription.subscribe('orders', new EventLog().source, () => undefined);
    await vi.advanceTimersByTimeAsync(50);
    let shutDown = false;
    void subscription.shutdown().then(() => {
      shutDown = true;
    });
    await vi.advanceTimersByTimeAsync(4_900);
    expect(shutDown).toBe(false);
    await vi.advanceTimersByTimeAsync(200);
    expect(shutDown).toBe(true);

    // The registration lands at 6 s and node-a acquires; node-b asks only after that.
    await vi.advanceTimersByTimeAsync(1_000);
    await other.register('orders', 'node-b');
    await vi.advanceTimersByTimeAsync(3_000);
    expect({ nodeA: strategy.hasLock('orders', 'node-a'), nodeB: other.hasLock('orders', 'node-b') }).toEqual({
      nodeA: false,
      nodeB: true,
    });
    expect(errors).toEqual([]);
  });
});
