import { describe, expect, it } from 'vitest';
import { RedisMembership } from '../../../runtime/index.js';
import { describeMembershipConformance } from '../../../runtime/testing/index.js';
import { useSharedRedis, useSharedRedisCluster } from '../../support/redis/index.js';

const redis = useSharedRedis();
// Every key the Cluster suites write starts with a prefix of the namespace's, so they share the run's Cluster.
const cluster = useSharedRedisCluster();
const memberTimeMs = 500;

describeMembershipConformance('RedisMembership on a real redis-server', async () => {
  const client = redis.connect();
  await client.ping();
  return { node: () => new RedisMembership(client, { memberTimeMs }) };
});

describeMembershipConformance('RedisMembership on a real three-master Redis Cluster', async () => {
  const client = cluster.connect();
  await client.ping();
  const keyPrefix = cluster.freshPrefix();
  return { node: () => new RedisMembership(client, { keyPrefix, memberTimeMs }) };
});

describe('RedisMembership keys on a real Redis Cluster', () => {
  it('keeps both keys of a subscription in one slot, whatever braces or characters its name holds', async () => {
    const client = cluster.connect();
    const names = ['orders', '{tenant}-orders', '{}', 'a}b{c', '%7B', 'заказы-🧾', 'x'.repeat(500)];
    for (const [index, subscription] of names.entries()) {
      const keyPrefix = `${cluster.freshPrefix()}${index}:`;
      const member = await new RedisMembership(client, { keyPrefix }).join(subscription, 'node-a', 16);
      expect(
        (await member.heartbeat([3])).members.map((live) => live.owned),
        subscription,
      ).toEqual([[3]]);
      const keys = (await Promise.all(client.nodes('master').map((master) => master.keys(`${keyPrefix}*`)))).flat();
      const slots = await Promise.all(keys.map(async (key) => client.cluster('KEYSLOT', key)));
      expect(keys, subscription).toHaveLength(2);
      expect(new Set(slots).size, subscription).toBe(1);
      await member.leave();
    }
  });
});
