import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import { noticeWays, runDeposedWriter } from '../support/leases/deposed-writer.js';
import { useSharedRedis } from '../support/redis/index.js';

const leaseTimeMs = 600;
const redis = useSharedRedis();

describe('FencedCheckpointWriter over RedisCheckpointStorage and RedisLeaseStrategy on a real redis-server: a deposed node', () => {
  it.each(noticeWays)('is refused before it notices, and sends nothing after (%s)', async (way) => {
    const keyPrefix = `deposed-writer:${noticeWays.indexOf(way)}:`;
    await runDeposedWriter(
      {
        leaseTimeMs,
        // A connection of its own for every node, as separate processes would have.
        storage: () => new RedisCheckpointStorage(redis.connect(), { keyPrefix: `${keyPrefix}checkpoint:` }),
        strategy: (clock) =>
          new RedisLeaseStrategy(redis.connect(), {
            keyPrefix,
            leaseTimeMs,
            ...(clock === undefined ? {} : { clock }),
          }),
        // The lease key expires by redis-server's clock (PX); a margin for a loaded machine.
        expireLeases: () => sleep(leaseTimeMs + 150),
      },
      way,
      'orders',
    );
  });
});
