import fc from 'fast-check';
import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { RedisCheckpointStorage } from '../../runtime/index.js';
import {
  startRedisCluster,
  startRedisServer,
  type RedisClusterProcess,
  type RedisServerProcess,
} from '../support/redis/index.js';
import { concurrentModelProperty } from './model-based/run-concurrent-model.js';

// Hash-tagged and plain ids: both shapes Cluster-safe mode fences, spread over different slots.
const subscriptionIds = ['{tenant-a}-orders', '{tenant-a}-payments', 'invoices'];
const connections = 3;

describe('model-based interleavings: RedisCheckpointStorage on a real redis-server', () => {
  let server: RedisServerProcess | undefined;
  const clients: Redis[] = [];

  beforeAll(async () => {
    server = await startRedisServer();
    for (let index = 0; index < connections; index += 1) {
      clients.push(new Redis({ host: server.host, port: server.port }));
    }
  });

  afterAll(async () => {
    for (const client of clients) {
      client.disconnect();
    }
    await server?.stop();
  });

  it('every scheduled interleaving over three connections is linearizable', async () => {
    await fc.assert(
      concurrentModelProperty({
        subscriptionIds,
        createStorages: async () => {
          await clients[0]?.flushall();
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
  let cluster: RedisClusterProcess | undefined;
  const clients: Cluster[] = [];

  beforeAll(async () => {
    cluster = await startRedisCluster();
    for (let index = 0; index < connections; index += 1) {
      clients.push(new Cluster(cluster.nodes.map(({ host, port }) => ({ host, port }))));
    }
  });

  afterAll(async () => {
    for (const client of clients) {
      client.disconnect();
    }
    await cluster?.stop();
  });

  it('every scheduled interleaving over three Cluster clients is linearizable', async () => {
    await fc.assert(
      concurrentModelProperty({
        subscriptionIds,
        createStorages: async () => {
          const [first] = clients;
          if (first !== undefined) {
            await Promise.all(first.nodes('master').map((node) => node.flushall()));
          }
          return clients.map((client) => new RedisCheckpointStorage(client));
        },
      }),
      { numRuns: 25 },
    );
    // Real servers and many runs: seconds alone, more on a loaded two-core machine.
  }, 60_000);
});
