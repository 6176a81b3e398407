import { describe, expect, it } from 'vitest';
import type { Cluster } from 'ioredis';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { clusterHashSlot } from '../../../runtime/redis/cluster-hash-slot.js';
import { useSharedRedisCluster } from '../../support/redis/index.js';

// On a Cluster client the storage sends every command on its own (ADR 0103): a pipeline there must stay on one node.
// The only pipelines it makes are the ones that route a master's INFO replication behind a key (ADR 1101).

const shared = useSharedRedisCluster();

/** The commands queued on every pipeline `cluster` makes, one list a pipeline. */
function recordPipelines(cluster: Cluster): string[][] {
  const pipelines: string[][] = [];
  const make = cluster.pipeline.bind(cluster);
  cluster.pipeline = (...args: Parameters<Cluster['pipeline']>) => {
    const pipeline = make(...args);
    const commands: string[] = [];
    pipelines.push(commands);
    return new Proxy(pipeline, {
      get(target, property, receiver): unknown {
        const value: unknown = Reflect.get(target, property, receiver);
        if (typeof value !== 'function' || typeof property !== 'string' || property === 'exec') {
          return value;
        }
        return (...commandArgs: unknown[]): unknown => {
          commands.push(property);
          return (value as (...inner: unknown[]) => unknown).apply(target, commandArgs);
        };
      },
    });
  };
  return pipelines;
}

describe('RedisCheckpointStorage on a real three-master Redis Cluster', () => {
  it('sends concurrent writes over many slots one by one, never as a pipeline, and each lands', async () => {
    const cluster = shared.connect();
    const pipelines = recordPipelines(cluster);
    const storage = new RedisCheckpointStorage(cluster, {
      keyPrefix: `${shared.keyPrefix}cp:`,
      versionKeyPrefix: `${shared.keyPrefix}version:`,
      waitForReplicas: false,
    });
    const ids = Array.from({ length: 60 }, (_, index) => `{tenant-${index}}-orders`);
    await Promise.all(ids.map((id) => storage.save(id, 'cp', CheckpointWriteCondition.notOlderThan(3))));
    await Promise.all(ids.map((id) => storage.save(id, 'cp-2', CheckpointWriteCondition.notOlderThan(4))));
    expect(pipelines).toEqual([]);
    for (const id of ids) {
      expect(await storage.read(id)).toBe('cp-2');
      expect(await storage.writeVersion(id)).toBe(4n);
    }
  });

  it("with waitForReplicas 'auto', counts each slot's master's replicas once through a routed INFO, then sends no WAIT on masters without replicas", async () => {
    const cluster = shared.connect();
    const pipelines = recordPipelines(cluster);
    const storage = new RedisCheckpointStorage(cluster, {
      keyPrefix: `${shared.keyPrefix}cp:`,
      versionKeyPrefix: `${shared.keyPrefix}version:`,
    });
    const ids = Array.from({ length: 20 }, (_, index) => `{auto-${index}}-orders`);
    await Promise.all(ids.map((id) => storage.save(id, 'cp', CheckpointWriteCondition.notOlderThan(3))));
    await Promise.all(ids.map((id) => storage.save(id, 'cp-2', CheckpointWriteCondition.notOlderThan(4))));
    // One [GET, INFO] pipeline per slot on first use, none for the writes, no WAIT anywhere.
    expect(pipelines).toHaveLength(new Set(ids.map((id) => clusterHashSlot(id))).size);
    expect(new Set(pipelines.map((commands) => commands.join(' ')))).toEqual(new Set(['get info']));
    for (const id of ids) {
      expect(await storage.read(id)).toBe('cp-2');
    }
  });
});
