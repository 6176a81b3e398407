import type { Cluster } from 'ioredis';
import { useSharedRedisCluster } from '../../support/redis/index.js';
import { describeStoredVersionHardening } from './stored-version-hardening.js';

const cluster = useSharedRedisCluster();
let client: Cluster | undefined;

describeStoredVersionHardening('a real three-master Redis Cluster', async () => {
  client ??= cluster.connect();
  // Every case writes under a prefix of its own, so it starts from an empty keyspace.
  const prefix = cluster.freshPrefix();
  return { client, options: { keyPrefix: `${prefix}cp:`, versionKeyPrefix: `${prefix}version:` } };
});
