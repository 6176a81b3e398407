import { describe, expect, it } from 'vitest';
import {
  DurableSubscription,
  DuplicateSubscriberError,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
  RedisCheckpointStorage,
  StorageCannotBeFencedError,
  type CheckpointStorage,
  type EventSource,
  type PostgresClient,
} from '../../../runtime/index.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';
import { recordingRedisMock } from '../redis/recording-redis-mock.js';

// Issue 11, defects 2 and 3: what can never work is refused at subscribe(), at once, instead of looping in the
// background; and two DurableSubscriptions never both deliver one id under one lease.

const quick = { holdBackPollMs: 10, retryDelayMs: 50 } as const;
const neverCalled: EventSource<never> = () => {
  throw new Error('the source of a refused subscription must never be read');
};

/** InMemory storage that cannot fence ids ending in `}v2`, the way Cluster-safe Redis cannot fence `orders}v2`. */
class PartlyFenceableStorage extends InMemoryCheckpointStorage {
  evaluatesWriteConditionsFor(subscriptionId: string): boolean {
    return !subscriptionId.endsWith('}v2');
  }
}

describe('subscribe() refuses at once what could never work', () => {
  it('an id the storage cannot fence, with a strategy: StorageCannotBeFencedError, and the id is not taken', async () => {
    const storage = new PartlyFenceableStorage();
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 300 });
    const errors: unknown[] = [];
    const subscription = new DurableSubscription({
      storage,
      strategy,
      ...quick,
      onError: (error) => errors.push(error),
    });
    try {
      expect(() => {
        subscription.subscribe('orders}v2', neverCalled, () => undefined);
      }).toThrow(StorageCannotBeFencedError);
      expect(subscription.isPaused('orders}v2')).toBe(false);
      await expect(subscription.pause('orders}v2')).rejects.toThrow(/not subscribed/u);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(errors).toEqual([]);
      expect(strategy.fencingToken('orders}v2')).toBeUndefined();
      expect(await storage.read('orders}v2')).toBeUndefined();
    } finally {
      await subscription.shutdown();
      await strategy.shutdown();
    }
  });

  it("the issue repro: a Cluster-safe RedisCheckpointStorage and 'orders}v2' never reach the handler, and send nothing", async () => {
    const { client, calls } = await recordingRedisMock();
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 300 });
    const handled: unknown[] = [];
    const subscription = new DurableSubscription({
      storage: new RedisCheckpointStorage(client),
      strategy,
      ...quick,
      onError: () => undefined,
    });
    const log = new EventLog();
    log.append(3);
    try {
      const subscribing = (): void => {
        subscription.subscribe('orders}v2', log.source, (event) => {
          handled.push(event);
        });
      };
      expect(subscribing).toThrow(StorageCannotBeFencedError);
      expect(subscribing).toThrow(/hash tag/u);
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(handled).toEqual([]);
      expect(calls).toEqual([]);
    } finally {
      await subscription.shutdown();
      await strategy.shutdown();
      client.disconnect();
    }
  });

  it('the empty id, and any id the lease layer would refuse, is a TypeError at subscribe(), not a loop of reports', async () => {
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 300 });
    const errors: unknown[] = [];
    const storage: CheckpointStorage = new InMemoryCheckpointStorage();
    const leased = new DurableSubscription({ storage, strategy, ...quick, onError: (error) => errors.push(error) });
    const alone = new DurableSubscription({ storage, ...quick, onError: (error) => errors.push(error) });
    try {
      for (const subscription of [leased, alone]) {
        for (const id of ['', 'orders\uD800', 42, undefined]) {
          expect(() => {
            subscription.subscribe(id as string, neverCalled, () => undefined);
          }).toThrow(TypeError);
        }
        expect(() => {
          subscription.subscribe('orders', 'not a source' as never, () => undefined);
        }).toThrow(/source and a handler function/u);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(errors).toEqual([]);
    } finally {
      await Promise.all([leased.shutdown(), alone.shutdown()]);
      await strategy.shutdown();
    }
  });
});

describe('subscribe() and the constructor refuse at once what the PostgreSQL layer refuses (NUL)', () => {
  /** A client that records every statement; nothing here may reach it. */
  function recordingClient(): { readonly client: PostgresClient; readonly sent: string[] } {
    const sent: string[] = [];
    const client: PostgresClient = {
      query: (text) => {
        sent.push(text);
        return Promise.resolve({ rows: [], rowCount: 0 });
      },
    };
    return { client, sent };
  }

  const nulIn = (what: string, value: string): TypeError =>
    new TypeError(
      `${what} ${JSON.stringify(value)} contains a NUL character (\\u0000), which PostgreSQL text cannot store. Nothing ` +
        'was sent; encode the value (e.g. base64) or drop the character.',
    );

  it.each([
    {
      layer: 'PostgresLeaseStrategy over an in-memory storage',
      build: (client: PostgresClient) => ({
        storage: new InMemoryCheckpointStorage(),
        strategy: new PostgresLeaseStrategy(client, { leaseTimeMs: 300 }),
      }),
    },
    {
      layer: 'PostgresCheckpointStorage under an in-memory strategy',
      build: (client: PostgresClient) => ({
        storage: new PostgresCheckpointStorage(client),
        strategy: new InMemoryLeaseStrategy({ leaseTimeMs: 300 }),
      }),
    },
  ])(
    'an id holding NUL with $layer: a TypeError at subscribe(), nothing sent or reported, no lease taken',
    async ({ build }) => {
      const { client, sent } = recordingClient();
      const errors: unknown[] = [];
      const { storage, strategy } = build(client);
      const subscription = new DurableSubscription({
        storage,
        strategy,
        subscriberId: 'node-a',
        ...quick,
        onError: (error) => errors.push(error),
      });
      try {
        expect(() => {
          subscription.subscribe('orders\u0000v2', neverCalled, () => undefined);
        }).toThrow(nulIn('subscriptionId', 'orders\u0000v2'));
        // The id was not taken: a second attempt is refused the same way, not as a duplicate.
        expect(() => {
          subscription.subscribe('orders\u0000v2', neverCalled, () => undefined);
        }).toThrow(TypeError);
        await new Promise((resolve) => setTimeout(resolve, 200));
        expect({ errors, sent, token: strategy.fencingToken('orders\u0000v2') }).toEqual({
          errors: [],
          sent: [],
          token: undefined,
        });
        expect(strategy.hasLock('orders\u0000v2', 'node-a')).toBe(false);
      } finally {
        await subscription.shutdown();
        await strategy.shutdown();
      }
    },
  );

  it('a subscriberId holding NUL under PostgresLeaseStrategy: a TypeError at construction', async () => {
    const { client, sent } = recordingClient();
    const strategy = new PostgresLeaseStrategy(client, { leaseTimeMs: 300 });
    try {
      expect(
        () =>
          new DurableSubscription({ storage: new InMemoryCheckpointStorage(), strategy, subscriberId: 'node\u0000a' }),
      ).toThrow(nulIn('subscriberId', 'node\u0000a'));
      expect(sent).toEqual([]);
    } finally {
      await strategy.shutdown();
    }
  });
});

describe('two DurableSubscriptions on one strategy instance', () => {
  it('the issue repro: with the same subscriberId the second throws, the first delivers alone, nothing moves backward', async () => {
    const storage = new InMemoryCheckpointStorage();
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 300 });
    const log = new EventLog();
    log.append(200);
    const handled: number[] = [];
    const first = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    const second = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    const seen: number[] = [];
    const watching = { active: true };
    const watcher = (async () => {
      while (watching.active) {
        seen.push(Number((await storage.read('orders')) ?? '-1'));
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    })();
    try {
      first.subscribe(
        'orders',
        log.source,
        async (event: number) => {
          handled.push(event);
          await new Promise((resolve) => setImmediate(resolve));
        },
        { startPosition: '-1' },
      );
      const subscribingTwice = (): void => {
        second.subscribe('orders', log.source, () => {
          throw new Error('the second subscription must never deliver');
        });
      };
      expect(subscribingTwice).toThrow(DuplicateSubscriberError);
      expect(subscribingTwice).toThrow(/same subscriber id "node-a"/u);
      await eventually('every event is checkpointed', async () => (await storage.read('orders')) === '199');
      expect(handled).toEqual(Array.from({ length: 200 }, (_, event) => event));
    } finally {
      watching.active = false;
      await watcher;
      await Promise.all([first.shutdown(), second.shutdown()]);
    }
    for (let index = 1; index < seen.length; index += 1) {
      expect(seen[index] ?? -1, `read ${index}`).toBeGreaterThanOrEqual(seen[index - 1] ?? -1);
    }
    // Shut down, the first gives the id back: a new DurableSubscription on the same strategy may take it.
    const third = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    log.append(1);
    third.subscribe('orders', log.source, () => undefined);
    await eventually('the third delivers', async () => (await storage.read('orders')) === '200');
    await third.shutdown();
    await strategy.shutdown();
  });

  it('with another subscriberId the second throws too: the strategy could not say whose token it holds', async () => {
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 300 });
    const storage = new InMemoryCheckpointStorage();
    const first = new DurableSubscription({ storage, strategy, subscriberId: 'a', ...quick });
    const second = new DurableSubscription({ storage, strategy, subscriberId: 'b', ...quick });
    try {
      first.subscribe('orders', neverCalled, () => undefined);
      expect(() => {
        second.subscribe('orders', neverCalled, () => undefined);
      }).toThrow(/as subscriber "a"/u);
      second.subscribe('payments', neverCalled, () => undefined);
    } finally {
      await Promise.all([first.shutdown(), second.shutdown()]);
      await strategy.shutdown();
    }
  });

  it('two strategy instances given the same subscriberId never share a lease or a token', async () => {
    const table = new InMemoryLeaseTable();
    const one = new InMemoryLeaseStrategy({ table, leaseTimeMs: 300 });
    const other = new InMemoryLeaseStrategy({ table, leaseTimeMs: 300 });
    try {
      expect(await one.register('orders', 'node-a')).toBe(true);
      expect(await other.register('orders', 'node-a')).toBe(false);
      expect(other.hasLock('orders', 'node-a')).toBe(false);
      expect(other.fencingToken('orders')).toBeUndefined();
      await one.release('orders', 'node-a');
      await eventually('the other instance takes over', () => other.hasLock('orders', 'node-a'));
      expect(other.fencingToken('orders')).toBe(1n);
      expect(one.hasLock('orders', 'node-a')).toBe(false);
    } finally {
      await Promise.all([one.shutdown(), other.shutdown()]);
    }
  });
});
