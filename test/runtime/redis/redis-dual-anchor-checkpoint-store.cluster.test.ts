import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Cluster } from 'ioredis';
import { Cluster as Cluster6 } from 'ioredis6';
import { CheckpointWriteCondition } from '../../../runtime/index.js';
import { RedisDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { dualAnchorNotOlderThanScript } from '../../../runtime/redis/dual-anchor-scripts.js';
import { describeDualAnchorCheckpointStoreConformance } from '../../../runtime/testing/index.js';
import { startRedisCluster, type RedisClusterProcess } from '../../support/redis/index.js';
import { slotEdgeIds } from './id-shapes.js';
import { describeDualAnchorStoredVersionHardening } from './stored-version-hardening.js';

const { notOlderThan, ifAbsent } = CheckpointWriteCondition;
const at = new Date('2024-05-01T10:00:00.123Z');
let redisCluster: RedisClusterProcess | undefined;
let client: Cluster | undefined;
let client6: Cluster6 | undefined;

beforeAll(async () => {
  redisCluster = await startRedisCluster();
  client = new Cluster([...redisCluster.nodes]);
  client6 = new Cluster6([...redisCluster.nodes]);
  await Promise.all(
    [client, client6].map(
      (ready) =>
        new Promise<void>((resolve, reject) => {
          ready.once('ready', resolve);
          ready.once('error', reject);
        }),
    ),
  );
});

afterAll(async () => {
  client?.disconnect();
  client6?.disconnect();
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

async function emptied6(): Promise<Cluster6> {
  await emptied();
  if (client6 === undefined) {
    throw new Error('The Redis Cluster of this suite did not start; see the beforeAll error.');
  }
  return client6;
}

describeDualAnchorCheckpointStoreConformance(
  'RedisDualAnchorCheckpointStore on a real three-master Redis Cluster',
  async () => new RedisDualAnchorCheckpointStore(await emptied()),
);
describeDualAnchorCheckpointStoreConformance(
  'RedisDualAnchorCheckpointStore over ioredis 6 (RESP3) on a real three-master Redis Cluster',
  async () => new RedisDualAnchorCheckpointStore(await emptied6()),
);

describeDualAnchorStoredVersionHardening('a real three-master Redis Cluster', emptied);

describe('RedisDualAnchorCheckpointStore on a real three-master Redis Cluster', () => {
  it('fences every stream-name shape, those RedisCheckpointStorage cannot align included: one key, one slot', async () => {
    const cluster = await emptied();
    const store = new RedisDualAnchorCheckpointStore(cluster);
    for (const streamName of slotEdgeIds.filter((id) => id !== '')) {
      await store.saveSeen(streamName, 'seen', at, at, ifAbsent());
      await store.saveProcessed(streamName, 'processed', at, undefined, notOlderThan(4));
      await store.resetAfterHistoryLost(streamName, 'fresh', 'processed', at, notOlderThan(4));
      await expect(store.saveHeartbeat(streamName, at, notOlderThan(3)), streamName).rejects.toMatchObject({
        storedVersion: 4n,
      });
      expect(await store.findByStreamName(streamName), streamName).toMatchObject({
        lastSeenToken: 'fresh',
        lastProcessedToken: null,
      });
      const key = store.recordKey(streamName);
      const slot = await cluster.cluster('KEYSLOT', key);
      const owners = await Promise.all(cluster.nodes('master').map((node) => node.cluster('COUNTKEYSINSLOT', slot)));
      expect(
        owners.filter((count) => count > 0),
        streamName,
      ).toHaveLength(1);
    }
  });

  it('spreads streams over the masters and reloads the #!lua script after every node lost its script cache', async () => {
    const cluster = await emptied();
    const store = new RedisDualAnchorCheckpointStore(cluster);
    const names = Array.from({ length: 30 }, (_, index) => `stream-${index}`);
    for (const name of names) {
      await store.saveProcessed(name, 'a', at, at, notOlderThan(1));
    }
    await Promise.all(cluster.nodes('master').map((node) => node.script('FLUSH')));
    for (const name of names) {
      await store.saveProcessed(name, 'b', at, at, notOlderThan(2));
    }
    const cached = await Promise.all(
      cluster.nodes('master').map((node) => node.script('EXISTS', dualAnchorNotOlderThanScript.withShebang.sha1)),
    );
    expect(cached.flat()).toEqual([1, 1, 1]);
    for (const name of names) {
      expect(await store.findByStreamName(name)).toMatchObject({ lastProcessedToken: 'b' });
    }
  });
});
