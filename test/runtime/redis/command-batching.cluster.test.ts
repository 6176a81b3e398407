import { Cluster } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { startRedisCluster, type RedisClusterProcess } from '../../support/redis/index.js';

// On a Cluster client the storage sends every command on its own (ADR 0103): a pipeline there must stay on one node.

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

describe('RedisCheckpointStorage on a real three-master Redis Cluster', () => {
  it('sends concurrent writes over many slots one by one, never as a pipeline, and each lands', async () => {
    if (client === undefined) {
      throw new Error('The Redis Cluster of this suite did not start; see the beforeAll error.');
    }
    const cluster = client;
    const pipelines = vi.spyOn(cluster, 'pipeline');
    try {
      const storage = new RedisCheckpointStorage(cluster);
      const ids = Array.from({ length: 60 }, (_, index) => `{tenant-${index}}-orders`);
      await Promise.all(ids.map((id) => storage.save(id, 'cp', CheckpointWriteCondition.notOlderThan(3))));
      await Promise.all(ids.map((id) => storage.save(id, 'cp-2', CheckpointWriteCondition.notOlderThan(4))));
      expect(pipelines).not.toHaveBeenCalled();
      for (const id of ids) {
        expect(await storage.read(id)).toBe('cp-2');
        expect(await storage.writeVersion(id)).toBe(4n);
      }
    } finally {
      pipelines.mockRestore();
    }
  });
});
