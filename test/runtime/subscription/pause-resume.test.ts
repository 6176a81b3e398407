import { afterEach, describe, expect, it } from 'vitest';
import {
  FencingTokenReusedError,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  LeaseKeepingStrategy,
} from '../../../runtime/index.js';
import { deliveringNode, expectDeliveryAfterPauseResume } from '../../support/leases/delivering-node.js';
import { eventually } from '../../support/leases/event-log.js';
import { SlowLeaseStore } from '../../support/leases/slow-lease-store.js';

// pause() and resume() in quick succession: a resume that overtakes the pause's unregister must neither stall the
// subscription (the strategy has dropped it as a candidate) nor mistake its own lease, handed back with its own token,
// for a token minted twice.

const sleep = (ms: number): Promise<void> =>
  new Promise((resolve) => {
    setTimeout(resolve, ms);
  });

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

describe('DurableSubscription: pause() then resume()', () => {
  it('a pause() immediately followed by resume() does not report FencingTokenReusedError nor give the lease up', async () => {
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 300 });
    const storage = new InMemoryCheckpointStorage();
    const { subscription, log, errors } = await deliveringNode(storage, strategy, cleanups);
    expect(await storage.writeVersion('orders')).toBe(0n);

    // An operator toggles the subscription (e.g. two admin requests in a row): pause, then resume at once.
    void subscription.pause('orders');
    await subscription.resume('orders');
    log.append(3);
    await eventually('events 3-5 are checkpointed', async () => (await storage.read('orders')) === '5', 5_000);

    // Nothing was lost or reused: the lease never changed hands, token 0 is this node's own token.
    expect(errors.filter((error) => error instanceof FencingTokenReusedError)).toEqual([]);
    expect(errors).toEqual([]);
    expect(strategy.table.lastToken('orders')).toBe(0n);
  });

  it('a resume() while the pause is unregistering leaves the subscription delivering again', async () => {
    const table = new InMemoryLeaseTable();
    const strategy = new LeaseKeepingStrategy(new SlowLeaseStore(table, 30), { leaseTimeMs: 600 });
    const storage = new InMemoryCheckpointStorage();
    const node = await deliveringNode(storage, strategy, cleanups);
    // The supervisor has started strategy.unregister(), which takes one round trip (30 ms), when resume() comes; the
    // subscription registers again.
    await expectDeliveryAfterPauseResume(node, storage, () => sleep(10));
  });

  it('toggled many times while its unregisters are slow, it ends up delivering, nothing reported, nothing backward', async () => {
    const table = new InMemoryLeaseTable();
    const strategy = new LeaseKeepingStrategy(new SlowLeaseStore(table, 15), { leaseTimeMs: 600 });
    const storage = new InMemoryCheckpointStorage();
    const { subscription, log, errors } = await deliveringNode(storage, strategy, cleanups);
    const stored: string[] = [];
    for (const wait of [0, 5, 20, 0, 40, 1, 10]) {
      void subscription.pause('orders');
      await sleep(wait);
      await subscription.resume('orders');
      await sleep(wait);
      stored.push((await storage.read('orders')) ?? '');
    }
    log.append(3);
    await eventually('events 3-5 are checkpointed', async () => (await storage.read('orders')) === '5', 8_000);
    expect(errors).toEqual([]);
    expect(stored.every((checkpoint) => Number(checkpoint) >= 2)).toBe(true);
  });
});
