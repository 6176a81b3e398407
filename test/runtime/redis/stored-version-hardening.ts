import type { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  RedisCheckpointStorage,
  type RedisCheckpointStorageOptions,
} from '../../../runtime/index.js';
import { RedisDualAnchorCheckpointStore } from '../../../runtime/dual-anchor-entry.js';
import { CheckpointKeyLayout } from '../../../runtime/redis/checkpoint-key-layout.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

/** Stored versions no fenced writer writes: each must stop every conditional write with writeVersion's error. */
const nonCanonicalVersions = ['007', '1e5', 'abc', '-5', ' 9', '9 ', '+5', '00', '', '0x1f', '5.0', '٣'];

/** Canonical stored versions, 0 and beyond 2**64 included, with a version accepted and one refused against each. */
const canonicalVersions = [
  ['0', 0n, undefined],
  ['7', 7n, 6n],
  ['100000', 200000n, 99999n],
  [String(2n ** 64n), 2n ** 64n, 2n ** 64n - 1n],
] as const;

/** A client emptied for one case, and the storage options that keep its keys where the case may write. */
export interface HardeningTarget {
  readonly client: Redis | Cluster;
  readonly options: RedisCheckpointStorageOptions;
}

/**
 * Issue 11 defects 5 and 7 against a real server: a stored version that is not a canonical non-negative decimal is
 * judged by nobody (the Lua compare used to take `"1e5"` for a number below 200 and `"007"` for 7), and a condition
 * is read once before it is sent. `connect` gives an emptied client, standalone or a three-master Cluster, and the
 * storage options for this case's keys.
 */
export function describeStoredVersionHardening(label: string, connect: () => Promise<HardeningTarget>): void {
  /** The storage under test and the layout of its keys. */
  const storageOn = ({ client, options }: HardeningTarget): [RedisCheckpointStorage, CheckpointKeyLayout] => [
    new RedisCheckpointStorage(client, options),
    new CheckpointKeyLayout(options.keyPrefix ?? '', options.versionKeyPrefix ?? 'checkpoint-fencing:version:'),
  ];

  describe(`RedisCheckpointStorage on ${label}: a version key that is not a canonical decimal`, () => {
    for (const bad of nonCanonicalVersions) {
      it(`holding ${JSON.stringify(bad)} stops notOlderThan, ifAbsent and advanceWriteVersion with writeVersion's error, writing nothing`, async () => {
        const target = await connect();
        const { client } = target;
        const [storage, layout] = storageOn(target);
        const keysOf = async (id: string): Promise<[string | null, string | null]> => {
          const { checkpointKey, versionKey } = layout.keysFor(id);
          return [await client.get(checkpointKey), await client.get(versionKey)];
        };
        const id = '{tenant}-orders';
        const { versionKey } = layout.keysFor(id);
        await storage.save(id, 'kept', any());
        await client.set(versionKey, bad);

        const readError: unknown = await storage.writeVersion(id).catch((error: unknown) => error);
        expect(readError).toBeInstanceOf(Error);
        const message = (readError as Error).message;
        expect(message).toContain(JSON.stringify(versionKey));
        expect(message).toContain(`holds ${JSON.stringify(bad)}`);
        expect(message).toMatch(/canonical non-negative decimal/u);

        for (const write of [
          () => storage.save(id, 'moved', notOlderThan(200)),
          () => storage.save(id, 'moved', notOlderThan(2n ** 70n)),
          () => storage.save(id, 'moved', notOlderThan(0)),
          () => storage.save(id, 'moved', ifAbsent()),
          () => storage.advanceWriteVersion(id, 200n),
        ]) {
          const error: unknown = await write().catch((reason: unknown) => reason);
          expect(error).toBeInstanceOf(Error);
          expect((error as Error).message).toBe(message);
          expect(await keysOf(id)).toEqual(['kept', bad]);
        }

        // ifAbsent() on an id with no checkpoint but a bad version key writes nothing either.
        const fresh = '{tenant}-fresh';
        await client.set(layout.keysFor(fresh).versionKey, bad);
        await expect(storage.save(fresh, 'start', ifAbsent())).rejects.toThrow(/canonical non-negative decimal/u);
        expect(await keysOf(fresh)).toEqual([null, bad]);
      });
    }

    it('a canonical version, 0 and beyond 2**64 included, is still judged as before', async () => {
      const target = await connect();
      const [storage, layout] = storageOn(target);
      for (const [stored, accepted, refused] of canonicalVersions) {
        const id = `{tenant}-${stored}`;
        await target.client.set(layout.keysFor(id).versionKey, stored);
        if (refused !== undefined) {
          await expect(storage.save(id, 'stale', notOlderThan(refused))).rejects.toMatchObject({
            storedVersion: BigInt(stored),
          });
        }
        await storage.save(id, 'fresh', notOlderThan(accepted));
        expect(await storage.writeVersion(id)).toBe(accepted);
      }
    });
  });

  describe(`RedisCheckpointStorage on ${label}: a condition is read once`, () => {
    it('a version getter answering 10n, then -5n on every later read, is judged and stored as 10', async () => {
      const target = await connect();
      const [storage, layout] = storageOn(target);
      let reads = 0;
      const shifty = {
        kind: 'notOlderThan',
        get version(): bigint {
          reads += 1;
          return reads === 1 ? 10n : -5n;
        },
      };
      await storage.save('{tenant}-orders', 'cp', shifty as never);
      expect(await target.client.get(layout.keysFor('{tenant}-orders').versionKey)).toBe('10');
      await expect(storage.save('{tenant}-orders', 'stale', notOlderThan(9))).rejects.toMatchObject({
        storedVersion: 10n,
      });
    });
  });
}

const at = new Date('2024-05-01T10:00:00.123Z');

/**
 * Issue 11 defect 5 for `RedisDualAnchorCheckpointStore`: its conditional scripts share the checkpoint scripts' opening
 * lines, so a `writeVersion` field that is not a canonical decimal stops every write under `notOlderThan` and
 * `ifAbsent` with the same clear error, naming the key and the value, and writes nothing; under `any()` the field is
 * never read and stays as it was. `connect` gives an emptied client: ioredis-mock, standalone or a Cluster.
 */
export function describeDualAnchorStoredVersionHardening(
  label: string,
  connect: () => Promise<Redis | Cluster>,
  { luaReadsEmptyAsNil = false }: { readonly luaReadsEmptyAsNil?: boolean } = {},
): void {
  // ioredis-mock's Lua bridge hands a script `false` for an empty string, so there `""` looks like no version at all;
  // the real-server runs cover it.
  const bads = luaReadsEmptyAsNil ? nonCanonicalVersions.filter((bad) => bad !== '') : nonCanonicalVersions;
  describe(`RedisDualAnchorCheckpointStore on ${label}: a writeVersion field that is not a canonical decimal`, () => {
    for (const bad of bads) {
      it(`holding ${JSON.stringify(bad)} stops every conditional write with an error naming the key and the value, writing nothing`, async () => {
        const client = await connect();
        const store = new RedisDualAnchorCheckpointStore(client);
        const key = store.recordKey('orders');
        await store.saveProcessed('orders', 'kept', at, at, notOlderThan(1));
        await client.hset(key, 'writeVersion', bad);
        const before = await client.hgetall(key);

        for (const [write, condition] of [
          ['save', notOlderThan(200)],
          ['saveSeen', notOlderThan(2n ** 70n)],
          ['saveProcessed', notOlderThan(0)],
          ['saveHeartbeat', ifAbsent()],
          ['resetAfterHistoryLost', notOlderThan(200)],
          ['resetAfterHistoryLost', ifAbsent()],
        ] as const) {
          const error: unknown = await conditionalWrite(store, write, condition).catch((reason: unknown) => reason);
          const what = `${write} under ${String(condition)}`;
          expect(error, what).toBeInstanceOf(Error);
          expect(error, what).not.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
          const message = (error as Error).message;
          expect(message, what).toContain(JSON.stringify(key));
          expect(message, what).toContain('"writeVersion"');
          expect(message, what).toContain(`holds ${JSON.stringify(bad)}`);
          expect(message, what).toMatch(/canonical non-negative decimal.*nothing was written/u);
          expect(await client.hgetall(key), what).toEqual(before);
        }

        // Under any() the version is neither judged nor touched.
        await store.saveHeartbeat('orders', new Date(at.getTime() + 1));
        expect(await client.hget(key, 'writeVersion')).toBe(bad);
      });
    }

    it('a canonical version, 0 and beyond 2**64 included, is still judged as before', async () => {
      const client = await connect();
      const store = new RedisDualAnchorCheckpointStore(client);
      for (const [stored, accepted, refused] of canonicalVersions) {
        const streamName = `orders-${stored}`;
        await client.hset(store.recordKey(streamName), 'writeVersion', stored);
        if (refused !== undefined) {
          await expect(
            store.saveProcessed(streamName, 'stale', at, undefined, notOlderThan(refused)),
          ).rejects.toMatchObject({ storedVersion: BigInt(stored) });
        }
        await store.saveProcessed(streamName, 'fresh', at, undefined, notOlderThan(accepted));
        expect(await client.hget(store.recordKey(streamName), 'writeVersion')).toBe(String(accepted));
        expect(await store.findByStreamName(streamName)).toMatchObject({ lastProcessedToken: 'fresh' });
      }
    });
  });
}

/** One write of `store`'s on stream `orders` under `condition`. */
function conditionalWrite(
  store: RedisDualAnchorCheckpointStore,
  write: 'save' | 'saveSeen' | 'saveProcessed' | 'saveHeartbeat' | 'resetAfterHistoryLost',
  condition: CheckpointWriteCondition,
): Promise<void> {
  switch (write) {
    case 'save':
      return store.save(
        {
          streamName: 'orders',
          lastSeenToken: 'moved',
          lastSeenTimestamp: at,
          lastProcessedToken: 'moved',
          lastProcessedTimestamp: at,
          lastHeartbeatTimestamp: at,
          metadata: {},
        },
        condition,
      );
    case 'saveSeen':
      return store.saveSeen('orders', 'moved', at, at, condition);
    case 'saveProcessed':
      return store.saveProcessed('orders', 'moved', at, undefined, condition);
    case 'saveHeartbeat':
      return store.saveHeartbeat('orders', at, condition);
    case 'resetAfterHistoryLost':
      return store.resetAfterHistoryLost('orders', 'fresh', 'kept', at, condition);
  }
}
