import { describe, expect, it, vi } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { useSharedRedisCluster } from '../../support/redis/index.js';

// On a Cluster client the storage sends every command on its own (ADR 0103): a pipeline there must stay on one node.

const shared = useSharedRedisCluster();

describe('RedisCheckpointStorage on a real three-master Redis Cluster', () => {
  it('sends concurrent writes over many slots one by one, never as a pipeline, and each lands', async () => {
    const cluster = shared.connect();
    const pipelines = vi.spyOn(cluster, 'pipeline');
    try {
      const storage = new RedisCheckpointStorage(cluster, {
        keyPrefix: `${shared.keyPrefix}cp:`,
        versionKeyPrefix: `${shared.keyPrefix}version:`,
      });
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
