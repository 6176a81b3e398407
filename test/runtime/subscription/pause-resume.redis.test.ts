import { afterEach, describe, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy } from '../../../runtime/index.js';
import { deliveringNode, expectDeliveryAfterPauseResume } from '../../support/leases/delivering-node.js';
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
    const node = await deliveringNode(storage, strategy, cleanups);
    // The supervisor has sent the release when resume() comes; its reply is still out.
    await expectDeliveryAfterPauseResume(node, storage, () => new Promise((resolve) => setImmediate(resolve)));
  });
});
