import type { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import { CheckpointKeyLayout, redisLeaseKeys } from '../../runtime/store-layout-entry.js';
import { useSharedRedis, useSharedRedisCluster } from '../support/redis/index.js';
import { builtBin, jsonRows, runCli, textRows } from './support/operator-cli.js';

// The states only a Cluster has, built on purpose on the shared three-master Cluster under the suite's own prefixes:
// an id Cluster cannot align, and the version key a standalone server's forStandalone storage left behind when its
// keys were moved into the Cluster. Subscriptions on every master, found by SCAN on each.

const cluster = useSharedRedisCluster();
const standalone = useSharedRedis();
const { notOlderThan, any } = CheckpointWriteCondition;
const prefix = `${cluster.keyPrefix}operator:`;
const keyPrefix = `${prefix}cp:`;
const versionKeyPrefix = `${prefix}version:`;
const leaseKeyPrefix = `${prefix}lease:`;
const layout = new CheckpointKeyLayout(keyPrefix, versionKeyPrefix);
const strategies: RedisLeaseStrategy[] = [];
let admin: Cluster;
let store: string[];
/** One id on each master, by the slot of its checkpoint key. */
const perMaster: string[] = [];

const expectedFlags: Record<string, readonly string[]> = {
  healthy: [],
  stuck: ['stuck'],
  'unaligned}a': ['unfenceable'],
  'moved}v2': ['unfenceable', 'stray-version'],
};

beforeAll(async () => {
  builtBin();
  admin = cluster.connect();
  const [seed] = cluster.nodes;
  store = [
    '--cluster',
    '--redis',
    `redis://${seed?.host ?? ''}:${seed?.port ?? 0}`,
    '--key-prefix',
    keyPrefix,
    '--version-key-prefix',
    versionKeyPrefix,
    '--lease-key-prefix',
    leaseKeyPrefix,
  ];
  const storage = new RedisCheckpointStorage(admin, { keyPrefix, versionKeyPrefix });
  const node = new RedisLeaseStrategy(cluster.connect(), { keyPrefix: leaseKeyPrefix, leaseTimeMs: 120_000 });
  strategies.push(node);

  await node.register('healthy', 'node-a');
  await storage.save('healthy', 'cp-healthy', notOlderThan(node.fencingToken('healthy') ?? -1n));

  await node.raiseFencingTokenAbove('stuck', 4n);
  await node.register('stuck', 'node-a');
  await storage.save('stuck', 'cp-stuck', notOlderThan(5n));
  expect(await admin.del(redisLeaseKeys(leaseKeyPrefix, 'stuck').token)).toBe(1);

  // Cluster-safe mode writes any() for an id it cannot fence; nothing else.
  await storage.save('unaligned}a', 'cp-unaligned', any());

  // Written on a standalone server through forStandalone, then its two keys moved into the Cluster as they were.
  const before: Redis = standalone.connect();
  await RedisCheckpointStorage.forStandalone(before, { keyPrefix, versionKeyPrefix }).save(
    'moved}v2',
    'cp-moved',
    notOlderThan(3n),
  );
  for (const key of Object.values(layout.keysFor('moved}v2')).filter((value) => typeof value === 'string')) {
    const dump = await before.dumpBuffer(key);
    expect(dump).not.toBeNull();
    await admin.restore(key, 0, dump);
  }
  await node.raiseFencingTokenAbove('moved}v2', 3n);
  await node.register('moved}v2', 'node-a');

  const ranges = [
    [0, 5_460],
    [5_461, 10_922],
    [10_923, 16_383],
  ] as const;
  for (let candidate = 0; perMaster.length < ranges.length; candidate += 1) {
    const id = `spread-${candidate}`;
    const slot = await admin.cluster('KEYSLOT', layout.keysFor(id).checkpointKey);
    const [low, high] = ranges[perMaster.length] ?? [0, 0];
    if (slot >= low && slot <= high) {
      perMaster.push(id);
      await node.register(id, 'node-a');
      await storage.save(id, `cp-${id}`, notOlderThan(node.fencingToken(id) ?? -1n));
    }
  }
}, 180_000);

afterAll(async () => {
  await Promise.all(strategies.map((strategy) => strategy.shutdown()));
});

describe('inspect --cluster on a real three-master Redis Cluster', { timeout: 60_000 }, () => {
  it('scans every master and flags exactly the state each subscription was put in', async () => {
    const run = await runCli(['inspect', ...store, '--json']);
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    const rows = jsonRows(run);
    expect(Object.fromEntries(rows.map((row) => [row.id, row.flags]))).toEqual({
      ...expectedFlags,
      ...Object.fromEntries(perMaster.map((id) => [id, []])),
    });
    expect(rows.find((row) => row.id === 'moved}v2')).toMatchObject({ checkpoint: 'cp-moved', storedVersion: '3' });

    const text = await runCli(['inspect', ...store]);
    const table = textRows(text);
    for (const [id, flags] of Object.entries(expectedFlags)) {
      expect(table.get(id)?.at(-1), id).toBe(flags.length === 0 ? '-' : flags.join(','));
    }
    expect(text.stdout).toMatch(
      /^7 subscriptions, 3 flagged \(stuck 1, unfenceable 2, stray-version 1\); \d+ keys scanned on 3 masters \(redis:\/\/127\.0\.0\.1:\d+, \d+\.\d s\)$/mu,
    );
  });

  it('repairs a stuck subscription and resets one whose keys sit in two slots once its lease is gone, through the Cluster', async () => {
    const repaired = await runCli(['repair', 'stuck', '--raise-token', '--yes', ...store]);
    expect(repaired).toMatchObject({ status: 0, stderr: '' });
    expect(await admin.get(redisLeaseKeys(leaseKeyPrefix, 'stuck').token)).toBe('5');

    const { checkpointKey, versionKey } = layout.keysFor('moved}v2');
    expect(await admin.cluster('KEYSLOT', checkpointKey)).not.toBe(await admin.cluster('KEYSLOT', versionKey));
    const refused = await runCli(['reset', 'moved}v2', '--yes', ...store]);
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^checkpoint-fencing reset: "moved\}v2" has a live lease /u);
    expect(await admin.exists(checkpointKey)).toBe(1);
    // Its consumers moved to a tagged id and stopped.
    await strategies[0]?.unregister('moved}v2', 'node-a');
    const reset = await runCli(['reset', 'moved}v2', '--yes', ...store]);
    expect(reset.status).toBe(0);
    expect(reset.stdout).toBe(
      `deleted keys "${checkpointKey}" and "${versionKey}": the checkpoint and version of "moved}v2" are gone.\n`,
    );
    expect(await admin.exists(checkpointKey)).toBe(0);
    expect(await admin.exists(versionKey)).toBe(0);

    const after = await runCli(['inspect', ...store, '--json', 'stuck', 'moved}v2']);
    expect(jsonRows(after).map((row) => [row.id, row.flags, row.checkpoint])).toEqual([
      ['stuck', [], 'cp-stuck'],
      ['moved}v2', ['unfenceable', 'expired-lease'], null],
    ]);
  });
});
