import { afterEach, describe, expect, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy } from '../../../runtime/index.js';
import { deliveringNode } from '../../support/leases/delivering-node.js';
import { eventually } from '../../support/leases/event-log.js';
import { useSharedRedis } from '../../support/redis/index.js';

// pause-resume.test.ts's stall on a real redis-server: the pause's release is on the wire when resume() comes.

const redis = useSharedRedis();
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) {
    await cleanup();
  }
});

describe('pause() then resume() on the next turn of the event loop, on Redis', () => {
  it('delivers again after resume(), nothing reported', async () => {
    await redis.flush();
    const client = redis.connect();
    const storage = new RedisCheckpointStorage(client);
    const strategy = new RedisLeaseStrategy(client, { leaseTimeMs: 600 });
    const { subscription, log, errors } = await deliveringNode(storage, strategy, cleanups);

    const paused = subscription.pause('orders');
    await new Promise((resolve) => setImmediate(resolve)); // the supervisor has sent the release; its reply is out
    await subscription.resume('orders');
    await paused;
    expect(subscription.isPaused('orders')).toBe(false);

    log.append(3);
    await eventually(
      'events 3-5 are checkpointed after resume()',
      async () => (await storage.read('orders')) === '5',
      6_000,
    );
    expect(errors).toEqual([]);
    expect(subscription.isRunning('orders')).toBe(true);
  });
});
