import { afterEach, describe, expect, it } from 'vitest';
import {
  DurableSubscription,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  LeaseKeepingStrategy,
} from '../../../runtime/index.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';
import { SlowLeaseStore } from '../../support/leases/slow-lease-store.js';

// shutdown() waits at most 5 s. A registration still in flight then (a store outage that a client without a command
// timeout queues through) lands later; the subscription's own supervisor must give it up at once, or the strategy
// acquires and refreshes a lease that nobody delivers under and every other node is kept out for good.

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

describe("a registration still in flight when shutdown()'s 5 s run out", () => {
  it('is unregistered once it lands, so another node takes the subscription over', async () => {
    const table = new InMemoryLeaseTable();
    const store = new SlowLeaseStore(table, 0);
    store.stallNextAcquire(6_000);
    // The strategy belongs to the node, not to the subscription: it keeps running after the subscription's shutdown.
    const strategy = new LeaseKeepingStrategy(store, { leaseTimeMs: 600 });
    cleanups.push(() => strategy.shutdown());
    const errors: unknown[] = [];
    const subscription = new DurableSubscription({
      storage: new InMemoryCheckpointStorage(),
      strategy,
      subscriberId: 'node-a',
      retryDelayMs: 50,
      onError: (error) => errors.push(error),
    });
    subscription.subscribe('orders', new EventLog().source, () => undefined);
    await sleep(50);
    const shutdownStarted = performance.now();
    await subscription.shutdown();
    expect(performance.now() - shutdownStarted).toBeGreaterThanOrEqual(4_900);
    // The registration lands at 6 s; node-b asks only after that, so node-a got there first.
    await sleep(2_000);

    const other = new InMemoryLeaseStrategy({ table, leaseTimeMs: 600 });
    cleanups.push(() => other.shutdown());
    await other.register('orders', 'node-b');
    await eventually('node-b holds orders', () => other.hasLock('orders', 'node-b'), 6_000);
    expect(strategy.hasLock('orders', 'node-a')).toBe(false);
    // It stays so: node-a's strategy no longer has node-a as a candidate.
    await sleep(1_500);
    expect({ nodeA: strategy.hasLock('orders', 'node-a'), nodeB: other.hasLock('orders', 'node-b') }).toEqual({
      nodeA: false,
      nodeB: true,
    });
    expect(errors).toEqual([]);
  }, 20_000);
});
