import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  DurableSubscription,
  DuplicateSubscriptionIdError,
  FencedCheckpointWriter,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  PostgresCheckpointStorage,
  RedisCheckpointStorage,
  RedisLeaseStrategy,
  StartPositionAlreadyPinnedError,
  StorageCannotBeFencedError,
  UnknownSubscriptionError,
  type PostgresClient,
  type RedisLeaseClient,
} from '../../runtime/index.js';
import { RedisDualAnchorCheckpointStore } from '../../runtime/dual-anchor-entry.js';
import { redisLeaseKeys } from '../../runtime/store-layout-entry.js';
import { recordingRedisMock } from './redis/recording-redis-mock.js';

// The argument rules every entry point shares (issue 11, defects 6, 7 and 8): ids and checkpoints must be
// well-formed UTF-16, a condition is read once, and an error message quotes at most about 200 characters of an id.

const { any, notOlderThan, ifAbsent } = CheckpointWriteCondition;
const loneSurrogateIds = ['a\uD800', 'a\uDC00', '\uDBFF{tenant}orders', 'orders\uDC00x'];

/** A condition object whose `version` answers `10n` to its first read and `-5n` to every later one. */
function shiftyCondition(): { readonly kind: 'notOlderThan'; readonly version: bigint; reads: number } {
  return {
    kind: 'notOlderThan',
    reads: 0,
    get version(): bigint {
      this.reads += 1;
      return this.reads === 1 ? 10n : -5n;
    },
  };
}

describe('ids and checkpoints must be well-formed UTF-16', () => {
  it('InMemoryCheckpointStorage refuses every lone-surrogate id and checkpoint with a TypeError, storing nothing', async () => {
    const storage = new InMemoryCheckpointStorage();
    for (const id of loneSurrogateIds) {
      await expect(storage.save(id, 'cp', any())).rejects.toThrow(/not well-formed UTF-16/u);
      await expect(storage.save(id, 'cp', notOlderThan(1))).rejects.toThrow(TypeError);
      await expect(storage.read(id)).rejects.toThrow(TypeError);
      await expect(storage.writeVersion(id)).rejects.toThrow(TypeError);
      await expect(storage.delete(id)).rejects.toThrow(TypeError);
      await expect(storage.advanceWriteVersion(id, 1n)).rejects.toThrow(TypeError);
      expect(await storage.read(id.replace(/[\uD800-\uDFFF]/gu, '\uFFFD'))).toBeUndefined();
    }
    await expect(storage.save('orders', 'offset-\uD800', notOlderThan(1))).rejects.toThrow(
      /checkpoint .* not well-formed/u,
    );
    expect(await storage.read('orders')).toBeUndefined();
  });

  it("RedisCheckpointStorage refuses 'a\\uD800' and 'a\\uDC00', which would share one key and one SHA-256, before any command", async () => {
    const { client, calls } = await recordingRedisMock();
    const storage = new RedisCheckpointStorage(client);
    try {
      for (const id of loneSurrogateIds) {
        for (const condition of [any(), notOlderThan(3), ifAbsent()]) {
          await expect(storage.save(id, 'cp', condition)).rejects.toThrow(TypeError);
        }
        await expect(storage.read(id)).rejects.toThrow(TypeError);
        await expect(storage.writeVersion(id)).rejects.toThrow(TypeError);
        await expect(storage.delete(id)).rejects.toThrow(TypeError);
        await expect(storage.advanceWriteVersion(id, 3n)).rejects.toThrow(TypeError);
        expect(() => storage.evaluatesWriteConditionsFor(id)).toThrow(TypeError);
      }
      await expect(storage.save('{t}orders', '\uDFFF', notOlderThan(3))).rejects.toThrow(TypeError);
      expect(calls).toEqual([]);
    } finally {
      client.disconnect();
    }
  });

  it('the lease strategies refuse a lone-surrogate subscription or subscriber id with a TypeError and take no lease', async () => {
    const table = new InMemoryLeaseTable();
    const inMemory = new InMemoryLeaseStrategy({ table, leaseTimeMs: 300 });
    const evalCalls: unknown[] = [];
    const client: RedisLeaseClient = {
      eval: async (...args) => {
        evalCalls.push(args);
        return ['granted', '0'];
      },
      pipeline: () => {
        throw new Error('not used');
      },
    };
    const redis = new RedisLeaseStrategy(client, { leaseTimeMs: 300 });
    try {
      for (const strategy of [inMemory, redis]) {
        await expect(strategy.register('a\uD800', 'node-a')).rejects.toThrow(/not well-formed UTF-16/u);
        await expect(strategy.register('orders', 'node-\uDC00')).rejects.toThrow(TypeError);
        await expect(strategy.raiseFencingTokenAbove('a\uDC00', 3n)).rejects.toThrow(TypeError);
      }
      expect(table.lastToken('a\uD800')).toBeUndefined();
      expect(table.lastToken('a\uFFFD')).toBeUndefined();
      expect(evalCalls).toEqual([]);
      expect(() => redisLeaseKeys('prefix:', 'a\uD800')).toThrow(TypeError);
      expect(() => redisLeaseKeys('prefix:', '')).toThrow(TypeError);
    } finally {
      await Promise.all([inMemory.shutdown(), redis.shutdown()]);
    }
  });

  it('FencedCheckpointWriter and DurableSubscription refuse them where they are entered', async () => {
    const storage = new InMemoryCheckpointStorage();
    const writer = new FencedCheckpointWriter(storage, { fencingToken: () => 3n });
    await expect(writer.save('a\uD800', 'cp')).rejects.toThrow(TypeError);
    await expect(writer.save('orders', 'cp\uDC00')).rejects.toThrow(TypeError);
    await expect(writer.saveStartPosition('a\uDC00', 'cp')).rejects.toThrow(TypeError);
    const subscription = new DurableSubscription({ storage });
    const source = async function* (): AsyncGenerator<never> {
      // Never reached: subscribe refuses first.
    };
    expect(() => {
      subscription.subscribe('a\uD800', source, () => undefined);
    }).toThrow(TypeError);
    expect(() => {
      subscription.subscribe('orders', source, () => undefined, { startPosition: '\uDC00' });
    }).toThrow(TypeError);
    expect(() => new DurableSubscription({ storage, subscriberId: 'node-\uD800' })).toThrow(TypeError);
    await subscription.shutdown();
    expect(await storage.read('orders')).toBeUndefined();
  });
});

describe('a condition is read once, and the factories return frozen objects', () => {
  it('every factory returns a frozen object, and a notOlderThan cannot be changed after the fact', () => {
    for (const condition of [any(), ifAbsent(), notOlderThan(7), notOlderThan(7n)]) {
      expect(Object.isFrozen(condition)).toBe(true);
    }
    const condition = notOlderThan(7n);
    expect(() => {
      (condition as { version: bigint }).version = -1n;
    }).toThrow(TypeError);
    expect(String(condition)).toBe('notOlderThan(7)');
  });

  it('InMemoryCheckpointStorage judges and writes one reading of a version getter that answers 10n, then -5n on every later read', async () => {
    const storage = new InMemoryCheckpointStorage();
    const condition = shiftyCondition();
    await storage.save('orders', 'cp', condition);
    expect(condition.reads).toBe(1);
    expect(await storage.writeVersion('orders')).toBe(10n);
    await expect(storage.save('orders', 'stale', notOlderThan(9))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
  });

  it('RedisCheckpointStorage sends the version it checked, never a later answer of the getter', async () => {
    const { client } = await recordingRedisMock();
    const storage = new RedisCheckpointStorage(client);
    try {
      const condition = shiftyCondition();
      await storage.save('{t}orders', 'cp', condition);
      expect(condition.reads).toBe(1);
      expect(await storage.writeVersion('{t}orders')).toBe(10n);
    } finally {
      client.disconnect();
    }
  });

  it('a refusal carries the condition that was judged, frozen, not the object the caller passed', async () => {
    const storage = new InMemoryCheckpointStorage();
    await storage.save('orders', 'cp', notOlderThan(20));
    const condition = shiftyCondition();
    const refusal: unknown = await storage.save('orders', 'stale', condition as never).catch((error: unknown) => error);
    expect(refusal).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    const { condition: judged } = refusal as CheckpointWriteConditionNotFulfilledError;
    expect(judged).not.toBe(condition);
    expect(Object.isFrozen(judged)).toBe(true);
    expect(judged).toMatchObject({ kind: 'notOlderThan', version: 10n });
  });
});

describe('error messages quote at most about 200 characters of an id', () => {
  const hugeId = `orders-${'x'.repeat(1_048_576)}`;
  const shortEnough = (error: unknown, length = hugeId.length): void => {
    expect(error).toBeInstanceOf(Error);
    const { message } = error as Error;
    expect(message.length).toBeLessThan(1_000);
    expect(message).toContain('orders-xxx');
    expect(message).toContain(`(${length.toLocaleString('en-US')} characters)`);
  };

  it('in a refusal, which keeps the whole id in subscriptionId', async () => {
    const storage = new InMemoryCheckpointStorage();
    await storage.save(hugeId, 'cp', notOlderThan(5));
    const refusal: unknown = await storage.save(hugeId, 'stale', notOlderThan(4)).catch((error: unknown) => error);
    shortEnough(refusal);
    expect((refusal as CheckpointWriteConditionNotFulfilledError).subscriptionId).toBe(hugeId);
  });

  it('in every other error that names a subscription', async () => {
    shortEnough(new StorageCannotBeFencedError('SomeStorage', hugeId));
    shortEnough(new StartPositionAlreadyPinnedError(hugeId, 'cp'));
    shortEnough(new DuplicateSubscriptionIdError(hugeId));
    shortEnough(new UnknownSubscriptionError(hugeId));
    const { client } = await recordingRedisMock();
    const redis = new RedisCheckpointStorage(client);
    try {
      shortEnough(
        await redis.save(`}${hugeId}`, 'cp', notOlderThan(1)).catch((error: unknown) => error),
        hugeId.length + 1,
      );
    } finally {
      client.disconnect();
    }
    const pinned = new StartPositionAlreadyPinnedError('orders', `position-${'9'.repeat(500_000)}`);
    expect(pinned.message.length).toBeLessThan(1_000);
    expect(pinned.candidate.length).toBe(500_009);
  });

  it('in the errors of the PostgreSQL storage and the Redis dual-anchor store, which name an id or a key', async () => {
    const neverSent: PostgresClient = {
      query: () => Promise.reject(new Error('nothing may be sent for an id PostgreSQL cannot store')),
    };
    shortEnough(
      await new PostgresCheckpointStorage(neverSent).read(`${hugeId}\0`).catch((error: unknown) => error),
      hugeId.length + 1,
    );

    const { client } = await recordingRedisMock();
    try {
      const store = new RedisDualAnchorCheckpointStore(client);
      const key = store.recordKey(hugeId);
      await client.hset(key, 'writeVersion', 'abc');
      shortEnough(
        await store.saveHeartbeat(hugeId, new Date(0), notOlderThan(1)).catch((error: unknown) => error),
        key.length,
      );
      await client.hset(key, 'lastHeartbeatTimestamp', 'yesterday');
      shortEnough(await store.findByStreamName(hugeId).catch((error: unknown) => error), key.length);
    } finally {
      client.disconnect();
    }
  });
});
