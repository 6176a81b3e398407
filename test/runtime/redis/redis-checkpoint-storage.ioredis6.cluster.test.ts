import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster, Redis } from 'ioredis6';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { describeCheckpointStorageConformance } from '../../../runtime/testing/index.js';
import {
  startRedisCluster,
  startRedisServer,
  type RedisClusterProcess,
  type RedisServerProcess,
} from '../../support/redis/index.js';

// ioredis 6 speaks RESP3 by default; the storage must read its script replies the same way as over RESP2.
let server: RedisServerProcess | undefined;
let redisCluster: RedisClusterProcess | undefined;
let standaloneClient: Redis | undefined;
let clusterClient: Cluster | undefined;

beforeAll(async () => {
  [server, redisCluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
  standaloneClient = new Redis({ host: server.host, port: server.port });
  clusterClient = new Cluster([...redisCluster.nodes]);
  const cluster = clusterClient;
  await new Promise<void>((resolve, reject) => {
    cluster.once('ready', resolve);
    cluster.once('error', reject);
  });
});

afterAll(async () => {
  standaloneClient?.disconnect();
  clusterClient?.disconnect();
  await Promise.all([server?.stop(), redisCluster?.stop()]);
});

async function emptiedStandalone(): Promise<Redis> {
  if (standaloneClient === undefined) {
    throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
  }
  await standaloneClient.flushall();
  return standaloneClient;
}

async function emptiedCluster(): Promise<Cluster> {
  if (clusterClient === undefined) {
    throw new Error('The Redis Cluster of this suite did not start; see the beforeAll error.');
  }
  await Promise.all(clusterClient.nodes('master').map((node) => node.flushall()));
  return clusterClient;
}

describeCheckpointStorageConformance(
  'RedisCheckpointStorage over ioredis 6 (RESP3) on a real redis-server',
  async () => new RedisCheckpointStorage(await emptiedStandalone()),
);
describeCheckpointStorageConformance(
  'RedisCheckpointStorage over ioredis 6 (RESP3) on a real Redis Cluster',
  async () => new RedisCheckpointStorage(await emptiedCluster()),
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
