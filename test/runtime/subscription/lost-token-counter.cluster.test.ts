import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy, redisLeaseKeys } from '../../../runtime/index.js';
import { runLostCounterRecovery } from '../../support/leases/lost-counter-recovery.js';
import { startRedisCluster, type RedisClusterProcess } from '../../support/redis/index.js';

const leaseTimeMs = 600;
const keyPrefix = 'lost-counter:';
let redisCluster: RedisClusterProcess | undefined;
const clients: Cluster[] = [];

beforeAll(async () => {
  redisCluster = await startRedisCluster();
});

afterAll(async () => {
  for (const client of clients.splice(0)) {
    client.disconnect();
  }
  await redisCluster?.stop();
});

/** A Cluster client of its own for every node, as separate processes would have. */
function connect(): Cluster {
  if (redisCluster === undefined) {
    throw new Error('The Redis Cluster of this suite did not start; see the beforeAll error.');
  }
  const client = new Cluster([...redisCluster.nodes]);
  clients.push(client);
  return client;
}

describe('DurableSubscription on a real three-master Redis Cluster, when the lease and token keys are deleted mid-run', () => {
  it('resumes within two lease times with the next token above the stored version; nothing moves backward', async () => {
    const admin = connect();
    const report = await runLostCounterRecovery({
      leaseTimeMs,
      strategy: () => new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs }),
      storage: () => new RedisCheckpointStorage(connect(), { keyPrefix: 'lost-counter:checkpoint:' }),
      loseLeaseAndCounter: async (subscriptionId) => {
        const { lease, token } = redisLeaseKeys(keyPrefix, subscriptionId);
        // Both keys share a hash tag, so one DEL reaches the one master that holds them.
        expect(await admin.del(lease, token)).toBe(2);
      },
    });
    expect(report.grantsAfterLoss).toContain(report.versionBeforeLoss + 1n);
  });
});
