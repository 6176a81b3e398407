import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { RedisLeaseStrategy, redisLeaseKeys } from '../../../runtime/index.js';
import { describeCompetingConsumerStrategyConformance } from '../../../runtime/testing/index.js';
import { startRedisCluster, type RedisClusterProcess } from '../../support/redis/index.js';

let cluster: RedisClusterProcess | undefined;
const clients: Cluster[] = [];
let prefixes = 0;

beforeAll(async () => {
  cluster = await startRedisCluster();
});

afterAll(async () => {
  for (const client of clients.splice(0)) {
    client.disconnect();
  }
  await cluster?.stop();
});

function connect(): Cluster {
  if (cluster === undefined) {
    throw new Error('The Redis Cluster of this suite did not start; see the beforeAll error.');
  }
  const client = new Cluster([...cluster.nodes]);
  clients.push(client);
  return client;
}

describeCompetingConsumerStrategyConformance('RedisLeaseStrategy on a real three-master Redis Cluster', () => {
  prefixes += 1;
  const keyPrefix = `cluster-lease-test-${prefixes}:`;
  const admin = connect();
  return {
    // Long enough that a reply delayed by a loaded machine still arrives within ¾ of the lease.
    leaseTimeMs: 1_000,
    node: async () => {
      const client = connect();
      // Connect before the case starts, so a register's round trip is not a connection set-up.
      await client.ping();
      return new RedisLeaseStrategy(client, { keyPrefix, leaseTimeMs: 1_000 });
    },
    deleteLease: async (subscriptionId) => {
      await admin.del(redisLeaseKeys(keyPrefix, subscriptionId).lease);
    },
  };
});

describe('RedisLeaseStrategy key slots on a real Redis Cluster', () => {
  const oddIds = [
    'orders',
    '{tenant}-orders',
    '{}orders',
    'a}b{c',
    '}',
    '{',
    '%',
    'orders}v2',
    'заказы-🧾',
    'x'.repeat(500),
  ];

  it('puts each lease and its token counter in one slot, as CLUSTER KEYSLOT computes it, for odd ids', async () => {
    const admin = connect();
    for (const id of oddIds) {
      const keys = redisLeaseKeys('checkpoint-fencing:lease:', id);
      expect(await admin.cluster('KEYSLOT', keys.lease), id).toBe(await admin.cluster('KEYSLOT', keys.token));
    }
  });

  it('takes, hands over and counts the lease of every odd id without CROSSSLOT', async () => {
    const first = new RedisLeaseStrategy(connect(), { keyPrefix: 'odd-ids:', leaseTimeMs: 5_000 });
    const second = new RedisLeaseStrategy(connect(), { keyPrefix: 'odd-ids:', leaseTimeMs: 5_000 });
    for (const id of oddIds) {
      expect(await first.register(id, 'node-a'), id).toBe(true);
      await first.unregister(id, 'node-a');
      expect(await second.register(id, 'node-b'), id).toBe(true);
      expect(second.fencingToken(id), id).toBe(1n);
    }
    await Promise.all([first.shutdown(), second.shutdown()]);
  });
});
