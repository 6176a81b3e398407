import type { Cluster, Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, RedisCheckpointStorage } from '../../../runtime/index.js';
import { CheckpointKeyLayout } from '../../../runtime/redis/checkpoint-key-layout.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;
const layout = new CheckpointKeyLayout('', 'checkpoint-fencing:version:');

/** Version-key values no fenced writer writes: each must stop every conditional write with writeVersion's error. */
const nonCanonicalVersions = ['007', '1e5', 'abc', '-5', ' 9', '9 ', '+5', '00', '', '0x1f', '5.0', '٣'];

/** What a conditional write must leave behind after meeting a bad version key: both keys exactly as they were. */
async function keysOf(client: Redis | Cluster, id: string): Promise<[string | null, string | null]> {
  const { checkpointKey, versionKey } = layout.keysFor(id);
  return [await client.get(checkpointKey), await client.get(versionKey)];
}

/**
 * Issue 11 defects 5 and 7 against a real server: a stored version that is not a canonical non-negative decimal is
 * judged by nobody (the Lua compare used to take `"1e5"` for a number below 200 and `"007"` for 7), and a condition
 * is read once before it is sent. `connect` gives an emptied client: standalone or a three-master Cluster.
 */
export function describeStoredVersionHardening(label: string, connect: () => Promise<Redis | Cluster>): void {
  describe(`RedisCheckpointStorage on ${label}: a version key that is not a canonical decimal`, () => {
    for (const bad of nonCanonicalVersions) {
      it(`holding ${JSON.stringify(bad)} stops notOlderThan, ifAbsent and advanceWriteVersion with writeVersion's error, writing nothing`, async () => {
        const client = await connect();
        const storage = new RedisCheckpointStorage(client);
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
          expect(await keysOf(client, id)).toEqual(['kept', bad]);
        }

        // ifAbsent() on an id with no checkpoint but a bad version key writes nothing either.
        const fresh = '{tenant}-fresh';
        await client.set(layout.keysFor(fresh).versionKey, bad);
        await expect(storage.save(fresh, 'start', ifAbsent())).rejects.toThrow(/canonical non-negative decimal/u);
        expect(await keysOf(client, fresh)).toEqual([null, bad]);
      });
    }

    it('a canonical version, 0 and beyond 2**64 included, is still judged as before', async () => {
      const client = await connect();
      const storage = new RedisCheckpointStorage(client);
      for (const [stored, accepted, refused] of [
        ['0', 0n, undefined],
        ['7', 7n, 6n],
        ['100000', 200000n, 99999n],
        [String(2n ** 64n), 2n ** 64n, 2n ** 64n - 1n],
      ] as const) {
        const id = `{tenant}-${stored}`;
        await client.set(layout.keysFor(id).versionKey, stored);
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
      const client = await connect();
      const storage = new RedisCheckpointStorage(client);
      let reads = 0;
      const shifty = {
        kind: 'notOlderThan',
        get version(): bigint {
          reads += 1;
          return reads === 1 ? 10n : -5n;
        },
      };
      await storage.save('{tenant}-orders', 'cp', shifty as never);
      expect(await client.get(layout.keysFor('{tenant}-orders').versionKey)).toBe('10');
      await expect(storage.save('{tenant}-orders', 'stale', notOlderThan(9))).rejects.toMatchObject({
        storedVersion: 10n,
      });
    });
  });
}
