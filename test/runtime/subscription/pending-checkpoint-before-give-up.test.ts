import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  CheckpointWriteConditionNotFulfilledError,
  DurableSubscription,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  type CheckpointStorage,
  type CompetingConsumerStrategy,
  type EventHandler,
} from '../../../runtime/index.js';
import { CallTimeline } from '../../support/leases/call-timeline.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';
import { Gate } from '../../support/leases/gate.js';
import { HandSetStrategy } from '../../support/leases/hand-set-strategy.js';
import { PausableLeaseClock } from '../../support/leases/pausable-lease-clock.js';

// A pending position (handled, not written yet because of checkpointEvery) is written, fenced, before this node gives
// its lease up, never after: on shutdown, on pause, after a handler failure. After a refusal it is not written at all,
// and when the strategy reports the lease gone it is not attempted; the events after the stored checkpoint are then
// delivered again by the next holder.

const quick = { holdBackPollMs: 5, retryDelayMs: 20 } as const;

/** Everything one node did, on one timeline: storage writes, lease give-ups, and `handle N` for each handler call. */
interface RecordedNode {
  readonly timeline: CallTimeline;
  readonly subscription: DurableSubscription;
  readonly errors: unknown[];
  readonly handled: number[];
}

function recordedNode(options: {
  readonly storage: CheckpointStorage;
  readonly strategy: CompetingConsumerStrategy;
  readonly subscriberId: string;
  readonly log: EventLog;
  readonly checkpointEvery?: { readonly events?: number; readonly ms?: number };
  readonly handler?: EventHandler<number>;
  readonly beforeSave?: (checkpoint: string) => Promise<void>;
}): RecordedNode {
  const timeline = new CallTimeline();
  const errors: unknown[] = [];
  const handled: number[] = [];
  const subscription = new DurableSubscription({
    storage: timeline.storage(options.storage, options.beforeSave),
    strategy: timeline.strategy(options.strategy),
    subscriberId: options.subscriberId,
    ...quick,
    ...(options.checkpointEvery === undefined ? {} : { checkpointEvery: options.checkpointEvery }),
    onError: (error) => errors.push(error),
  });
  subscription.subscribe(
    'orders',
    options.log.source,
    async (event: number, position, context) => {
      handled.push(event);
      timeline.entries.push(`handle ${event}`);
      await options.handler?.(event, position, context);
    },
    { startPosition: '-1' },
  );
  return { timeline, subscription, errors, handled };
}

/** One node, `node-a`, under `strategy`, over its own in-memory storage, with `events` events to deliver. */
function singleNode<S extends CompetingConsumerStrategy>(
  strategy: S,
  events: number,
  options: Pick<Parameters<typeof recordedNode>[0], 'checkpointEvery' | 'handler' | 'beforeSave'>,
): { node: RecordedNode; strategy: S; storage: InMemoryCheckpointStorage; log: EventLog } {
  const storage = new InMemoryCheckpointStorage();
  const log = new EventLog();
  log.append(events);
  return { node: recordedNode({ storage, strategy, subscriberId: 'node-a', log, ...options }), strategy, storage, log };
}

/** Asserts that every write was answered before the first lease give-up, and that none was sent after it. */
function expectWritesSettledBeforeGivingUp(timeline: CallTimeline): void {
  const givenUp = Math.min(
    ...['unregister', 'release'].map((call) => timeline.first(call)).filter((index) => index >= 0),
  );
  expect(givenUp, 'the lease was given up').toBeLessThan(Infinity);
  const writes = timeline.entries.filter((entry) => /^(save|saved|refused|failed) /u.test(entry));
  const lastWrite = Math.max(...writes.map((entry) => timeline.last(entry)));
  expect(lastWrite, timeline.entries.join('\n')).toBeLessThan(givenUp);
}

function expectNeverBackward(seen: readonly number[]): void {
  for (let index = 1; index < seen.length; index += 1) {
    expect(seen[index] ?? -1, `read ${index}`).toBeGreaterThanOrEqual(seen[index - 1] ?? -1);
  }
}

describe('the pending position on a real lease (InMemoryLeaseStrategy, real timers)', () => {
  it('{ events: 100 }: a shutdown after 7 events stores the 7th position, fenced, and only then gives the lease up', async () => {
    const { node, strategy, storage } = singleNode(new InMemoryLeaseStrategy({ leaseTimeMs: 300 }), 7, {
      checkpointEvery: { events: 100 },
    });
    await eventually('seven events handled', () => node.handled.length === 7);
    expect(await storage.read('orders')).toBe('-1');
    await node.subscription.shutdown();
    expect(await storage.read('orders')).toBe('6');
    expect(await storage.writeVersion('orders')).toBe(0n);
    expect(node.timeline.all('save ')).toEqual(['save -1 ifAbsent()', 'save 6 notOlderThan(0)']);
    expect(node.timeline.entries.slice(-3)).toEqual(['save 6 notOlderThan(0)', 'saved 6', 'unregister']);
    expect(node.errors).toEqual([]);
    await strategy.shutdown();
  });

  it('a pause writes the pending position before it unregisters; resume goes on after it, nothing delivered twice', async () => {
    const { node, strategy, storage, log } = singleNode(new InMemoryLeaseStrategy({ leaseTimeMs: 300 }), 7, {
      checkpointEvery: { events: 100 },
    });
    await eventually('seven events handled', () => node.handled.length === 7);
    await node.subscription.pause('orders');
    expect(node.timeline.entries.slice(-3)).toEqual(['save 6 notOlderThan(0)', 'saved 6', 'unregister']);
    await node.subscription.resume('orders');
    log.append(2);
    await eventually('the new events are handled', () => node.handled.length === 9);
    await node.subscription.shutdown();
    expect(node.handled).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8]);
    expect(await storage.read('orders')).toBe('8');
    expect(await storage.writeVersion('orders')).toBe(1n);
    await strategy.shutdown();
  });

  it('a handler that fails writes the positions handled before it, then the failed event is delivered again', async () => {
    let failOnce = true;
    const { node, strategy } = singleNode(new InMemoryLeaseStrategy({ leaseTimeMs: 300 }), 5, {
      checkpointEvery: { events: 100 },
      handler: (event) => {
        if (event === 3 && failOnce) {
          failOnce = false;
          throw new Error('handler failed');
        }
      },
    });
    await eventually('every event is handled', () => node.handled.at(-1) === 4);
    await node.subscription.shutdown();
    expect(node.handled).toEqual([0, 1, 2, 3, 3, 4]);
    expect(node.timeline.all('save ')).toEqual([
      'save -1 ifAbsent()',
      'save 2 notOlderThan(0)',
      'save 4 notOlderThan(0)',
    ]);
    expect(node.timeline.first('saved 2')).toBeLessThan(node.timeline.last('handle 3'));
    expect(String(node.errors)).toMatch(/handler failed/u);
    await strategy.shutdown();
  });

  it('a lease the strategy reports lost: the pending write is not attempted, and the next holder delivers those events again', async () => {
    const table = new InMemoryLeaseTable();
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(7);
    const strategies = [0, 1].map(() => new InMemoryLeaseStrategy({ table, leaseTimeMs: 300 }));
    const a = recordedNode({
      storage,
      strategy: strategies[0] ?? new InMemoryLeaseStrategy(),
      subscriberId: 'a',
      log,
      checkpointEvery: { events: 100 },
    });
    await eventually('a handles seven events', () => a.handled.length === 7);
    const b = recordedNode({ storage, strategy: strategies[1] ?? new InMemoryLeaseStrategy(), subscriberId: 'b', log });
    try {
      table.deleteLease('orders');
      await eventually('b delivers the seven events again', () => b.handled.length === 7, 10_000);
      await eventually('b checkpoints them', async () => (await storage.read('orders')) === '6');
      expect(b.handled).toEqual([0, 1, 2, 3, 4, 5, 6]);
      expect(await storage.writeVersion('orders')).toBe(1n);
      // a found out at its next refresh and stopped without sending its pending position 6.
      expect(a.timeline.all('save ')).toEqual(['save -1 ifAbsent()']);
      expect(a.timeline.all('handle').length).toBe(7);
    } finally {
      await Promise.all([a.subscription.shutdown(), b.subscription.shutdown()]);
      await Promise.all(strategies.map((strategy) => strategy.shutdown()));
    }
    expect(a.timeline.all('save ')).toEqual(['save -1 ifAbsent()']);
    expect(a.errors).toEqual([]);
  });

  it('a zombie that does not know it lost the lease sends its pending write with its old token, is refused, and only then gives the lease up', async () => {
    const table = new InMemoryLeaseTable();
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(20);
    const zombieClock = new PausableLeaseClock();
    const strategies = [
      new InMemoryLeaseStrategy({ table, leaseTimeMs: 300, clock: zombieClock }),
      new InMemoryLeaseStrategy({ table, leaseTimeMs: 300 }),
    ];
    const gate = new Gate();
    const a = recordedNode({
      storage,
      strategy: strategies[0] ?? new InMemoryLeaseStrategy(),
      subscriberId: 'a',
      log,
      checkpointEvery: { events: 100, ms: 50 },
      handler: async (event) => {
        if (event === 7) {
          await gate.opened;
        }
      },
    });
    await eventually('a blocks in event 7', () => a.handled.includes(7));
    await eventually('a has written position 6 on its timer', async () => (await storage.read('orders')) === '6');
    // a freezes: no refresh goes out, but its strategy still reports token 0.
    zombieClock.pause();
    const b = recordedNode({ storage, strategy: strategies[1] ?? new InMemoryLeaseStrategy(), subscriberId: 'b', log });
    const seen: number[] = [];
    const watching = { active: true };
    const watcher = (async () => {
      while (watching.active) {
        seen.push(Number((await storage.read('orders')) ?? '-1'));
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    })();
    try {
      await eventually(
        'b takes over and checkpoints the last event',
        async () => (await storage.read('orders')) === '19',
      );
      expect(b.handled[0]).toBe(7);
      gate.open();
      await eventually('a gives the lease up', () => a.timeline.entries.includes('release'), 5_000);
      expect(a.timeline.entries.slice(a.timeline.first('save 7'))).toEqual([
        'save 7 notOlderThan(0)',
        'refused 7',
        'raiseFencingTokenAbove 1',
        'release',
      ]);
      expect(a.errors).toHaveLength(1);
      expect(a.errors[0]).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
      expect(await storage.read('orders')).toBe('19');
    } finally {
      watching.active = false;
      await watcher;
      zombieClock.resume();
      await Promise.all([a.subscription.shutdown(), b.subscription.shutdown()]);
      await Promise.all(strategies.map((strategy) => strategy.shutdown()));
    }
    expectNeverBackward(seen);
  });
});

describe('the pending position after a refusal (hand-set lease)', () => {
  it('is never written: the refused write ends the run, then the token floor is raised and the lease released', async () => {
    const { node, strategy, storage } = singleNode(new HandSetStrategy(), 6, {
      checkpointEvery: { events: 3 },
      handler: async (event) => {
        if (event === 4) {
          // Another node took over and fenced with token 8 while this one was at event 4.
          await storage.advanceWriteVersion('orders', 8n);
        }
      },
    });
    strategy.grant(7n);
    await eventually('the lease is given up', () => node.timeline.entries.includes('release'));
    await node.subscription.shutdown();
    expect(node.timeline.entries.slice(node.timeline.first('handle 3'))).toEqual([
      'handle 3',
      'handle 4',
      'handle 5',
      'save 5 notOlderThan(7)',
      'refused 5',
      'raiseFencingTokenAbove 8',
      'release',
      'unregister',
    ]);
    expect(await storage.read('orders')).toBe('2');
    expectWritesSettledBeforeGivingUp(node.timeline);
  });
});

describe("the pending position and shutdown's 5 s cap (fake time)", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** One hand-set node on fake time with `{ events: 100 }` that has handled events 0–2 under token 0. */
  async function nodeOnFakeTime(
    options: Pick<Parameters<typeof recordedNode>[0], 'handler' | 'beforeSave'>,
  ): Promise<{ node: RecordedNode; strategy: HandSetStrategy; storage: InMemoryCheckpointStorage }> {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const { node, strategy, storage } = singleNode(new HandSetStrategy(), 3, {
      checkpointEvery: { events: 100 },
      ...options,
    });
    strategy.grant(0n);
    await vi.advanceTimersByTimeAsync(10);
    expect(node.handled).toEqual([0, 1, 2]);
    return { node, strategy, storage };
  }

  it('a write still unanswered when the 5 s run out keeps the lease until the write lands, then gives it up', async () => {
    const hanging = new Gate();
    const { node, strategy } = await nodeOnFakeTime({
      beforeSave: (checkpoint) => (checkpoint === '2' ? hanging.opened : Promise.resolve()),
    });
    let shutDown = false;
    const stopping = node.subscription.shutdown().then(() => {
      shutDown = true;
    });
    await vi.advanceTimersByTimeAsync(4_999);
    expect(shutDown).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await stopping;
    expect(node.timeline.entries.slice(-1)).toEqual(['save 2 notOlderThan(0)']);
    expect(strategy.registered.has('orders')).toBe(true);
    expect(String(node.errors[0])).toMatch(
      /Subscription "orders": a checkpoint write was still unanswered when shutdown's 5 s ran out, so this node did not give up the lease yet/u,
    );
    await vi.advanceTimersByTimeAsync(1_000);
    expect(node.timeline.first('unregister')).toBe(-1);
    hanging.open();
    await vi.advanceTimersByTimeAsync(100);
    // Once the write is answered the strategy no longer keeps (and refreshes) a lease that nobody delivers under.
    expect(node.timeline.entries.slice(-3)).toEqual(['save 2 notOlderThan(0)', 'saved 2', 'unregister']);
    expect(strategy.registered.has('orders')).toBe(false);
    expect(node.errors).toHaveLength(1);
  });

  it('a handler still running when the 5 s run out: the positions before it were written at once, the lease is given up, and its late end writes nothing', async () => {
    const stuck = new Gate();
    const { node, storage } = await nodeOnFakeTime({
      handler: async (event) => {
        if (event === 2) {
          await stuck.opened;
        }
      },
    });
    const stopping = node.subscription.shutdown();
    await vi.advanceTimersByTimeAsync(5_000);
    await stopping;
    expect(node.timeline.entries.slice(-3)).toEqual(['save 1 notOlderThan(0)', 'saved 1', 'unregister']);
    stuck.open();
    await vi.advanceTimersByTimeAsync(100);
    expect(node.timeline.entries.at(-1)).toBe('unregister');
    expect(await storage.read('orders')).toBe('1');
  });
});
