import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Redis } from 'ioredis';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  RedisCheckpointStorage,
} from '../../../runtime/index.js';
import { describeCheckpointStorageConformance } from '../../../runtime/testing/index.js';
import { startRedisServer, type RedisServerProcess } from '../../support/redis/index.js';
import { clusterAlignableIds, clusterUnalignableIds } from './id-shapes.js';
import { ifAbsentScript, notOlderThanScript } from '../../../runtime/redis/checkpoint-scripts.js';

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;
let server: RedisServerProcess | undefined;
let client: Redis | undefined;
const extraClients: Redis[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis({ host: server.host, port: server.port });
});

afterAll(async () => {
  for (const extra of extraClients) {
    extra.disconnect();
  }
  client?.disconnect();
  await server?.stop();
});

function connected(): Redis {
  if (client === undefined) {
    throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
  }
  return client;
}

async function emptied(): Promise<Redis> {
  await connected().flushall();
  return connected();
}

describeCheckpointStorageConformance(
  'RedisCheckpointStorage on a real redis-server (Cluster-safe)',
  async () => new RedisCheckpointStorage(await emptied()),
);
describeCheckpointStorageConformance('RedisCheckpointStorage.forStandalone on a real redis-server', async () =>
  RedisCheckpointStorage.forStandalone(await emptied()),
);

describe('RedisCheckpointStorage on a real redis-server', () => {
  it('decides notOlderThan(2**63 - 1) against a stored 2**63 - 2 exactly, and the reverse', async () => {
    const storage = new RedisCheckpointStorage(await emptied());
    await storage.save('orders', 'older', notOlderThan(2n ** 63n - 2n));
    await storage.save('orders', 'newer', notOlderThan(2n ** 63n - 1n));
    await expect(storage.save('orders', 'stale', notOlderThan(2n ** 63n - 2n))).rejects.toMatchObject({
      storedVersion: 2n ** 63n - 1n,
    });
    expect(await storage.read('orders')).toBe('newer');
    expect(await storage.writeVersion('orders')).toBe(2n ** 63n - 1n);
  });

  it('runs the #!lua variants of both scripts on Redis 7, and reloads them with EVAL after SCRIPT FLUSH', async () => {
    const redis = await emptied();
    expect(await redis.info('server')).toMatch(/^redis_version:7\./m);
    const storage = new RedisCheckpointStorage(redis);
    await redis.script('FLUSH');
    await storage.save('orders', 'pinned', ifAbsent());
    await storage.save('orders', 'fenced', notOlderThan(1));
    const shas = [
      ifAbsentScript.withShebang.sha1,
      notOlderThanScript.withShebang.sha1,
      notOlderThanScript.withoutShebang.sha1,
    ];
    expect(await redis.script('EXISTS', ...shas)).toEqual([1, 1, 0]);
    await redis.script('FLUSH');
    await storage.save('orders', 'after-flush', notOlderThan(2));
    expect(await storage.read('orders')).toBe('after-flush');
    expect(await redis.script('EXISTS', notOlderThanScript.withShebang.sha1)).toEqual([1]);
  });

  it('ifAbsent() never writes the version key and refuses a second write of the same value', async () => {
    const redis = await emptied();
    const storage = new RedisCheckpointStorage(redis);
    await storage.save('{tenant}-orders', 'start', ifAbsent());
    expect(await redis.dbsize()).toBe(1);
    await expect(storage.save('{tenant}-orders', 'start', ifAbsent())).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    expect(await redis.get('{tenant}-orders')).toBe('start');
  });

  it('deleteCheckpointKeepingVersion deletes the checkpoint key only: the version goes on fencing, ifAbsent() is accepted', async () => {
    const redis = await emptied();
    const storage = new RedisCheckpointStorage(redis);
    await storage.save('{tenant}-orders', '9', notOlderThan(7n));
    await storage.deleteCheckpointKeepingVersion('{tenant}-orders');
    expect(await redis.dbsize()).toBe(1);
    expect(await storage.read('{tenant}-orders')).toBeUndefined();
    expect(await storage.writeVersion('{tenant}-orders')).toBe(7n);
    await expect(storage.save('{tenant}-orders', 'zombie', notOlderThan(6n))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    await expect(storage.save('{tenant}-orders', 'start', ifAbsent())).resolves.toBe('start');
    expect(await storage.writeVersion('{tenant}-orders')).toBe(7n);
  });

  it('Cluster-safe mode refuses the unalignable id shapes before sending a command; forStandalone fences and deletes them', async () => {
    const redis = await emptied();
    const clusterSafe = new RedisCheckpointStorage(redis);
    const standalone = RedisCheckpointStorage.forStandalone(redis);
    const sent = vi.spyOn(redis, 'sendCommand');
    try {
      for (const id of clusterUnalignableIds) {
        await expect(clusterSafe.save(id, 'x', notOlderThan(1))).rejects.toThrow(/forStandalone/);
        await expect(clusterSafe.save(id, 'x', ifAbsent())).rejects.toThrow(TypeError);
      }
      expect(sent).not.toHaveBeenCalled();
      await clusterSafe.save('spy-probe', 'sent', any());
      expect(sent).toHaveBeenCalledTimes(1);
    } finally {
      sent.mockRestore();
    }
    await clusterSafe.delete('spy-probe');
    for (const id of [...clusterUnalignableIds, ...clusterAlignableIds]) {
      await standalone.save(id, 'pinned', ifAbsent());
      await standalone.save(id, 'fenced', notOlderThan(5));
      await expect(standalone.save(id, 'zombie', notOlderThan(4))).rejects.toMatchObject({ storedVersion: 5n });
      await clusterSafe.save(id, 'plain', any());
      expect(await clusterSafe.read(id)).toBe('plain');
      await clusterSafe.delete(id);
      expect(await standalone.read(id)).toBeUndefined();
      expect(await standalone.writeVersion(id)).toBeUndefined();
    }
    expect(await redis.dbsize()).toBe(0);
  });

  it('8 clients × 1,000 writes with shuffled tokens end at the highest token, and no read ever sees the version go down', async () => {
    await emptied();
    const { host, port } = server ?? { host: '', port: 0 };
    const writers = 8;
    const perWriter = 1_000;
    const tokens = shuffled(Array.from({ length: writers * perWriter }, (_, index) => BigInt(index + 1)));
    const clients = Array.from({ length: writers + 1 }, () => new Redis({ host, port }));
    extraClients.push(...clients);
    const reader = new RedisCheckpointStorage(clients[writers] ?? connected());
    const observed: bigint[] = [];
    const run = { active: true };
    const watching = (async () => {
      while (run.active) {
        const version = await reader.writeVersion('{tenant}-contended');
        if (version !== undefined) {
          observed.push(version);
        }
      }
    })();
    let accepted = 0;
    await Promise.all(
      clients.slice(0, writers).map(async (writerClient, writer) => {
        const storage = new RedisCheckpointStorage(writerClient);
        for (const token of tokens.slice(writer * perWriter, (writer + 1) * perWriter)) {
          try {
            await storage.save('{tenant}-contended', `cp-${token}`, notOlderThan(token));
            accepted += 1;
          } catch (error) {
            expect(error).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
            expect((error as CheckpointWriteConditionNotFulfilledError).storedVersion ?? 0n).toBeGreaterThan(token);
          }
        }
      }),
    );
    run.active = false;
    await watching;
    const highest = BigInt(writers * perWriter);
    expect(accepted).toBeGreaterThan(0);
    expect(await reader.writeVersion('{tenant}-contended')).toBe(highest);
    expect(await reader.read('{tenant}-contended')).toBe(`cp-${highest}`);
    expect(observed.length).toBeGreaterThan(100);
    expect(observed.every((version, index) => index === 0 || version >= (observed[index - 1] ?? 0n))).toBe(true);
  }, 60_000);
});

function shuffled<T>(items: readonly T[]): T[] {
  const copy = [...items];
  for (let index = copy.length - 1; index > 0; index -= 1) {
    const other = Math.floor(Math.random() * (index + 1));
    [copy[index], copy[other]] = [copy[other] as T, copy[index] as T];
  }
  return copy;
}
