import fc from 'fast-check';
import type { Cluster, Redis } from 'ioredis';
import { beforeAll, describe, it } from 'vitest';
import { RedisCheckpointStorage } from '../../runtime/index.js';
import { useSharedRedis, useSharedRedisCluster } from '../support/redis/index.js';
import { concurrentModelProperty } from './model-based/run-concurrent-model.js';

// Hash-tagged and plain ids: both shapes Cluster-safe mode fences, spread over different slots.
const subscriptionIds = ['{tenant-a}-orders', '{tenant-a}-payments', 'invoices'];
const connections = 3;

describe('model-based interleavings: RedisCheckpointStorage on a real redis-server', () => {
  // This suite's own database on the shared redis-server: each run empties it with FLUSHDB.
  const server = useSharedRedis();
  const clients: Redis[] = [];

  beforeAll(() => {
    for (let index = 0; index < connections; index += 1) {
      clients.push(server.connect());
    }
  });

  it('every scheduled interleaving over three connections is linearizable', async () => {
    await fc.assert(
      concurrentModelProperty({
        subscriptionIds,
        createStorages: async () => {
          await server.flush();
          return clients.map((client, index) =>
            index === 0 ? new RedisCheckpointStorage(client) : RedisCheckpointStorage.forStandalone(client),
          );
        },
      }),
      { numRuns: 40 },
    );
    // Real servers and many runs: seconds alone, more on a loaded two-core machine.
  }, 60_000);
});

describe('model-based interleavings: RedisCheckpointStorage on a real three-master Cluster', () => {
  // This suite's own key prefix on the shared Cluster: each run's storages start on an empty prefix under it.
  const cluster = useSharedRedisCluster();
  const clients: Cluster[] = [];

  beforeAll(() => {
    for (let index = 0; index < connections; index += 1) {
      clients.push(cluster.connect());
    }
  });

  it('every scheduled interleaving over three Cluster clients is linearizable', async () => {
    await fc.assert(
      concurrentModelProperty({
        subscriptionIds,
        createStorages: async () => {
          const prefix = cluster.freshPrefix();
          return clients.map(
            (client) =>
              new RedisCheckpointStorage(client, { keyPrefix: `${prefix}cp:`, versionKeyPrefix: `${prefix}version:` }),
          );
        },
      }),
      { numRuns: 25 },
    );
    // Real servers and many runs: seconds alone, more on a loaded two-core machine.
  }, 60_000);
});
