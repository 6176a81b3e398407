import { Cluster, Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CheckpointWriteCondition, InMemoryCheckpointStorage, RedisCheckpointStorage } from '../../runtime/index.js';
import {
  startRedisCluster,
  startRedisServer,
  type RedisClusterProcess,
  type RedisServerProcess,
} from '../support/redis/index.js';
import { badFactoryVersions } from './bad-input/bad-storage-calls.js';
import { describeBadInput, type StorageUnderTest } from './bad-input/describe-bad-input.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;

function describeRedisIdShapes(name: string, target: StorageUnderTest & { readonly clusterSafe: boolean }): void {
  describe(`${name}: Redis id shapes`, () => {
    const keyCount = async (): Promise<number> => {
      if (target.storedKeys === undefined) {
        throw new Error('A Redis target must count its keys.');
      }
      return target.storedKeys();
    };

    it('refuses an id inside the reserved version-key prefix from every method, writing nothing', async () => {
      const storage = await target.create();
      const reserved = 'checkpoint-fencing:version:{orders}0123';
      const calls: (() => unknown)[] = [
        () => storage.read(reserved),
        () => storage.writeVersion(reserved),
        () => storage.delete(reserved),
        () => storage.save(reserved, 'x', any()),
        () => storage.save(reserved, 'x', notOlderThan(1)),
        () => storage.save(reserved, 'x', ifAbsent()),
        () => storage.evaluatesWriteConditionsFor?.(reserved),
      ];
      for (const call of calls) {
        await expect((async () => call())()).rejects.toThrow(/reserved versionKeyPrefix/);
      }
      expect(await keyCount()).toBe(0);
    });

    // The shapes whose two keys Cluster cannot put in one slot: no hash tag, and empty or holding "}".
    for (const id of ['', '{}orders', 'a}b{c', 'orders}v2']) {
      it(`${target.clusterSafe ? 'refuses' : 'fences'} notOlderThan and ifAbsent for the unalignable id ${JSON.stringify(id)}`, async () => {
        const storage = await target.create();
        if (target.clusterSafe) {
          expect(storage.evaluatesWriteConditionsFor?.(id)).toBe(false);
          await expect(storage.save(id, 'x', notOlderThan(1))).rejects.toThrow(/Nothing was sent to Redis/);
          await expect(storage.save(id, 'x', ifAbsent())).rejects.toThrow(/Nothing was sent to Redis/);
          expect(await keyCount()).toBe(0);
        } else {
          expect(storage.evaluatesWriteConditionsFor?.(id)).toBe(true);
          await storage.save(id, 'x', notOlderThan(5));
          await expect(storage.save(id, 'y', notOlderThan(4))).rejects.toMatchObject({ storedVersion: 5n });
          expect(await storage.read(id)).toBe('x');
          expect(await keyCount()).toBe(2);
        }
      });
    }

    it('keeps ids that differ only after a NUL, a newline or a CRLF apart, each in exactly two keys', async () => {
      const storage = await target.create();
      const ids = ['{t}a', '{t}a\0b', '{t}a\0c', '{t}a\nb', '{t}a\r\nb', '{t}a\0'];
      for (const [index, id] of ids.entries()) {
        await storage.save(id, `cp\0${index}\n`, notOlderThan(index + 10));
      }
      for (const [index, id] of ids.entries()) {
        expect(await storage.read(id), JSON.stringify(id)).toBe(`cp\0${index}\n`);
        expect(await storage.writeVersion(id), JSON.stringify(id)).toBe(BigInt(index + 10));
      }
      expect(await keyCount()).toBe(2 * ids.length);
      await storage.delete('{t}a\0b');
      expect(await storage.read('{t}a\0b')).toBeUndefined();
      expect(await storage.read('{t}a\0c')).toBe('cp\x002\n');
      expect(await keyCount()).toBe(2 * ids.length - 2);
    });

    it('fences, reads and deletes a 1 MB id and a 1 MB checkpoint, leaving no key behind', async () => {
      const storage = await target.create();
      const id = `{big}${'x'.repeat(1024 * 1024)}`;
      const checkpoint = 'c'.repeat(1024 * 1024);
      await storage.save(id, checkpoint, notOlderThan(2));
      await expect(storage.save(id, 'stale', notOlderThan(1))).rejects.toMatchObject({ storedVersion: 2n });
      expect(await storage.read(id)).toBe(checkpoint);
      expect(await storage.read(id.slice(0, -1))).toBeUndefined();
      expect(await keyCount()).toBe(2);
      await storage.delete(id);
      expect(await keyCount()).toBe(0);
    });
  });
}

describe('bad versions given to the condition factory', () => {
  for (const version of badFactoryVersions) {
    const shown =
      typeof version === 'bigint'
        ? `${version}n`
        : typeof version === 'string'
          ? JSON.stringify(version)
          : String(version);
    it(`notOlderThan(${shown}) throws a RangeError`, () => {
      expect(() => CheckpointWriteCondition.notOlderThan(version as never)).toThrow(RangeError);
    });
  }
});

describeBadInput('InMemoryCheckpointStorage', InMemoryCheckpointStorage.prototype, {
  create: async () => new InMemoryCheckpointStorage({ comparePositions: (a, b) => a.localeCompare(b) }),
});

describe('Redis storages', () => {
  let server: RedisServerProcess | undefined;
  let client: Redis | undefined;
  let cluster: RedisClusterProcess | undefined;
  let clusterClient: Cluster | undefined;

  beforeAll(async () => {
    [server, cluster] = await Promise.all([startRedisServer(), startRedisCluster()]);
    client = new Redis({ host: server.host, port: server.port });
    clusterClient = new Cluster(cluster.nodes.map(({ host, port }) => ({ host, port })));
  });

  afterAll(async () => {
    client?.disconnect();
    clusterClient?.disconnect();
    await Promise.all([server?.stop(), cluster?.stop()]);
  });

  const standalone = (): Redis => {
    if (client === undefined) {
      throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
    }
    return client;
  };
  const clustered = (): Cluster => {
    if (clusterClient === undefined) {
      throw new Error('The Redis Cluster of this suite did not start; see the beforeAll error.');
    }
    return clusterClient;
  };
  const standaloneKeys = async (): Promise<number> => standalone().dbsize();
  const clusterKeys = async (): Promise<number> => {
    const sizes = await Promise.all(
      clustered()
        .nodes('master')
        .map((node) => node.dbsize()),
    );
    return sizes.reduce((sum, size) => sum + size, 0);
  };
  const targets = {
    clusterSafe: {
      create: async () => {
        await standalone().flushall();
        return new RedisCheckpointStorage(standalone());
      },
      storedKeys: standaloneKeys,
      clusterSafe: true,
    },
    forStandalone: {
      create: async () => {
        await standalone().flushall();
        return RedisCheckpointStorage.forStandalone(standalone());
      },
      storedKeys: standaloneKeys,
      clusterSafe: false,
    },
    onCluster: {
      create: async () => {
        await Promise.all(
          clustered()
            .nodes('master')
            .map((node) => node.flushall()),
        );
        return new RedisCheckpointStorage(clustered());
      },
      storedKeys: clusterKeys,
      clusterSafe: true,
    },
  };

  describeBadInput(
    'RedisCheckpointStorage on a real redis-server',
    RedisCheckpointStorage.prototype,
    targets.clusterSafe,
  );
  describeBadInput(
    'RedisCheckpointStorage.forStandalone on a real redis-server',
    RedisCheckpointStorage.prototype,
    targets.forStandalone,
  );
  describeBadInput(
    'RedisCheckpointStorage on a real three-master Cluster',
    RedisCheckpointStorage.prototype,
    targets.onCluster,
  );
  describeRedisIdShapes('RedisCheckpointStorage on a real redis-server', targets.clusterSafe);
  describeRedisIdShapes('RedisCheckpointStorage.forStandalone on a real redis-server', targets.forStandalone);
  describeRedisIdShapes('RedisCheckpointStorage on a real three-master Cluster', targets.onCluster);

  it('refuses bad key prefixes at construction, before any command is sent', async () => {
    await standalone().flushall();
    expect(() => new RedisCheckpointStorage(standalone(), { versionKeyPrefix: '' })).toThrow(TypeError);
    expect(() => new RedisCheckpointStorage(standalone(), { versionKeyPrefix: 'v{1}:' })).toThrow(TypeError);
    expect(() =>
      RedisCheckpointStorage.forStandalone(standalone(), { versionKeyPrefix: 'v:', keyPrefix: 'v:cp:' }),
    ).toThrow(TypeError);
    expect(await standalone().dbsize()).toBe(0);
  });
});
