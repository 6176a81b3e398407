import { describe, expect, it } from 'vitest';
import type { Cluster, Redis } from 'ioredis';
import { RedisCheckpointStorage, RedisLeaseStrategy } from '../../../runtime/index.js';
import { redisLeaseKeys } from '../../../runtime/store-layout-entry.js';
import { runThreeNodeTakeover, type TakeoverWorld } from '../../support/leases/three-node-takeover.js';
import { useSharedRedis, useSharedRedisCluster } from '../../support/redis/index.js';

const leaseTimeMs = 600;
// A database of this suite's own on the shared redis-server, a key prefix of its own on the shared Cluster.
const server = useSharedRedis();
const cluster = useSharedRedisCluster();

/** Every node gets its own connection, its own strategy and its own storage, as separate processes would. */
function redisWorld(connect: () => Redis | Cluster): TakeoverWorld {
  const keyPrefix = cluster.freshPrefix();
  const checkpointKeyPrefix = `${keyPrefix}checkpoint:`;
  const admin = connect();
  return {
    leaseTimeMs,
    writesRecordedInOrder: false,
    strategy: (clock) => new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs, clock }),
    storage: () => new RedisCheckpointStorage(connect(), { keyPrefix: checkpointKeyPrefix }),
    deleteLease: async (subscriptionId) => {
      expect(await admin.del(redisLeaseKeys(keyPrefix, subscriptionId).lease)).toBe(1);
    },
  };
}

function standalone(): Redis {
  return server.connect();
}

function clustered(): Cluster {
  return cluster.connect();
}

describe.each([
  ['a real redis-server', standalone],
  ['a real three-master Redis Cluster', clustered],
])('three nodes, one subscription, Redis leases and checkpoints on %s', (_label, connect) => {
  it("a paused holder's late write is refused after another node takes over; nothing lost, nothing backward", async () => {
    const report = await runThreeNodeTakeover(redisWorld(connect), { deleteLeasesMidRun: false });
    expect(report.grantedTokens[0]).toBe(0n);
  });

  it('with the lease key deleted by hand twice mid-run, tokens keep climbing', async () => {
    const report = await runThreeNodeTakeover(redisWorld(connect), { deleteLeasesMidRun: true });
    expect(report.deletedLeases).toBe(2);
    expect(report.grantedTokens.length).toBeGreaterThanOrEqual(4);
  });
});
