import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  DurableSubscription,
  DuplicateSubscriptionIdError,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  StorageCannotBeFencedError,
  UnknownSubscriptionError,
  type CheckpointStorage,
} from '../../../runtime/index.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';
import { HandSetStrategy } from '../../support/leases/hand-set-strategy.js';

/**
 * Records every storage call as text, and every checkpoint stored after a write. `beforeFence` runs inside the fence
 * step: at the start of `advanceWriteVersion`, or, `withoutAdvance`, right after the first `read` resolves.
 */
class RecordingStorage implements CheckpointStorage {
  readonly calls: string[] = [];
  readonly stored: (string | undefined)[] = [];
  readonly advanceWriteVersion?: (subscriptionId: string, version: bigint) => Promise<void>;
  #beforeFence: (() => Promise<unknown>) | undefined;

  constructor(
    private readonly inner: InMemoryCheckpointStorage,
    options: { readonly withoutAdvance?: boolean; readonly beforeFence?: () => Promise<unknown> } = {},
  ) {
    this.#beforeFence = options.beforeFence;
    if (options.withoutAdvance !== true) {
      this.advanceWriteVersion = async (subscriptionId, version) => {
        this.calls.push(`advanceWriteVersion ${subscriptionId} ${version}`);
        await this.#fenceStep(subscriptionId);
        await inner.advanceWriteVersion(subscriptionId, version);
      };
    }
  }

  async read(subscriptionId: string): Promise<string | undefined> {
    this.calls.push(`read ${subscriptionId}`);
    const checkpoint = await this.inner.read(subscriptionId);
    if (this.advanceWriteVersion === undefined) {
      await this.#fenceStep(subscriptionId);
    }
    return checkpoint;
  }

  async save(subscriptionId: string, checkpoint: string, condition: CheckpointWriteCondition): Promise<string> {
    this.calls.push(`save ${subscriptionId} ${checkpoint} ${String(condition)}`);
    try {
      return await this.inner.save(subscriptionId, checkpoint, condition);
    } finally {
      this.stored.push(await this.inner.read(subscriptionId));
    }
  }

  writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    return this.inner.writeVersion(subscriptionId);
  }

  delete(subscriptionId: string): Promise<void> {
    return this.inner.delete(subscriptionId);
  }

  evaluatesWriteConditions(): boolean {
    return true;
  }

  /** Runs `beforeFence` once and records what its stale write left stored. */
  async #fenceStep(subscriptionId: string): Promise<void> {
    const beforeFence = this.#beforeFence;
    this.#beforeFence = undefined;
    if (beforeFence !== undefined) {
      await beforeFence();
      this.stored.push(await this.inner.read(subscriptionId));
    }
  }
}

const quick = { holdBackPollMs: 5, retryDelayMs: 20 } as const;

describe('DurableSubscription without a strategy', () => {
  it('delivers every event, checkpoints each one, and a new instance resumes after the stored checkpoint', async () => {
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(5);
    const seen: number[] = [];
    const first = new DurableSubscription({ storage, ...quick });
    first.subscribe('orders', log.source, (event: number) => {
      seen.push(event);
    });
    await eventually('five events are checkpointed', async () => (await storage.read('orders')) === '4');
    expect(first.isRunning('orders')).toBe(true);
    await first.shutdown();
    expect(await storage.writeVersion('orders')).toBeUndefined();

    log.append(3);
    const second = new DurableSubscription({ storage, ...quick });
    second.subscribe('orders', log.source, (event: number) => {
      seen.push(event);
    });
    await eventually('the new events are checkpointed', async () => (await storage.read('orders')) === '7');
    await second.shutdown();
    expect(seen).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
  });

  it('pins the start position with ifAbsent() when nothing is stored, and starts after it', async () => {
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(10);
    const seen: number[] = [];
    const subscription = new DurableSubscription({ storage, ...quick });
    subscription.subscribe(
      'orders',
      log.source,
      (event: number) => {
        seen.push(event);
      },
      { startPosition: '6' },
    );
    await eventually(
      'the events after the pinned position are checkpointed',
      async () => (await storage.read('orders')) === '9',
    );
    await subscription.shutdown();
    expect(seen).toEqual([7, 8, 9]);
  });

  it('retries from the stored checkpoint after the handler throws; the failed event is not skipped', async () => {
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(3);
    const errors: unknown[] = [];
    const seen: number[] = [];
    let failOnce = true;
    const subscription = new DurableSubscription({ storage, ...quick, onError: (error) => errors.push(error) });
    subscription.subscribe('orders', log.source, (event: number) => {
      if (event === 1 && failOnce) {
        failOnce = false;
        throw new Error('handler failed');
      }
      seen.push(event);
    });
    await eventually('all three are checkpointed', async () => (await storage.read('orders')) === '2');
    await subscription.shutdown();
    expect(seen).toEqual([0, 1, 2]);
    expect(errors).toHaveLength(1);
  });

  it('refuses a second subscribe to one id, and pause or resume of an unknown id', async () => {
    const subscription = new DurableSubscription({ storage: new InMemoryCheckpointStorage(), ...quick });
    const log = new EventLog();
    subscription.subscribe('orders', log.source, () => undefined);
    expect(() => {
      subscription.subscribe('orders', log.source, () => undefined);
    }).toThrow(DuplicateSubscriptionIdError);
    await expect(subscription.pause('payments')).rejects.toThrow(UnknownSubscriptionError);
    await expect(subscription.resume('payments')).rejects.toThrow(/not subscribed/u);
    expect(subscription.isPaused('payments')).toBe(false);
    await subscription.shutdown();
  });
});

describe('DurableSubscription with a strategy', () => {
  it('refuses to start over a storage that cannot evaluate write conditions', () => {
    const incapable: CheckpointStorage = {
      read: async () => undefined,
      save: async (_id, checkpoint) => checkpoint,
      writeVersion: async () => undefined,
      delete: async () => undefined,
    };
    expect(() => new DurableSubscription({ storage: incapable, strategy: new HandSetStrategy() })).toThrow(
      StorageCannotBeFencedError,
    );
  });

  it('holds events back while hasLock is false, then delivers them all, stamped with the token', async () => {
    const storage = new InMemoryCheckpointStorage();
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(3);
    const seen: number[] = [];
    const subscription = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    subscription.subscribe(
      'orders',
      log.source,
      (event: number) => {
        seen.push(event);
        if (event === 0) {
          strategy.lock = false;
        }
      },
      { startPosition: '-1' },
    );
    await eventually('registered', () => strategy.registered.has('orders'));
    expect(seen).toEqual([]);

    strategy.grant(4n);
    await eventually('the first event is checkpointed', async () => (await storage.read('orders')) === '0');
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(seen).toEqual([0]);

    strategy.lock = true;
    await eventually('the held-back events are checkpointed', async () => (await storage.read('orders')) === '2');
    expect(seen).toEqual([0, 1, 2]);
    expect(await storage.writeVersion('orders')).toBe(4n);
    await subscription.shutdown();
  });

  it('fences on acquire: the stored version is the new token before the first event is handled', async () => {
    const storage = new InMemoryCheckpointStorage();
    await storage.save('orders', '4', CheckpointWriteCondition.notOlderThan(2));
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(6);
    const versionsSeenByHandler: (bigint | undefined)[] = [];
    const subscription = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    subscription.subscribe('orders', log.source, async () => {
      versionsSeenByHandler.push(await storage.writeVersion('orders'));
    });
    strategy.grant(3n);
    await eventually('event 5 is checkpointed', async () => (await storage.read('orders')) === '5');
    await subscription.shutdown();
    expect(versionsSeenByHandler).toEqual([3n]);
  });

  it('fences on acquire with one advanceWriteVersion before the read, and never writes back what it read', async () => {
    const inner = new InMemoryCheckpointStorage();
    await inner.save('orders', '4', CheckpointWriteCondition.notOlderThan(2));
    const storage = new RecordingStorage(inner);
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(6);
    const subscription = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    subscription.subscribe('orders', log.source, () => undefined);
    strategy.grant(3n);
    await eventually('event 5 is checkpointed', async () => (await inner.read('orders')) === '5');
    await subscription.shutdown();
    expect(storage.calls.slice(0, 3)).toEqual([
      'advanceWriteVersion orders 3',
      'read orders',
      'save orders 5 notOlderThan(3)',
    ]);
    expect(storage.calls.filter((call) => call.startsWith('save'))).toEqual(['save orders 5 notOlderThan(3)']);
  });

  it('without advanceWriteVersion, falls back to fencing with a notOlderThan write of the checkpoint it read', async () => {
    const inner = new InMemoryCheckpointStorage();
    await inner.save('orders', '4', CheckpointWriteCondition.notOlderThan(2));
    const storage = new RecordingStorage(inner, { withoutAdvance: true });
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(6);
    const subscription = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    subscription.subscribe('orders', log.source, () => undefined);
    strategy.grant(3n);
    await eventually('event 5 is checkpointed', async () => (await inner.read('orders')) === '5');
    await subscription.shutdown();
    expect(storage.advanceWriteVersion).toBeUndefined();
    expect(storage.calls.slice(0, 3)).toEqual([
      'read orders',
      'save orders 4 notOlderThan(3)',
      'save orders 5 notOlderThan(3)',
    ]);
  });

  it('a stale holder write that lands while the new holder fences never moves the stored checkpoint backward', async () => {
    const inner = new InMemoryCheckpointStorage();
    await inner.save('orders', '4', CheckpointWriteCondition.notOlderThan(2));
    // The old holder (token 2), paused since checkpoint 4, wakes up and lands checkpoint 7 just as the new holder fences.
    const storage = new RecordingStorage(inner, {
      beforeFence: () => inner.save('orders', '7', CheckpointWriteCondition.notOlderThan(2)),
    });
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(10);
    const seen: number[] = [];
    const subscription = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    subscription.subscribe('orders', log.source, (event: number) => {
      seen.push(event);
    });
    strategy.grant(3n);
    await eventually('event 9 is checkpointed', async () => (await inner.read('orders')) === '9');
    await subscription.shutdown();
    await expect(inner.save('orders', '8', CheckpointWriteCondition.notOlderThan(2))).rejects.toThrow(
      CheckpointWriteConditionNotFulfilledError,
    );
    expect(storage.stored).toEqual(['7', '8', '9']);
    expect(seen).toEqual([8, 9]);
  });

  it('the same stale write during the fallback fence is written over with the older checkpoint: the gap advanceWriteVersion closes', async () => {
    const inner = new InMemoryCheckpointStorage();
    await inner.save('orders', '4', CheckpointWriteCondition.notOlderThan(2));
    const storage = new RecordingStorage(inner, {
      withoutAdvance: true,
      beforeFence: () => inner.save('orders', '7', CheckpointWriteCondition.notOlderThan(2)),
    });
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(10);
    const subscription = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    subscription.subscribe('orders', log.source, () => undefined);
    strategy.grant(3n);
    await eventually('event 9 is checkpointed', async () => (await inner.read('orders')) === '9');
    await subscription.shutdown();
    expect(storage.stored.slice(0, 2)).toEqual(['7', '4']);
  });

  it('waits out the takeover grace before fencing or delivering under a token above 0', async () => {
    const storage = new InMemoryCheckpointStorage();
    await storage.save('orders', '4', CheckpointWriteCondition.notOlderThan(2));
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(6);
    const seen: number[] = [];
    const subscription = new DurableSubscription({
      storage,
      strategy,
      subscriberId: 'node-a',
      takeoverGraceMs: 60_000,
      ...quick,
    });
    subscription.subscribe('orders', log.source, (event: number) => {
      seen.push(event);
    });
    strategy.grant(3n);
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await storage.writeVersion('orders')).toBe(2n);
    expect(seen).toEqual([]);
    await subscription.pause('orders');
    expect(strategy.registered.has('orders')).toBe(false);
    await subscription.shutdown();
  });

  it('takes no grace for token 0, the first lease ever taken on an id', async () => {
    const storage = new InMemoryCheckpointStorage();
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(2);
    const subscription = new DurableSubscription({
      storage,
      strategy,
      subscriberId: 'node-a',
      takeoverGraceMs: 60_000,
      ...quick,
    });
    subscription.subscribe('orders', log.source, () => undefined, { startPosition: '-1' });
    strategy.grant(0n);
    await eventually('both events are checkpointed', async () => (await storage.read('orders')) === '1');
    expect(await storage.writeVersion('orders')).toBe(0n);
    await subscription.shutdown();
  });

  it('without fenceOnAcquire, the stored version moves only with the first checkpoint', async () => {
    const storage = new InMemoryCheckpointStorage();
    await storage.save('orders', '4', CheckpointWriteCondition.notOlderThan(2));
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(6);
    const versionsSeenByHandler: (bigint | undefined)[] = [];
    const subscription = new DurableSubscription({
      storage,
      strategy,
      subscriberId: 'node-a',
      fenceOnAcquire: false,
      ...quick,
    });
    subscription.subscribe('orders', log.source, async () => {
      versionsSeenByHandler.push(await storage.writeVersion('orders'));
    });
    strategy.grant(3n);
    await eventually('event 5 is checkpointed', async () => (await storage.read('orders')) === '5');
    await subscription.shutdown();
    expect(versionsSeenByHandler).toEqual([2n]);
  });

  it('stops on a refused checkpoint write, reports it, and delivers nothing more under that token', async () => {
    const storage = new InMemoryCheckpointStorage();
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(5);
    const errors: unknown[] = [];
    const seen: number[] = [];
    const subscription = new DurableSubscription({
      storage,
      strategy,
      subscriberId: 'node-a',
      ...quick,
      onError: (error) => errors.push(error),
    });
    subscription.subscribe(
      'orders',
      log.source,
      async (event: number) => {
        seen.push(event);
        if (event === 1) {
          // Another node took over meanwhile and fenced with token 8.
          await storage.save('orders', '3', CheckpointWriteCondition.notOlderThan(8));
        }
      },
      { startPosition: '-1' },
    );
    strategy.grant(7n);
    await eventually('the refusal is reported', () => errors.length === 1);
    await new Promise((resolve) => setTimeout(resolve, 60));
    expect(errors[0]).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(seen).toEqual([0, 1]);
    expect(await storage.read('orders')).toBe('3');

    strategy.grant(9n);
    await eventually(
      'a newer grant resumes from the stored checkpoint',
      async () => (await storage.read('orders')) === '4',
    );
    expect(seen).toEqual([0, 1, 4]);
    await subscription.shutdown();
  });

  it('pausing a consumer still waiting for the lease answers isPaused at once and keeps it out until resume', async () => {
    const table = new InMemoryLeaseTable();
    const holderStrategy = new InMemoryLeaseStrategy({ table, leaseTimeMs: 300 });
    const waiterStrategy = new InMemoryLeaseStrategy({ table, leaseTimeMs: 300 });
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(2);
    const holder = new DurableSubscription({ storage, strategy: holderStrategy, subscriberId: 'holder', ...quick });
    const waiter = new DurableSubscription({ storage, strategy: waiterStrategy, subscriberId: 'waiter', ...quick });
    const waiterSaw: number[] = [];
    holder.subscribe('orders', log.source, () => undefined, { startPosition: '-1' });
    await eventually('the holder checkpoints', async () => (await storage.read('orders')) === '1');
    waiter.subscribe('orders', log.source, (event: number) => {
      waiterSaw.push(event);
    });

    const paused = waiter.pause('orders');
    expect(waiter.isPaused('orders')).toBe(true);
    await paused;
    await holder.shutdown();
    log.append(1);
    await new Promise((resolve) => setTimeout(resolve, 900));
    expect(waiterStrategy.hasLock('orders', 'waiter')).toBe(false);
    expect(waiterSaw).toEqual([]);

    await waiter.resume('orders');
    expect(waiter.isPaused('orders')).toBe(false);
    await eventually('the resumed waiter delivers', async () => (await storage.read('orders')) === '2');
    expect(waiterSaw).toEqual([2]);
    await waiter.shutdown();
    await Promise.all([holderStrategy.shutdown(), waiterStrategy.shutdown()]);
  });

  it('delivers nothing, and says why, while another consumer of its strategy instance is registered for the id', async () => {
    const strategy = new InMemoryLeaseStrategy({ leaseTimeMs: 300 });
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(1);
    const errors: unknown[] = [];
    const seen: number[] = [];
    const subscription = new DurableSubscription({
      storage,
      strategy,
      subscriberId: 'a',
      ...quick,
      onError: (error) => errors.push(error),
    });
    subscription.subscribe('orders', log.source, (event: number) => {
      seen.push(event);
    });
    await eventually('a holds the lease', () => strategy.hasLock('orders', 'a'));
    // Not a DurableSubscription, so subscribe() cannot refuse it: the strategy now has two local consumers.
    await strategy.register('orders', 'b');
    log.append(1);
    await eventually('the shared strategy is reported', () => errors.length > 0);
    expect(String(errors[0])).toMatch(/its own strategy instance/u);
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(seen.filter((event) => event === 1)).toEqual([]);
    await strategy.unregister('orders', 'b');
    await eventually('delivery goes on once a is the only consumer', () => seen.includes(1));
    await subscription.shutdown();
    await strategy.shutdown();
  });

  it('a pause superseded by an immediate resume settles, and the subscription keeps delivering', async () => {
    const storage = new InMemoryCheckpointStorage();
    const strategy = new HandSetStrategy();
    const log = new EventLog();
    log.append(1);
    const subscription = new DurableSubscription({ storage, strategy, subscriberId: 'node-a', ...quick });
    subscription.subscribe('orders', log.source, () => undefined, { startPosition: '-1' });
    strategy.grant(0n);
    const paused = subscription.pause('orders');
    await subscription.resume('orders');
    await paused;
    await eventually('delivery goes on', async () => (await storage.read('orders')) === '0');
    await subscription.shutdown();
  });

  it('shutdown gives the lease up so another node takes over well before the lease would expire', async () => {
    const table = new InMemoryLeaseTable();
    const first = new InMemoryLeaseStrategy({ table, leaseTimeMs: 60_000 });
    const second = new InMemoryLeaseStrategy({ table, leaseTimeMs: 600 });
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(1);
    const a = new DurableSubscription({ storage, strategy: first, subscriberId: 'a', ...quick });
    const b = new DurableSubscription({ storage, strategy: second, subscriberId: 'b', ...quick });
    a.subscribe('orders', log.source, () => undefined, { startPosition: '-1' });
    await eventually('a checkpoints', async () => (await storage.read('orders')) === '0');
    b.subscribe('orders', log.source, () => undefined);
    await a.shutdown();
    expect(first.hasLock('orders', 'a')).toBe(false);
    log.append(1);
    await eventually('b takes over', async () => (await storage.read('orders')) === '1');
    expect(await storage.writeVersion('orders')).toBe(1n);
    await b.shutdown();
    await Promise.all([first.shutdown(), second.shutdown()]);
  });
});
