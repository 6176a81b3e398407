import { Cluster } from 'ioredis';
import { afterAll, beforeAll } from 'vitest';
import { startRedisCluster, type RedisClusterProcess } from '../../support/redis/index.js';
import { describeStoredVersionHardening } from './stored-version-hardening.js';

let redisCluster: RedisClusterProcess | undefined;
let client: Cluster | undefined;

beforeAll(async () => {
  redisCluster = await startRedisCluster();
  client = new Cluster([...redisCluster.nodes]);
  const ready = client;
  await new Promise<void>((resolve, reject) => {
    ready.once('ready', resolve);
    ready.once('error', reject);
  });
});

afterAll(async () => {
  client?.disconnect();
  await redisCluster?.stop();
});

describeStoredVersionHardening('a real three-master Redis Cluster', async () => {
  if (client === undefined) {
    throw new Error('The Redis Cluster of this suite did not start; see the beforeAll error.');
  }
  await Promise.all(client.nodes('master').map((node) => node.flushall()));
  return client;
});
