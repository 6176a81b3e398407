import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, Redis } from 'ioredis';
import { RedisCheckpointStorage, RedisLeaseStrategy, redisLeaseKeys } from '../../../runtime/index.js';
import { runThreeNodeTakeover, type TakeoverWorld } from '../../support/leases/three-node-takeover.js';
import {
  startRedisCluster,
  startRedisServer,
  type RedisClusterProcess,
  type RedisServerProcess,
} from '../../support/redis/index.js';

const leaseTimeMs = 600;
let server: RedisServerProcess | undefined;
let cluster: RedisClusterProcess | undefined;
const clients: (Redis | Cluster)[] = [];
let worlds = 0;

beforeAll(async () => {
  [server, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
});

afterAll(async () => {
  for (const client of clients.splice(0)) {
    client.disconnect();
  }
  await Promise.all([server?.stop(), cluster?.stop()]);
});

/** Every node gets its own connection, its own strategy and its own storage, as separate processes would. */
function redisWorld(connect: () => Redis | Cluster): TakeoverWorld {
  worlds += 1;
  const keyPrefix = `takeover-${worlds}:`;
  const checkpointKeyPrefix = `takeover-${worlds}:checkpoint:`;
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
  if (server === undefined) {
    throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
  }
  const client = new Redis({ host: server.host, port: server.port });
  clients.push(client);
  return client;
}

function clustered(): Cluster {
  if (cluster === undefined) {
    throw new Error('The Redis Cluster of this suite did not start; see the beforeAll error.');
  }
  const client = new Cluster([...cluster.nodes]);
  clients.push(client);
  return client;
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
