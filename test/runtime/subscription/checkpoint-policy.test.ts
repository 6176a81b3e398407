import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  DurableSubscription,
  InMemoryCheckpointStorage,
  type CheckpointPolicy,
  type HandlerContext,
} from '../../../runtime/index.js';
import { CallTimeline } from '../../support/leases/call-timeline.js';
import { DelayedStorage } from '../../support/leases/delayed-storage.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';
import { handSetSubscription } from '../../support/leases/hand-set-subscription.js';

const quick = { holdBackPollMs: 5, retryDelayMs: 20 } as const;

/** Fake setTimeout and performance.now, so that a test moves time itself; the subscription's loops run on them too. */
function useFakeTime(): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
}

/** One subscription without a strategy, recording its handler and storage calls on one timeline. */
function recordedSubscription(
  options: { readonly checkpointEvery?: CheckpointPolicy; readonly subscribeWith?: CheckpointPolicy } = {},
): { timeline: CallTimeline; storage: InMemoryCheckpointStorage; log: EventLog; subscription: DurableSubscription } {
  const timeline = new CallTimeline();
  const storage = new InMemoryCheckpointStorage();
  const log = new EventLog();
  const subscription = new DurableSubscription({
    storage: timeline.storage(storage),
    ...quick,
    ...(options.checkpointEvery === undefined ? {} : { checkpointEvery: options.checkpointEvery }),
  });
  subscription.subscribe(
    'orders',
    log.source,
    (event: number) => {
      timeline.entries.push(`handle ${event}`);
    },
    options.subscribeWith === undefined ? {} : { checkpointEvery: options.subscribeWith },
  );
  return { timeline, storage, log, subscription };
}

/** Shuts `subscription` down while fake time lets its last steps run. */
async function shutDownOnFakeTime(subscription: DurableSubscription): Promise<void> {
  const stopped = subscription.shutdown();
  await vi.advanceTimersByTimeAsync(0);
  await stopped;
}

describe('checkpointEvery', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('without a policy, writes every event before the next one is handled', async () => {
    const { timeline, storage, log, subscription } = recordedSubscription();
    log.append(3);
    await eventually('three events are checkpointed', async () => (await storage.read('orders')) === '2');
    await subscription.shutdown();
    expect(timeline.entries).toEqual([
      'handle 0',
      'save 0 any()',
      'saved 0',
      'handle 1',
      'save 1 any()',
      'saved 1',
      'handle 2',
      'save 2 any()',
      'saved 2',
    ]);
  });

  it('{ events: 3 } writes every third position, waiting for the write before handling on, and the rest at shutdown', async () => {
    const { timeline, storage, log, subscription } = recordedSubscription({ checkpointEvery: { events: 3 } });
    log.append(7);
    await eventually('the sixth position is checkpointed', async () => (await storage.read('orders')) === '5');
    await eventually('the seventh event is handled', () => timeline.entries.includes('handle 6'));
    expect(timeline.all('save ')).toEqual(['save 2 any()', 'save 5 any()']);
    expect(timeline.first('handle 3')).toBeGreaterThan(timeline.first('saved 2'));
    await subscription.shutdown();
    expect(timeline.all('save ')).toEqual(['save 2 any()', 'save 5 any()', 'save 6 any()']);
    expect(await storage.read('orders')).toBe('6');
  });

  it('{ ms: 50 } writes the pending position 50 ms after the oldest one was handled, on an idle source too', async () => {
    useFakeTime();
    const { timeline, storage, log, subscription } = recordedSubscription({ checkpointEvery: { ms: 50 } });
    log.append(5);
    await vi.advanceTimersByTimeAsync(49);
    expect(timeline.all('handle')).toHaveLength(5);
    expect(timeline.all('save ')).toEqual([]);
    await vi.advanceTimersByTimeAsync(1);
    expect(timeline.all('save ')).toEqual(['save 4 any()']);
    expect(await storage.read('orders')).toBe('4');

    await vi.advanceTimersByTimeAsync(100);
    expect(timeline.all('save ')).toHaveLength(1);
    log.append(2);
    await vi.advanceTimersByTimeAsync(49);
    expect(timeline.all('save ')).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(timeline.all('save ')).toEqual(['save 4 any()', 'save 6 any()']);
    await shutDownOnFakeTime(subscription);
  });

  it('{ events: 3, ms: 50 } writes on whichever comes first: the count in a burst, the time when events trickle', async () => {
    useFakeTime();
    const { timeline, log, subscription } = recordedSubscription({ checkpointEvery: { events: 3, ms: 50 } });
    log.append(7);
    await vi.advanceTimersByTimeAsync(0);
    expect(timeline.all('save ')).toEqual(['save 2 any()', 'save 5 any()']);
    await vi.advanceTimersByTimeAsync(50);
    expect(timeline.all('save ')).toEqual(['save 2 any()', 'save 5 any()', 'save 6 any()']);

    // One event every 30 ms: the 50 ms run out before three are pending. Events 7 and 8 arrive at 0 and 30 ms, and
    // the timer started at 0 writes 8 at 50; 9 and 10 arrive at 60 and 90, and the timer started at 60 writes 10 at 110.
    timeline.entries.length = 0;
    log.append(1);
    await vi.advanceTimersByTimeAsync(30);
    log.append(1);
    await vi.advanceTimersByTimeAsync(19);
    expect(timeline.all('save ')).toEqual([]);
    await vi.advanceTimersByTimeAsync(11);
    expect(timeline.all('save ')).toEqual(['save 8 any()']);
    log.append(1);
    await vi.advanceTimersByTimeAsync(30);
    log.append(1);
    await vi.advanceTimersByTimeAsync(30);
    expect(timeline.all('save ')).toEqual(['save 8 any()', 'save 10 any()']);
    await shutDownOnFakeTime(subscription);
  });

  it('a time-based write is fenced with the token of the run', async () => {
    useFakeTime();
    const { strategy, timeline, log, subscription } = handSetSubscription(() => undefined, { ms: 50 });
    strategy.grant(0n);
    log.append(3);
    await vi.advanceTimersByTimeAsync(50);
    expect(timeline.all('save ')).toEqual(['save -1 ifAbsent()', 'save 2 notOlderThan(0)']);
    await shutDownOnFakeTime(subscription);
  });

  it('the timer is cancelled when the run stops, also when the lease is lost and nothing is written', async () => {
    useFakeTime();
    const { strategy, timeline, log, subscription } = handSetSubscription(() => undefined, { ms: 60_000 });
    strategy.grant(0n);
    log.append(2);
    await vi.advanceTimersByTimeAsync(0);
    expect(vi.getTimerCount()).toBe(1);
    strategy.lose();
    await shutDownOnFakeTime(subscription);
    expect(timeline.all('save ')).toEqual(['save -1 ifAbsent()']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('subscribe({ checkpointEvery }) overrides the instance-wide policy for that subscription only', async () => {
    const timeline = new CallTimeline();
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    const subscription = new DurableSubscription({
      storage: timeline.storage(storage),
      checkpointEvery: { events: 100 },
      ...quick,
    });
    const handled: string[] = [];
    subscription.subscribe('batched', log.source, (event: number) => {
      handled.push(`batched ${event}`);
    });
    subscription.subscribe(
      'each',
      log.source,
      (event: number) => {
        handled.push(`each ${event}`);
      },
      { checkpointEvery: { events: 1 } },
    );
    log.append(3);
    await eventually('every event is checkpointed for "each"', async () => (await storage.read('each')) === '2');
    await eventually('every event is handled for "batched"', () => handled.includes('batched 2'));
    expect(await storage.read('batched')).toBeUndefined();
    await subscription.shutdown();
    expect(await storage.read('batched')).toBe('2');
    expect(timeline.all('save ')).toEqual(['save 0 any()', 'save 1 any()', 'save 2 any()', 'save 2 any()']);
  });

  it('writes one at a time and in order over a storage whose replies come back in any order', async () => {
    useFakeTime();
    const inner = new InMemoryCheckpointStorage();
    // Each write takes 1 to 40 ms: a write sent after another would often land before it.
    const storage = new DelayedStorage(inner, (checkpoint) => 1 + ((Number(checkpoint) * 17) % 40));
    const stored: number[] = [];
    const watch = (): void => {
      void inner.read('orders').then((checkpoint) => {
        stored.push(Number(checkpoint ?? '-1'));
      });
    };
    const log = new EventLog();
    const subscription = new DurableSubscription({ storage, checkpointEvery: { events: 2, ms: 3 }, ...quick });
    const contexts = new Set<HandlerContext>();
    subscription.subscribe('orders', log.source, async (event: number, _position, context) => {
      contexts.add(context);
      if (event % 5 === 0) {
        void context.saveCheckpointNow();
      }
      await new Promise((resolve) => setTimeout(resolve, event % 3));
    });
    for (let round = 0; round < 60; round += 1) {
      log.append(1 + (round % 3));
      await vi.advanceTimersByTimeAsync(2);
      watch();
    }
    // Every write blocks delivery for up to 40 ms, so the subscription lags far behind the appends; let it catch up.
    for (let tick = 0; tick < 100; tick += 1) {
      await vi.advanceTimersByTimeAsync(40);
      watch();
    }
    await vi.advanceTimersByTimeAsync(0);
    expect(storage.mostInFlight).toBe(1);
    expect(stored.at(-1)).toBe(log.length - 1);
    for (let index = 1; index < stored.length; index += 1) {
      expect(stored[index] ?? -1, `read ${index}`).toBeGreaterThanOrEqual(stored[index - 1] ?? -1);
    }
    expect(contexts.size).toBe(1);
    await shutDownOnFakeTime(subscription);
  });
});

describe('checkpointEvery is checked where it is given', () => {
  const storage = new InMemoryCheckpointStorage();
  const cases: readonly {
    readonly value: unknown;
    readonly error: typeof TypeError | typeof RangeError;
    readonly message: RegExp;
  }[] = [
    { value: null, error: TypeError, message: /must be an object/u },
    { value: 5, error: TypeError, message: /must be an object/u },
    { value: {}, error: TypeError, message: /needs events, ms or both/u },
    { value: { events: undefined, ms: undefined }, error: TypeError, message: /needs events, ms or both/u },
    { value: { events: 0 }, error: RangeError, message: /events must be a whole number of events, at least 1; got 0/u },
    { value: { events: 1.5 }, error: RangeError, message: /events must be a whole number/u },
    { value: { events: Number.NaN }, error: RangeError, message: /events must be a whole number/u },
    { value: { events: '3' }, error: RangeError, message: /events must be a whole number.*"3"/u },
    { value: { events: Number.POSITIVE_INFINITY }, error: RangeError, message: /events must be a whole number/u },
    { value: { ms: 0 }, error: RangeError, message: /ms must be a number of milliseconds from 1 to 2147483647/u },
    { value: { ms: 2 ** 31 }, error: RangeError, message: /ms must be a number of milliseconds/u },
    { value: { ms: Number.NaN }, error: RangeError, message: /ms must be a number of milliseconds/u },
    { value: { events: 10, ms: '100' }, error: RangeError, message: /ms must be a number of milliseconds/u },
  ];

  it.each(cases)('the constructor refuses checkpointEvery: $value', ({ value, error, message }) => {
    expect(() => new DurableSubscription({ storage, checkpointEvery: value as CheckpointPolicy })).toThrow(error);
    expect(() => new DurableSubscription({ storage, checkpointEvery: value as CheckpointPolicy })).toThrow(
      new RegExp(`^checkpointEvery[ .]${message.source}`, 'u'),
    );
  });

  it.each(cases)(
    'subscribe refuses checkpointEvery: $value, and delivers nothing',
    async ({ value, error, message }) => {
      const log = new EventLog();
      log.append(1);
      const handled: number[] = [];
      const subscription = new DurableSubscription({ storage, ...quick });
      expect(() => {
        subscription.subscribe(
          'orders',
          log.source,
          (event: number) => {
            handled.push(event);
          },
          {
            checkpointEvery: value as CheckpointPolicy,
          },
        );
      }).toThrow(error);
      expect(() => {
        subscription.subscribe('orders', log.source, () => undefined, { checkpointEvery: value as CheckpointPolicy });
      }).toThrow(new RegExp(`^subscribe\\("orders"\\) checkpointEvery[ .]${message.source}`, 'u'));
      await new Promise((resolve) => setTimeout(resolve, 30));
      expect(handled).toEqual([]);
      expect(subscription.isRunning('orders')).toBe(false);
      await subscription.shutdown();
    },
  );

  it('reads each field once, so a getter cannot pass the check with one value and run with another', async () => {
    let reads = 0;
    const shifty = {
      get events(): number {
        reads += 1;
        return reads === 1 ? 2 : 0;
      },
    };
    const timeline = new CallTimeline();
    const log = new EventLog();
    const subscription = new DurableSubscription({
      storage: timeline.storage(new InMemoryCheckpointStorage()),
      checkpointEvery: shifty,
      ...quick,
    });
    subscription.subscribe('orders', log.source, () => undefined);
    log.append(4);
    await eventually('the fourth position is checkpointed', () => timeline.entries.includes('saved 3'));
    await subscription.shutdown();
    expect(reads).toBe(1);
    expect(timeline.all('save ')).toEqual(['save 1 any()', 'save 3 any()']);
  });
});
