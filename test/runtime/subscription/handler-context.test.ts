import { describe, expect, it } from 'vitest';
import {
  CheckpointWriteConditionNotFulfilledError,
  DurableSubscription,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  type Checkpoint,
  type EventHandler,
  type HandlerContext,
} from '../../../runtime/index.js';
import { eventually, EventLog } from '../../support/leases/event-log.js';
import { handSetSubscription, type HandSetSubscription } from '../../support/leases/hand-set-subscription.js';

const quick = { holdBackPollMs: 5, retryDelayMs: 20 } as const;

/** Resolves when `signal` aborts, or after `ms`: a handler's slow work that stops when told to. */
function abortedOrAfter(signal: AbortSignal, ms: number): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** The text of an aborted signal's reason, checked to be an AbortError. */
function abortReason(signal: AbortSignal | undefined): string {
  const reason: unknown = signal?.reason;
  expect(reason).toBeInstanceOf(DOMException);
  expect((reason as DOMException).name).toBe('AbortError');
  return (reason as DOMException).message;
}

describe('the handler context: fencingToken', () => {
  it('is the token of the grant the delivery runs under, one frozen context per run, a new one for a new grant', async () => {
    const contexts: HandlerContext[] = [];
    const { strategy, log, subscription } = handSetSubscription((_event, _position, context) => {
      contexts.push(context);
    });
    log.append(2);
    strategy.grant(7n);
    await eventually('two events handled', () => contexts.length === 2);
    strategy.lose();
    strategy.grant(9n);
    log.append(1);
    await eventually('the third event handled', () => contexts.length === 3);
    await subscription.shutdown();
    expect(contexts.map(({ fencingToken }) => fencingToken)).toEqual([7n, 7n, 9n]);
    expect(contexts[0]).toBe(contexts[1]);
    expect(contexts[2]).not.toBe(contexts[0]);
    expect(Object.isFrozen(contexts[0])).toBe(true);
  });

  it('is undefined, and present, for a subscription without a strategy (it delivers unfenced)', async () => {
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(1);
    const contexts: HandlerContext[] = [];
    const subscription = new DurableSubscription({ storage, ...quick });
    subscription.subscribe('orders', log.source, (_event: number, _position, context) => {
      contexts.push(context);
    });
    await eventually('the event is handled', () => contexts.length === 1);
    await subscription.shutdown();
    expect(Object.keys(contexts[0] ?? {}).sort()).toEqual(['fencingToken', 'saveCheckpointNow', 'signal']);
    expect(contexts[0]?.fencingToken).toBeUndefined();
  });

  it('leaves handlers written for (event, position) working', async () => {
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(2);
    const seen: string[] = [];
    const legacy: EventHandler<number> = (event: number, position: Checkpoint) => {
      seen.push(`${event}@${position}`);
    };
    const subscription = new DurableSubscription({ storage, ...quick });
    subscription.subscribe('orders', log.source, legacy);
    await eventually('both events are checkpointed', async () => (await storage.read('orders')) === '1');
    await subscription.shutdown();
    expect(seen).toEqual(['0@0', '1@1']);
  });
});

describe('the handler context: signal aborts as soon as the run stops', () => {
  it('when this node loses the lease to another node (real timers and leases)', async () => {
    const table = new InMemoryLeaseTable();
    const storage = new InMemoryCheckpointStorage();
    const log = new EventLog();
    log.append(1);
    const strategies = [0, 1].map(() => new InMemoryLeaseStrategy({ table, leaseTimeMs: 300 }));
    const nodes = strategies.map(
      (strategy, index) => new DurableSubscription({ storage, strategy, subscriberId: `node-${index}`, ...quick }),
    );
    const inFlight: { node: number; signal: AbortSignal; abortedAt?: number }[] = [];
    for (const [index, node] of nodes.entries()) {
      node.subscribe(
        'orders',
        log.source,
        async (_event: number, _position, { signal }) => {
          const entry: { node: number; signal: AbortSignal; abortedAt?: number } = { node: index, signal };
          inFlight.push(entry);
          await abortedOrAfter(signal, 10_000);
          entry.abortedAt = performance.now();
        },
        { startPosition: '-1' },
      );
      await eventually(
        `node-${index} is registered`,
        () => index > 0 || strategies[0]?.hasLock('orders', 'node-0') === true,
      );
    }
    try {
      await eventually('node-0 handles event 0', () => inFlight.length === 1);
      const lostAt = performance.now();
      // The lease vanishes (an operator, a failover); node-1 takes it, and node-0 finds out at its next refresh.
      table.deleteLease('orders');
      await eventually("node-0's signal aborts", () => inFlight[0]?.abortedAt !== undefined, 5_000);
      expect(inFlight[0]?.node).toBe(0);
      expect(abortReason(inFlight[0]?.signal)).toMatch(
        /^Delivery of subscription "orders" under fencing token 0 stopped: this node no longer holds the lease/u,
      );
      // A refresh every 100 ms finds the lease gone; a whole second more only absorbs a loaded machine.
      expect((inFlight[0]?.abortedAt ?? Infinity) - lostAt).toBeLessThan(1_100);
      await eventually('node-1 delivers event 0 again', () => inFlight.some(({ node }) => node === 1));
    } finally {
      await Promise.all(nodes.map((node) => node.shutdown()));
      await Promise.all(strategies.map((strategy) => strategy.shutdown()));
    }
  });

  it('when this node gives the lease up after a refused write, before it gives it up', async () => {
    let signal: AbortSignal | undefined;
    let callsWhenAborted: string[] | undefined;
    const { strategy, storage, log, errors, subscription } = handSetSubscription(
      async (event, _position, context) => {
        if (event === 1) {
          signal = context.signal;
          await abortedOrAfter(context.signal, 10_000);
          callsWhenAborted = [...strategy.calls];
        }
      },
      { events: 100, ms: 30 },
    );
    log.append(2);
    strategy.grant(7n);
    await eventually('event 1 is being handled', () => signal !== undefined);
    // Another node took over and fenced with token 8; the timed write of position 0 is refused.
    await storage.advanceWriteVersion('orders', 8n);
    await eventually('the lease is given up', () => strategy.calls.includes('release'));
    expect(abortReason(signal)).toMatch(/stopped: a checkpoint write failed or was refused/u);
    expect(callsWhenAborted).toEqual([]);
    expect(strategy.calls).toEqual(['raiseFencingTokenAbove 8', 'release']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    await subscription.shutdown();
  });

  it.each([
    { stop: 'pause', reason: /stopped: the subscription was paused/u },
    { stop: 'shutdown', reason: /stopped: the DurableSubscription is shutting down/u },
  ] as const)('when the subscription is stopped by $stop(): at once, before it resolves', async ({ stop, reason }) => {
    let signal: AbortSignal | undefined;
    const { strategy, log, subscription } = handSetSubscription(async (_event, _position, context) => {
      signal = context.signal;
      await abortedOrAfter(context.signal, 10_000);
    });
    log.append(1);
    strategy.grant(0n);
    await eventually('the event is being handled', () => signal !== undefined);
    expect(signal?.aborted).toBe(false);
    const stopping = stop === 'pause' ? subscription.pause('orders') : subscription.shutdown();
    expect(signal?.aborted).toBe(true);
    expect(abortReason(signal)).toMatch(reason);
    await stopping;
    await subscription.shutdown();
  });
});

describe('the handler context: saveCheckpointNow()', () => {
  it('writes the position of the last event whose handler returned, fenced, and resolves to it', async () => {
    let answer: Checkpoint | undefined;
    const { strategy, storage, timeline, log, subscription } = handSetSubscription(
      async (event, _position, context) => {
        timeline.entries.push(`handle ${event}`);
        if (event === 3) {
          answer = await context.saveCheckpointNow();
        }
      },
      { events: 100 },
    );
    log.append(5);
    strategy.grant(7n);
    await eventually('all five are handled', () => timeline.entries.includes('handle 4'));
    expect(answer).toBe('2');
    expect(await storage.read('orders')).toBe('2');
    expect(await storage.writeVersion('orders')).toBe(7n);
    expect(timeline.entries.slice(timeline.first('handle 3'))).toEqual([
      'handle 3',
      'save 2 notOlderThan(7)',
      'saved 2',
      'handle 4',
    ]);
    await subscription.shutdown();
  });

  it('resolves to undefined and sends nothing when nothing is pending', async () => {
    const answers: (Checkpoint | undefined)[] = [];
    const { strategy, timeline, log, subscription } = handSetSubscription(async (_event, _position, context) => {
      answers.push(await context.saveCheckpointNow());
    });
    log.append(2);
    strategy.grant(0n);
    await eventually('both are checkpointed', () => timeline.entries.includes('saved 1'));
    await subscription.shutdown();
    // The first event of a run has nothing before it; with every event written, neither has the second.
    expect(answers).toEqual([undefined, undefined]);
    expect(timeline.all('save ')).toEqual(['save -1 ifAbsent()', 'save 0 notOlderThan(0)', 'save 1 notOlderThan(0)']);
  });

  it('rejects with the refusal when another node has fenced; the run ends, the lease is given up, reported once', async () => {
    let rejection: unknown;
    const { strategy, storage, log, errors, subscription } = handSetSubscription(
      async (event, _position, context) => {
        if (event === 2) {
          await storage.advanceWriteVersion('orders', 8n);
          try {
            await context.saveCheckpointNow();
          } catch (error) {
            rejection = error;
            throw error;
          }
        }
      },
      { events: 100 },
    );
    log.append(4);
    strategy.grant(7n);
    await eventually('the lease is given up', () => strategy.calls.includes('release'));
    expect(rejection).toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(errors).toEqual([rejection]);
    expect(strategy.calls).toEqual(['raiseFencingTokenAbove 8', 'release']);
    expect(await storage.read('orders')).toBe('-1');
    await subscription.shutdown();
  });

  /**
   * Events 0–2 under token 0 with `{ events: 100 }`; the handler of event 2 waits for its signal, then calls
   * `saveCheckpointNow()` and keeps how that settled in `answer`.
   */
  async function savingAfterItsSignal(): Promise<
    HandSetSubscription & { readonly answer: () => { readonly settled: string; readonly value: unknown } | undefined }
  > {
    let answer: { readonly settled: string; readonly value: unknown } | undefined;
    const handled: number[] = [];
    const subscription = handSetSubscription(
      async (event, _position, context) => {
        handled.push(event);
        if (event === 2) {
          await abortedOrAfter(context.signal, 10_000);
          answer = await context.saveCheckpointNow().then(
            (value) => ({ settled: 'resolved', value }),
            (error: unknown) => ({ settled: 'rejected', value: error }),
          );
        }
      },
      { events: 100 },
    );
    subscription.log.append(3);
    subscription.strategy.grant(0n);
    await eventually('event 2 is being handled', () => handled.includes(2));
    return { ...subscription, answer: () => answer };
  }

  it('still writes from a handler finishing after a pause (the lease is still this node’s until the run is over)', async () => {
    const { strategy, timeline, subscription, answer } = await savingAfterItsSignal();
    await subscription.pause('orders');
    // The pause wrote position 1 at once, so the handler's call found nothing left; the handler of event 2 returned
    // after, and its position went out before the lease was given up.
    expect(answer()).toEqual({ settled: 'resolved', value: undefined });
    expect(timeline.entries).toEqual([
      'save -1 ifAbsent()',
      'saved -1',
      'save 1 notOlderThan(0)',
      'saved 1',
      'save 2 notOlderThan(0)',
      'saved 2',
    ]);
    expect(strategy.calls).toEqual(['unregister']);
    await subscription.shutdown();
  });

  it('rejects, and sends nothing, once the run stopped without the lease', async () => {
    const { strategy, timeline, subscription, answer } = await savingAfterItsSignal();
    strategy.lose();
    await eventually('the handler has asked', () => answer() !== undefined);
    expect(answer()?.settled).toBe('rejected');
    expect(String(answer()?.value)).toMatch(
      /^Error: Checkpoint "1" of subscription "orders" was not written: the run under fencing token 0 has stopped and this node no longer holds its lease/u,
    );
    expect(timeline.all('save ')).toEqual(['save -1 ifAbsent()']);
    await subscription.shutdown();
  });
});
