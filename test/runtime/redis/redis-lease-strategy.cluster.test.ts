import { describe, expect, it } from 'vitest';
import type { Cluster } from 'ioredis';
import { RedisLeaseStrategy } from '../../../runtime/index.js';
import { redisLeaseKeys } from '../../../runtime/store-layout-entry.js';
import { describeCompetingConsumerStrategyConformance } from '../../../runtime/testing/index.js';
import { countingCalls } from '../../support/redis/counting-client.js';
import { useSharedRedisCluster } from '../../support/redis/index.js';

// Every key this suite writes starts with the namespace's prefix, so it shares the run's Cluster with other suites.
const cluster = useSharedRedisCluster();

function connect(): Cluster {
  return cluster.connect();
}

describeCompetingConsumerStrategyConformance('RedisLeaseStrategy on a real three-master Redis Cluster', () => {
  const keyPrefix = cluster.freshPrefix();
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
    const keyPrefix = cluster.freshPrefix();
    const first = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 5_000 });
    const second = new RedisLeaseStrategy(connect(), { keyPrefix, leaseTimeMs: 5_000 });
    for (const id of oddIds) {
      expect(await first.register(id, 'node-a'), id).toBe(true);
      await first.unregister(id, 'node-a');
      expect(await second.register(id, 'node-b'), id).toBe(true);
      expect(second.fencingToken(id), id).toBe(1n);
    }
    await Promise.all([first.shutdown(), second.shutdown()]);
  });
});

describe('RedisLeaseStrategy renewals on a real Redis Cluster', () => {
  it('renews 32 leases in as many slots with one pipeline per master each interval, not one script per lease', async () => {
    const client = connect();
    await client.ping();
    const { client: counting, calls } = countingCalls(client, ['eval', 'pipeline']);
    const strategy = new RedisLeaseStrategy(counting, {
      keyPrefix: cluster.freshPrefix(),
      leaseTimeMs: 900,
      waitForReplicas: false,
    });
    for (let partition = 0; partition < 32; partition += 1) {
      expect(await strategy.register(`orders/${partition}`, 'node-a')).toBe(true);
    }
    calls.set('eval', 0).set('pipeline', 0);
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const [scripts, pipelines] = [calls.get('eval'), calls.get('pipeline') ?? 0];
    // Five intervals of 300 ms, three masters: at most 3 pipelines an interval, never 32 scripts.
    expect(scripts).toBe(0);
    expect(pipelines).toBeGreaterThanOrEqual(3 * 3);
    expect(pipelines).toBeLessThanOrEqual(3 * 6);
    expect(strategy.hasLock('orders/31', 'node-a')).toBe(true);
    await strategy.shutdown();
  });
});
