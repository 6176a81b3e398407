import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Cluster } from 'ioredis';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { CheckpointKeyLayout } from '../../../runtime/redis/checkpoint-key-layout.js';
import { clusterHashSlot } from '../../../runtime/redis/cluster-hash-slot.js';
import { describeCheckpointStorageConformance } from '../../../runtime/testing/index.js';
import { startRedisCluster, type RedisClusterProcess } from '../../support/redis/index.js';
import { clusterAlignableIds, clusterUnalignableIds, slotEdgeIds } from './id-shapes.js';
import { notOlderThanScript } from '../../../runtime/redis/checkpoint-scripts.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;
const layout = new CheckpointKeyLayout('', 'checkpoint-fencing:version:');
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

function connected(): Cluster {
  if (client === undefined) {
    throw new Error('The Redis Cluster of this suite did not start; see the beforeAll error.');
  }
  return client;
}

async function emptied(): Promise<Cluster> {
  const cluster = connected();
  await Promise.all(cluster.nodes('master').map((node) => node.flushall()));
  return cluster;
}

async function keySlot(key: string): Promise<number> {
  return await connected().cluster('KEYSLOT', key);
}

describeCheckpointStorageConformance(
  'RedisCheckpointStorage on a real three-master Redis Cluster (Cluster-safe)',
  async () => new RedisCheckpointStorage(await emptied()),
);

describe('RedisCheckpointStorage on a real three-master Redis Cluster', () => {
  it('computes the hash slot CLUSTER KEYSLOT computes, for every id shape and 300 random ids', async () => {
    const alphabet = ['a', 'b', '{', '}', '-', ':', 'é', '🧾', '注'];
    const random = Array.from({ length: 300 }, () =>
      Array.from(
        { length: Math.floor(Math.random() * 12) },
        () => alphabet[Math.floor(Math.random() * alphabet.length)],
      ).join(''),
    );
    for (const key of [...slotEdgeIds, ...random]) {
      expect(clusterHashSlot(key), `slot of ${JSON.stringify(key)}`).toBe(await keySlot(key));
    }
  });

  it('puts the checkpoint key and version key of every alignable id in one slot, and of the refused shapes in two', async () => {
    for (const id of clusterAlignableIds) {
      const { checkpointKey, versionKey } = layout.keysFor(id);
      expect(await keySlot(versionKey), `version key of ${JSON.stringify(id)}`).toBe(await keySlot(checkpointKey));
    }
    for (const id of clusterUnalignableIds) {
      const { checkpointKey, versionKey } = layout.keysFor(id);
      expect(await keySlot(versionKey), `version key of ${JSON.stringify(id)}`).not.toBe(await keySlot(checkpointKey));
    }
  });

  it('fences a tagged id in its tag slot and keeps separate versions for two ids sharing the tag', async () => {
    const cluster = await emptied();
    const storage = new RedisCheckpointStorage(cluster);
    await storage.save('{tenant}-orders', 'o-1', notOlderThan(7));
    await storage.save('{tenant}-payments', 'p-1', notOlderThan(2));
    await expect(storage.save('{tenant}-orders', 'zombie', notOlderThan(6))).rejects.toMatchObject({
      storedVersion: 7n,
    });
    expect(await storage.writeVersion('{tenant}-orders')).toBe(7n);
    expect(await storage.writeVersion('{tenant}-payments')).toBe(2n);
    const slot = await keySlot('tenant');
    const { versionKey } = layout.keysFor('{tenant}-orders');
    expect([await keySlot('{tenant}-orders'), await keySlot(versionKey)]).toEqual([slot, slot]);
    const keysPerNode = await Promise.all(
      cluster.nodes('master').map((node) => node.cluster('GETKEYSINSLOT', slot, 10)),
    );
    const owner = keysPerNode.filter((keys) => keys.length > 0);
    expect(owner).toHaveLength(1);
    expect(owner[0]).toEqual(expect.arrayContaining(['{tenant}-orders', versionKey]));
  });

  it('refuses the unalignable shapes before sending any command, while any(), read and delete serve them', async () => {
    const cluster = await emptied();
    const storage = new RedisCheckpointStorage(cluster);
    const sent = vi.spyOn(cluster, 'sendCommand');
    try {
      for (const id of clusterUnalignableIds) {
        expect(storage.evaluatesWriteConditionsFor(id)).toBe(false);
        await expect(storage.save(id, 'x', notOlderThan(1))).rejects.toThrow(/Cluster-safe mode.*forStandalone/s);
        await expect(storage.save(id, 'x', ifAbsent())).rejects.toThrow(TypeError);
      }
      expect(sent).not.toHaveBeenCalled();
      await storage.save('{tenant}-orders', 'sent', any());
      expect(sent).toHaveBeenCalledTimes(1);
    } finally {
      sent.mockRestore();
    }
    for (const id of clusterUnalignableIds) {
      await storage.save(id, 'plain', any());
      expect(await storage.read(id)).toBe('plain');
      await storage.delete(id);
      expect(await storage.read(id)).toBeUndefined();
    }
  });

  it('shows why: forStandalone over a Cluster fails loudly with CROSSSLOT for such an id and changes nothing', async () => {
    const cluster = await emptied();
    const standalone = RedisCheckpointStorage.forStandalone(cluster);
    // Under waitForReplicas 'auto' the script goes out in a pipeline with INFO replication, which ioredis refuses
    // before sending when its keys span slots; on its own, Redis refuses it with CROSSSLOT.
    await expect(standalone.save('orders}v2', 'x', notOlderThan(1))).rejects.toThrow(/should belong to the same slot/u);
    const optedOut = RedisCheckpointStorage.forStandalone(cluster, { waitForReplicas: false });
    await expect(optedOut.save('orders}v2', 'x', notOlderThan(1))).rejects.toThrow(/CROSSSLOT/u);
    expect(await standalone.read('orders}v2')).toBeUndefined();
  });

  it('deletes a version key left in another slot by standalone mode, in both modes (split DEL, and DEL retried after CROSSSLOT)', async () => {
    const cluster = await emptied();
    for (const storage of [new RedisCheckpointStorage(cluster), RedisCheckpointStorage.forStandalone(cluster)]) {
      for (const id of clusterUnalignableIds) {
        const { checkpointKey, versionKey } = layout.keysFor(id);
        await cluster.set(checkpointKey, 'migrated');
        await cluster.set(versionKey, '9');
        expect(await storage.writeVersion(id)).toBe(9n);
        await storage.delete(id);
        expect([await cluster.exists(checkpointKey), await cluster.exists(versionKey)]).toEqual([0, 0]);
      }
    }
  });

  it('runs the #!lua script on the slot owner and reloads it after every node lost its script cache (as after a failover)', async () => {
    const cluster = await emptied();
    const storage = new RedisCheckpointStorage(cluster);
    await storage.save('{tenant}-orders', 'a', notOlderThan(1));
    await Promise.all(cluster.nodes('master').map((node) => node.script('FLUSH')));
    await storage.save('{tenant}-orders', 'b', notOlderThan(2));
    const cached = await Promise.all(
      cluster.nodes('master').map((node) => node.script('EXISTS', notOlderThanScript.withShebang.sha1)),
    );
    expect(cached.flat().sort()).toEqual([0, 0, 1]);
    expect(await storage.read('{tenant}-orders')).toBe('b');
  });
});
