import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  FencedCheckpointWriter,
  RedisCheckpointStorage,
  StorageCannotBeFencedError,
} from '../../../runtime/index.js';
import { describeCheckpointStorageConformance } from '../../../runtime/testing/index.js';
import { clusterAlignableIds, clusterUnalignableIds } from './id-shapes.js';
import { recordingRedisMock } from './recording-redis-mock.js';
import { advanceWriteVersionScript, notOlderThanScript } from '../../../runtime/redis/checkpoint-scripts.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;
const sha256 = (text: string): string => createHash('sha256').update(text, 'utf8').digest('hex');
const mockClients = new WeakMap<RedisCheckpointStorage, { disconnect(): void }>();

async function storageOnMock(mode: 'cluster-safe' | 'standalone'): Promise<RedisCheckpointStorage> {
  const { client } = await recordingRedisMock();
  const storage =
    mode === 'standalone' ? RedisCheckpointStorage.forStandalone(client) : new RedisCheckpointStorage(client);
  mockClients.set(storage, client);
  return storage;
}

const teardown = (storage: object): void => {
  mockClients.get(storage as RedisCheckpointStorage)?.disconnect();
};
describeCheckpointStorageConformance(
  'RedisCheckpointStorage on ioredis-mock (Cluster-safe)',
  () => storageOnMock('cluster-safe'),
  { teardown },
);
describeCheckpointStorageConformance(
  'RedisCheckpointStorage.forStandalone on ioredis-mock',
  () => storageOnMock('standalone'),
  { teardown },
);

describe('RedisCheckpointStorage on ioredis-mock', () => {
  it('stores the checkpoint under keyPrefix + id and the version under the Occurrent-compatible version key', async () => {
    const { client } = await recordingRedisMock();
    const storage = new RedisCheckpointStorage(client, { versionKeyPrefix: 'occurrent:checkpoint-version:' });
    await storage.save('{tenant}-orders', 'cp-1', notOlderThan(7));
    await storage.save('orders', 'cp-2', notOlderThan(8));
    expect(await client.get('{tenant}-orders')).toBe('cp-1');
    expect(await client.get(`occurrent:checkpoint-version:{tenant}${sha256('{tenant}-orders')}`)).toBe('7');
    expect(await client.get(`occurrent:checkpoint-version:{orders}${sha256('orders')}`)).toBe('8');

    const prefixed = new RedisCheckpointStorage(client, { keyPrefix: 'app:' });
    await prefixed.save('orders', 'cp-3', notOlderThan(9));
    expect(await client.get('app:orders')).toBe('cp-3');
    expect(await client.get(`checkpoint-fencing:version:{app:orders}${sha256('orders')}`)).toBe('9');
    client.disconnect();
  });

  it('keeps separate versions for two ids that share a hash tag', async () => {
    const storage = await storageOnMock('cluster-safe');
    await storage.save('{tenant}-a', 'a', notOlderThan(5));
    await storage.save('{tenant}-b', 'b', notOlderThan(2));
    expect(await storage.writeVersion('{tenant}-a')).toBe(5n);
    expect(await storage.writeVersion('{tenant}-b')).toBe(2n);
    teardown(storage);
  });

  it('any() is one SET of the checkpoint key and never reads or writes the version key; delete is one DEL of both', async () => {
    const { client, calls } = await recordingRedisMock();
    const storage = new RedisCheckpointStorage(client);
    await storage.save('orders', 'fenced', notOlderThan(4));
    calls.length = 0;
    await storage.save('orders', 'plain', any());
    expect(calls).toEqual([['set', 'orders', 'plain']]);
    expect(await storage.writeVersion('orders')).toBe(4n);
    calls.length = 0;
    await storage.delete('orders');
    expect(calls).toEqual([['del', 'orders', `checkpoint-fencing:version:{orders}${sha256('orders')}`]]);
    client.disconnect();
  });

  it('a conditional write is one EVAL with both keys declared the first time on a storage (it loads the script), then one EVALSHA', async () => {
    const { client, calls } = await recordingRedisMock();
    // Without the INFO replication 'auto' sends in each write's pipeline, which the mock's pipeline cannot carry.
    const storage = new RedisCheckpointStorage(client, { waitForReplicas: false });
    await storage.save('orders', 'cp', notOlderThan(1));
    await storage.save('orders', 'cp', notOlderThan(2));
    const versionKey = `checkpoint-fencing:version:{orders}${sha256('orders')}`;
    const sha = notOlderThanScript.withoutShebang.sha1;
    // No NOSCRIPT round trip on the first write: it sends the script's text, in its place among the storage's calls.
    expect(calls).toEqual([
      ['info', 'server'],
      ['eval', notOlderThanScript.withoutShebang.text, 2, 'orders', versionKey, 'cp', '1'],
      ['evalsha', sha, 2, 'orders', versionKey, 'cp', '2'],
    ]);
    client.disconnect();
  });

  it('a write that must wait for a replica over a pipeline that cannot carry WAIT is refused, none of it sent', async () => {
    const { client } = await recordingRedisMock();
    const executed: string[][] = [];
    // A pipeline with the scripts and INFO but no WAIT: the write must not go out without the WAIT behind it.
    const withoutWait = new Proxy(client, {
      get(object, property, receiver): unknown {
        if (property !== 'pipeline') {
          return Reflect.get(object, property, receiver);
        }
        return () => {
          const queued: string[] = [];
          const pipeline = {
            eval: () => (queued.push('eval'), pipeline),
            evalsha: () => (queued.push('evalsha'), pipeline),
            info: () => (queued.push('info'), pipeline),
            exec: () => {
              executed.push(queued);
              return Promise.resolve(queued.map(() => [null, 'OK']));
            },
          };
          return pipeline;
        };
      },
    });
    const storage = new RedisCheckpointStorage(withoutWait, { waitForReplicas: { replicas: 1, timeoutMs: 10 } });
    await expect(storage.save('orders', 'cp', notOlderThan(1))).rejects.toThrow(
      /^RedisCheckpointStorage cannot wait for replicas .*Nothing was sent\.$/u,
    );
    expect(executed).toEqual([]);
    expect(await client.get('orders')).toBeNull();
    client.disconnect();
  });

  it('compares versions as decimal strings: by length first, exactly above 2**63', async () => {
    const storage = await storageOnMock('cluster-safe');
    await storage.save('orders', 'nine', notOlderThan(9));
    await storage.save('orders', 'ten', notOlderThan(10));
    await expect(storage.save('orders', 'nine-again', notOlderThan(9))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    await storage.save('big', 'a', notOlderThan(2n ** 63n - 2n));
    await storage.save('big', 'b', notOlderThan(2n ** 63n - 1n));
    await storage.save('big', 'c', notOlderThan(2n ** 64n));
    await expect(storage.save('big', 'd', notOlderThan(2n ** 64n - 1n))).rejects.toMatchObject({
      storedVersion: 2n ** 64n,
    });
    expect(await storage.read('big')).toBe('c');
    teardown(storage);
  });

  it('refuses an id inside the reserved version-key prefix from every method, naming the prefix', async () => {
    const { client, calls } = await recordingRedisMock();
    const storage = new RedisCheckpointStorage(client);
    const reserved = 'checkpoint-fencing:version:{orders}abc';
    const message = /reserved versionKeyPrefix "checkpoint-fencing:version:"/;
    await expect(storage.read(reserved)).rejects.toThrow(message);
    await expect(storage.save(reserved, 'x', any())).rejects.toThrow(message);
    await expect(storage.save(reserved, 'x', notOlderThan(1))).rejects.toThrow(message);
    await expect(storage.save(reserved, 'x', ifAbsent())).rejects.toThrow(message);
    await expect(storage.writeVersion(reserved)).rejects.toThrow(message);
    await expect(storage.delete(reserved)).rejects.toThrow(message);
    expect(() => storage.evaluatesWriteConditionsFor(reserved)).toThrow(message);
    expect(() =>
      RedisCheckpointStorage.forStandalone(client, {
        keyPrefix: 'v:',
        versionKeyPrefix: 'v:x',
      }).evaluatesWriteConditionsFor('x1'),
    ).toThrow(TypeError);
    expect(calls).toEqual([]);
    client.disconnect();
  });

  it('refuses a versionKeyPrefix that is empty or holds a brace, and a keyPrefix inside it', async () => {
    const { client } = await recordingRedisMock();
    expect(() => new RedisCheckpointStorage(client, { versionKeyPrefix: '' })).toThrow(TypeError);
    expect(() => new RedisCheckpointStorage(client, { versionKeyPrefix: 'v{1}:' })).toThrow(/free of "\{" and "\}"/);
    expect(() => new RedisCheckpointStorage(client, { versionKeyPrefix: 'v:', keyPrefix: 'v:cp:' })).toThrow(TypeError);
    client.disconnect();
  });

  describe('Cluster-safe mode', () => {
    for (const id of clusterUnalignableIds) {
      it(`refuses conditions for ${JSON.stringify(id)} before sending anything, and still serves any(), read and delete`, async () => {
        const { client, calls } = await recordingRedisMock();
        const storage = new RedisCheckpointStorage(client);
        expect(storage.evaluatesWriteConditions()).toBe(true);
        expect(storage.evaluatesWriteConditionsFor(id)).toBe(false);
        await expect(storage.save(id, 'x', notOlderThan(1))).rejects.toThrow(/forStandalone/);
        await expect(storage.save(id, 'x', ifAbsent())).rejects.toThrow(TypeError);
        expect(calls).toEqual([]);
        await storage.save(id, 'plain', any());
        expect(await storage.read(id)).toBe('plain');
        // ioredis-mock answers DEL with an empty first key by "wrong number of arguments"; real Redis deletes it, and the real-server tests delete "".
        if (id !== '') {
          await storage.delete(id);
          expect(await storage.read(id)).toBeUndefined();
        }
        client.disconnect();
      });
    }

    it('fences ids with a valid tag or without "}"', async () => {
      const storage = await storageOnMock('cluster-safe');
      for (const id of clusterAlignableIds) {
        expect(storage.evaluatesWriteConditionsFor(id)).toBe(true);
        await storage.save(id, 'first', ifAbsent());
        await storage.save(id, 'fenced', notOlderThan(3));
        expect(await storage.writeVersion(id)).toBe(3n);
      }
      teardown(storage);
    });
  });

  it('forStandalone fences every id outside the reserved prefix', async () => {
    const storage = await storageOnMock('standalone');
    for (const id of [...clusterUnalignableIds, ...clusterAlignableIds]) {
      expect(storage.evaluatesWriteConditionsFor(id)).toBe(true);
      await storage.save(id, 'fenced', notOlderThan(3));
      await expect(storage.save(id, 'zombie', notOlderThan(2))).rejects.toMatchObject({ storedVersion: 3n });
      expect(await storage.read(id)).toBe('fenced');
    }
    teardown(storage);
  });

  it('reports a version key holding something other than a decimal, naming the key', async () => {
    const { client } = await recordingRedisMock();
    const storage = new RedisCheckpointStorage(client);
    await client.set(`checkpoint-fencing:version:{orders}${sha256('orders')}`, 'seven');
    await expect(storage.writeVersion('orders')).rejects.toThrow(
      /checkpoint-fencing:version:\{orders\}.* holds "seven"/,
    );
    client.disconnect();
  });
});

describe('RedisCheckpointStorage.advanceWriteVersion on ioredis-mock', () => {
  it('is one script run with both keys declared (EVAL the first time, which loads it) that writes only the version key', async () => {
    const { client, calls } = await recordingRedisMock();
    const storage = new RedisCheckpointStorage(client);
    await storage.save('orders', 'kept', any());
    calls.length = 0;
    await storage.advanceWriteVersion('orders', 6n);
    const versionKey = `checkpoint-fencing:version:{orders}${sha256('orders')}`;
    // waitForReplicas 'auto' reads INFO replication right after the write; the mock lists no replica, so no WAIT.
    expect(calls.filter(([name]) => name !== 'pipeline')).toEqual([
      ['info', 'server'],
      ['eval', advanceWriteVersionScript.withoutShebang.text, 2, 'orders', versionKey, '6'],
      ['info', 'replication'],
    ]);
    expect(await client.get('orders')).toBe('kept');
    expect(await client.get(versionKey)).toBe('6');
    client.disconnect();
  });

  it('compares versions as decimal strings: by length first, exactly above 2**64', async () => {
    const storage = await storageOnMock('cluster-safe');
    await storage.advanceWriteVersion('orders', 10n);
    await expect(storage.advanceWriteVersion('orders', 9n)).rejects.toMatchObject({ storedVersion: 10n });
    await storage.advanceWriteVersion('big', 2n ** 64n);
    await expect(storage.advanceWriteVersion('big', 2n ** 64n - 1n)).rejects.toMatchObject({
      storedVersion: 2n ** 64n,
    });
    expect(await storage.writeVersion('big')).toBe(2n ** 64n);
    expect(await storage.read('big')).toBeUndefined();
    teardown(storage);
  });

  it('in Cluster-safe mode refuses an unalignable id before sending anything; forStandalone advances it', async () => {
    const { client, calls } = await recordingRedisMock();
    const clusterSafe = new RedisCheckpointStorage(client);
    const standalone = RedisCheckpointStorage.forStandalone(client);
    for (const id of clusterUnalignableIds) {
      await expect(clusterSafe.advanceWriteVersion(id, 1n)).rejects.toThrow(/advanceWriteVersion\(1\).*forStandalone/);
    }
    expect(calls).toEqual([]);
    for (const id of clusterUnalignableIds) {
      await standalone.advanceWriteVersion(id, 2n);
      expect(await standalone.writeVersion(id)).toBe(2n);
    }
    client.disconnect();
  });

  it('reads an unexpected script reply as an error, not as a refusal', async () => {
    const { client } = await recordingRedisMock();
    const stranger = Object.assign(Object.create(client) as typeof client, {
      evalsha: async () => 1,
      eval: async () => 1,
    });
    const error: unknown = await new RedisCheckpointStorage(stranger)
      .advanceWriteVersion('orders', 3n)
      .catch((reason: unknown) => reason);
    expect(error).not.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(String(error)).toMatch(/answered 1/);
    client.disconnect();
  });
});

describe('FencedCheckpointWriter over RedisCheckpointStorage', () => {
  it('fences tagged ids and refuses, before writing, an id Cluster-safe mode cannot fence', async () => {
    const { client, calls } = await recordingRedisMock();
    const writer = new FencedCheckpointWriter(new RedisCheckpointStorage(client), { fencingToken: () => 4n });
    await expect(writer.save('orders}v2', 'x')).rejects.toThrow(StorageCannotBeFencedError);
    expect(calls).toEqual([]);
    await writer.save('{orders}v2', 'y');
    expect(await client.get('{orders}v2')).toBe('y');
    client.disconnect();
  });
});

describe('RedisCheckpointStorage reading script replies', () => {
  it('treats an unexpected script reply as an error that says the write may have happened, not as a refusal', async () => {
    const { client } = await recordingRedisMock();
    const stranger = Object.assign(Object.create(client) as typeof client, {
      evalsha: async () => ['accepted', '3'],
      eval: async () => ['accepted', '3'],
    });
    const storage = new RedisCheckpointStorage(stranger);
    const error: unknown = await storage.save('orders', 'x', notOlderThan(3)).catch((reason: unknown) => reason);
    expect(error).not.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(String(error)).toMatch(/answered \["accepted","3"\].*may or may not have happened/);
    client.disconnect();
  });
});
