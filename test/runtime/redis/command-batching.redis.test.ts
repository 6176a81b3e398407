import { Redis, type RedisOptions } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  RedisCheckpointStorage,
} from '../../../runtime/index.js';
import { startRedisServer, type RedisServerProcess } from '../../support/redis/index.js';

// The storage's commands of one tick share one pipeline on a standalone server (ADR 0103). What must hold: each call
// gets its own outcome, the storage's calls keep their order, and a NOSCRIPT inside a pipeline still falls back to EVAL.

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;
let server: RedisServerProcess | undefined;
let client: Redis | undefined;
const freshClients: Redis[] = [];

beforeAll(async () => {
  server = await startRedisServer();
  client = new Redis({ host: server.host, port: server.port });
});

afterAll(async () => {
  client?.disconnect();
  for (const fresh of freshClients) {
    fresh.disconnect();
  }
  await server?.stop();
});

async function emptied(): Promise<Redis> {
  if (client === undefined) {
    throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
  }
  await client.flushall();
  return client;
}

describe('RedisCheckpointStorage on a real redis-server: the commands of one tick share one pipeline', () => {
  it('sends 40 concurrent fenced writes as one pipeline, each with its own outcome', async () => {
    const redis = await emptied();
    const pipelines = vi.spyOn(redis, 'pipeline');
    const storage = new RedisCheckpointStorage(redis);
    try {
      for (let index = 0; index < 20; index += 1) {
        await storage.save(`{t}orders-${index}`, 'start', notOlderThan(5));
      }
      // One pipeline each: waitForReplicas 'auto' reads INFO replication right behind each write.
      expect(pipelines).toHaveBeenCalledTimes(20);
      pipelines.mockClear();
      const outcomes = await Promise.allSettled(
        Array.from({ length: 40 }, (_, index) =>
          storage.save(`{t}orders-${index % 20}`, `cp-${index}`, notOlderThan(index < 20 ? 4 : 6)),
        ),
      );
      expect(pipelines).toHaveBeenCalledTimes(1);
      for (const [index, outcome] of outcomes.entries()) {
        if (index < 20) {
          expect(outcome.status).toBe('rejected');
          expect((outcome as PromiseRejectedResult).reason).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
          expect((outcome as PromiseRejectedResult).reason).toMatchObject({ storedVersion: 5n });
        } else {
          expect(outcome).toEqual({ status: 'fulfilled', value: `cp-${index}` });
        }
      }
      for (let index = 0; index < 20; index += 1) {
        expect(await storage.read(`{t}orders-${index}`)).toBe(`cp-${index + 20}`);
        expect(await storage.writeVersion(`{t}orders-${index}`)).toBe(6n);
      }
    } finally {
      pipelines.mockRestore();
    }
  });

  it('keeps the order in which the storage was called within a tick', async () => {
    const redis = await emptied();
    const storage = new RedisCheckpointStorage(redis);
    await storage.save('orders', 'warm-up', notOlderThan(1));
    const [, , read, , version] = await Promise.all([
      storage.save('orders', 'first', notOlderThan(2)),
      storage.save('orders', 'second', any()),
      storage.read('orders'),
      storage.delete('orders'),
      storage.writeVersion('orders'),
    ]);
    expect(read).toBe('second');
    expect(version).toBeUndefined();
    expect(await storage.read('orders')).toBeUndefined();
  });

  it('a command that fails in a pipeline fails alone', async () => {
    const redis = await emptied();
    await redis.rpush('a-list', 'x');
    const pipelines = vi.spyOn(redis, 'pipeline');
    try {
      const storage = new RedisCheckpointStorage(redis);
      const [broken, fine] = await Promise.allSettled([storage.read('a-list'), storage.save('orders', 'cp', any())]);
      expect(pipelines).toHaveBeenCalledTimes(1);
      expect(broken.status).toBe('rejected');
      expect(String((broken as PromiseRejectedResult).reason)).toMatch(/WRONGTYPE/u);
      expect(fine).toEqual({ status: 'fulfilled', value: 'cp' });
    } finally {
      pipelines.mockRestore();
    }
  });

  it('after SCRIPT FLUSH, fenced writes in a pipeline fall back to EVAL and all land', async () => {
    const redis = await emptied();
    const storage = new RedisCheckpointStorage(redis);
    await storage.save('{t}warm-up', 'cp', notOlderThan(1));
    await Promise.all(Array.from({ length: 10 }, (_, index) => storage.save(`{t}a-${index}`, 'cp', notOlderThan(1))));
    await redis.script('FLUSH');
    await Promise.all(Array.from({ length: 10 }, (_, index) => storage.save(`{t}b-${index}`, 'cp', notOlderThan(2))));
    for (let index = 0; index < 10; index += 1) {
      expect(await storage.writeVersion(`{t}b-${index}`)).toBe(2n);
    }
  });

  it('a client without pipeline() gets every command on its own', async () => {
    const redis = await emptied();
    const withoutPipeline = {
      get: (key: string) => redis.get(key),
      set: (key: string, value: string) => redis.set(key, value),
      del: (...keys: string[]) => redis.del(...keys),
      evalsha: (sha1: string, numkeys: number, ...rest: string[]) => redis.evalsha(sha1, numkeys, ...rest),
      eval: (script: string, numkeys: number, ...rest: string[]) => redis.eval(script, numkeys, ...rest),
      info: (section: string) => redis.info(section),
    };
    const pipelines = vi.spyOn(redis, 'pipeline');
    const storage = new RedisCheckpointStorage(withoutPipeline);
    try {
      await Promise.all(Array.from({ length: 10 }, (_, index) => storage.save(`{t}c-${index}`, 'cp', notOlderThan(3))));
      expect(pipelines).not.toHaveBeenCalled();
      expect(await storage.writeVersion('{t}c-9')).toBe(3n);
    } finally {
      pipelines.mockRestore();
    }
  });
});

describe('RedisCheckpointStorage keeps the order of its own calls in every path a script takes', () => {
  /** A client of its own: nothing asked of this server yet (the shebang question, the replica count). */
  function freshClient(options: RedisOptions = {}): Redis {
    if (server === undefined) {
      throw new Error('The redis-server of this suite did not start; see the beforeAll error.');
    }
    const fresh = new Redis({ ...options, host: server.host, port: server.port });
    freshClients.push(fresh);
    return fresh;
  }

  it('over a client with enableAutoPipelining, a call made in a later tick never lands before an earlier one', async () => {
    await emptied();
    const autoPipelined = freshClient({ enableAutoPipelining: true });
    const storage = new RedisCheckpointStorage(autoPipelined);
    for (let round = 0; round < 20; round += 1) {
      // Other commands keep an auto-pipeline in flight; ioredis queues the client's next commands behind it.
      const others = Array.from({ length: 50 }, (_, index) => autoPipelined.set(`other-${index}`, 'x'));
      await new Promise<void>((resolve) => setImmediate(resolve));
      const first = storage.save('orders', `first-${round}`, any());
      // The storage has sent its tick of one command; the next tick has two, which share a pipeline.
      await new Promise<void>((resolve) => {
        process.nextTick(resolve);
      });
      await new Promise<void>((resolve) => {
        process.nextTick(resolve);
      });
      const later = Promise.all([storage.save('orders', `second-${round}`, any()), storage.read('elsewhere')]);
      await Promise.all([...others, first, later]);
      expect(await storage.read('orders'), `round ${round}`).toBe(`second-${round}`);
    }
  });

  it('on a new client and storage, notOlderThan then any() in one tick: the any() is the last write', async () => {
    await emptied();
    const storage = new RedisCheckpointStorage(freshClient());
    await Promise.all([storage.save('orders', 'first', notOlderThan(2)), storage.save('orders', 'second', any())]);
    expect(await storage.read('orders')).toBe('second');
    expect(await storage.writeVersion('orders')).toBe(2n);
  });

  it('with a script not yet run on this storage, any() then notOlderThan in one tick: notOlderThan is the last write', async () => {
    const storage = new RedisCheckpointStorage(await emptied());
    await storage.save('warm-up', 'cp', ifAbsent());
    await Promise.all([storage.save('orders', 'first', any()), storage.save('orders', 'second', notOlderThan(2))]);
    expect(await storage.read('orders')).toBe('second');
  });

  it('delete() then save(notOlderThan) in one tick, the script known to the server but not to this storage: the accepted write stays', async () => {
    const redis = await emptied();
    await new RedisCheckpointStorage(redis).save('elsewhere', 'cp', notOlderThan(1));
    const storage = new RedisCheckpointStorage(redis);
    await storage.save('orders', 'old', ifAbsent());
    const [, saved] = await Promise.all([storage.delete('orders'), storage.save('orders', 'new', notOlderThan(2))]);
    expect(saved).toBe('new');
    expect(await storage.read('orders')).toBe('new');
    expect(await storage.writeVersion('orders')).toBe(2n);
  });

  it('delete() then save(ifAbsent()) in one tick: the start position is accepted after the delete', async () => {
    const redis = await emptied();
    await new RedisCheckpointStorage(redis).save('elsewhere', 'cp', ifAbsent());
    const storage = new RedisCheckpointStorage(redis);
    await storage.save('orders', 'old', notOlderThan(1));
    const outcomes = await Promise.allSettled([storage.delete('orders'), storage.save('orders', 'start', ifAbsent())]);
    expect(outcomes).toEqual([
      { status: 'fulfilled', value: undefined },
      { status: 'fulfilled', value: 'start' },
    ]);
    expect(await storage.read('orders')).toBe('start');
  });

  it('after SCRIPT FLUSH, a NOSCRIPT overtaken by a later write on its keys is not run again: it fails, nothing written, and the later write stays', async () => {
    const redis = await emptied();
    const storage = new RedisCheckpointStorage(redis);
    await storage.save('orders', 'warm-up', notOlderThan(1));
    await redis.script('FLUSH');
    const outcomes = await Promise.allSettled([
      storage.save('orders', 'first', notOlderThan(2)),
      storage.save('orders', 'second', any()),
    ]);
    expect(outcomes[1]).toEqual({ status: 'fulfilled', value: 'second' });
    expect(outcomes[0]).toMatchObject({
      status: 'rejected',
      reason: new Error(
        'The server no longer had the script (NOSCRIPT: restarted, SCRIPT FLUSH or a failover), and a command this ' +
          'storage was asked for later on the same keys ran meanwhile, so running the script again now would put this ' +
          'write after it. Nothing was written; write again.',
      ),
    });
    expect(await storage.read('orders')).toBe('second');
    expect(await storage.writeVersion('orders')).toBe(1n);
    // The next write finds the script gone and loads it again.
    await expect(storage.save('orders', 'third', notOlderThan(2))).resolves.toBe('third');
  });
});
