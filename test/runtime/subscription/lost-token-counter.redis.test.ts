import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy } from '../../../runtime/index.js';
import { redisLeaseKeys } from '../../../runtime/store-layout-entry.js';
import { runLostCounterRecovery } from '../../support/leases/lost-counter-recovery.js';
import { useSharedRedis } from '../../support/redis/index.js';

const leaseTimeMs = 600;
const keyPrefix = 'lost-counter:';
const shared = useSharedRedis();
/** A connection of its own for every node, as separate processes would have. */
const connect = (): Redis => shared.connect();

describe('DurableSubscription on a real redis-server, when the lease and token keys are deleted mid-run', () => {
  it('resumes within two lease times with the next token above the stored version; nothing moves backward', async () => {
    const admin = connect();
    const report = await runLostCounterRecovery({
      leaseTimeMs,
      strategy: () => new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs }),
      storage: () => new RedisCheckpointStorage(connect(), { keyPrefix: 'lost-counter:checkpoint:' }),
      loseLeaseAndCounter: async (subscriptionId) => {
        const { lease, token } = redisLeaseKeys(keyPrefix, subscriptionId);
        expect(await admin.del(lease, token)).toBe(2);
      },
    });
    expect(report.grantsAfterLoss).toContain(report.versionBeforeLoss + 1n);
  });
});
