import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, Redis } from 'ioredis6';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { describeCheckpointStorageConformance } from '../../../runtime/testing/index.js';
import { useSharedRedis, useSharedRedisCluster } from '../../support/redis/index.js';

// ioredis 6 speaks RESP3 by default; the storage must read its script replies the same way as over RESP2.
// The suite's own database on the shared redis-server and its own key prefix on the shared Cluster keep it apart
// from the suites running beside it.
const server = useSharedRedis();
const cluster = useSharedRedisCluster();
let standaloneClient: Redis | undefined;
let clusterClient: Cluster | undefined;

beforeAll(async () => {
  standaloneClient = new Redis({ host: server.host, port: server.port, db: server.database });
  clusterClient = new Cluster([...cluster.nodes]);
  const ready = clusterClient;
  await new Promise<void>((resolve, reject) => {
    ready.once('ready', resolve);
    ready.once('error', reject);
  });
});

afterAll(() => {
  standaloneClient?.disconnect();
  clusterClient?.disconnect();
});

async function emptiedStandalone(): Promise<Redis> {
  if (standaloneClient === undefined) {
    throw new Error('The redis-server client of this suite was not created; see the beforeAll error.');
  }
  await server.flush();
  return standaloneClient;
}

/** A storage on the Cluster under a key prefix no other case used, so it starts empty. */
function clusterStorage(): RedisCheckpointStorage {
  if (clusterClient === undefined) {
    throw new Error('The Redis Cluster client of this suite was not created; see the beforeAll error.');
  }
  const prefix = cluster.freshPrefix();
  return new RedisCheckpointStorage(clusterClient, {
    keyPrefix: `${prefix}cp:`,
    versionKeyPrefix: `${prefix}version:`,
  });
}

describeCheckpointStorageConformance(
  'RedisCheckpointStorage over ioredis 6 (RESP3) on a real redis-server',
  async () => new RedisCheckpointStorage(await emptiedStandalone()),
);
describeCheckpointStorageConformance(
  'RedisCheckpointStorage over ioredis 6 (RESP3) on a real Redis Cluster',
  async () => clusterStorage(),
);

describe('RedisCheckpointStorage over ioredis 6', () => {
  it('talks RESP3 and decides versions beyond 2**63 exactly', async () => {
    const client = await emptiedStandalone();
    expect(String(await client.call('CLIENT', 'INFO'))).toMatch(/\bresp=3\b/);
    const storage = new RedisCheckpointStorage(client);
    await storage.save('{tenant}-orders', 'older', CheckpointWriteCondition.notOlderThan(2n ** 63n - 2n));
    await storage.save('{tenant}-orders', 'newer', CheckpointWriteCondition.notOlderThan(2n ** 63n - 1n));
    await expect(storage.save('{tenant}-orders', 'stale', CheckpointWriteCondition.ifAbsent())).rejects.toMatchObject({
      storedVersion: 2n ** 63n - 1n,
    });
    expect(await storage.writeVersion('{tenant}-orders')).toBe(2n ** 63n - 1n);
  });
});
