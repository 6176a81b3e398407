import { describe, expect, it } from 'vitest';
import type { Cluster } from 'ioredis';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { useSharedRedisCluster } from '../../support/redis/index.js';

// On a Cluster client the storage sends every command on its own (ADR 0103): a pipeline there must stay on one node.
// The only pipelines it makes are a waiting write's own: under waitForReplicas 'auto' the script and INFO replication
// right behind it on the key's master (ADR 1105), and a WAIT when its master has replicas.

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

  it("with waitForReplicas 'auto', reads each write's master's replicas with INFO right behind it, and sends no WAIT on masters without replicas", async () => {
    const cluster = shared.connect();
    const pipelines = recordPipelines(cluster);
    const storage = new RedisCheckpointStorage(cluster, {
      keyPrefix: `${shared.keyPrefix}cp:`,
      versionKeyPrefix: `${shared.keyPrefix}version:`,
    });
    const ids = Array.from({ length: 20 }, (_, index) => `{auto-${index}}-orders`);
    await Promise.all(ids.map((id) => storage.save(id, 'cp', CheckpointWriteCondition.notOlderThan(3))));
    await Promise.all(ids.map((id) => storage.save(id, 'cp-2', CheckpointWriteCondition.notOlderThan(4))));
    // One [script, INFO] pipeline a write, on its slot's master; no WAIT anywhere, nothing asked before a write.
    expect(pipelines).toHaveLength(2 * ids.length);
    for (const commands of pipelines) {
      expect(commands.join(' ')).toMatch(/^eval(sha)? info$/u);
    }
    for (const id of ids) {
      expect(await storage.read(id)).toBe('cp-2');
    }
  });
});
