import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { runCheckpointLoop } from '../../bench/soak/checkpoint-loop.js';
import { analyseSoakHistory, type SoakAnalysis } from '../../bench/soak/soak-analysis.js';
import { StallableLeaseClock } from '../../bench/soak/stallable-lease-clock.js';
import {
  CheckpointWriteCondition,
  CheckpointWriteConditionNotFulfilledError,
  DurableSubscription,
  DuplicateSubscriberError,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  StorageCannotBeFencedError,
  type Checkpoint,
  type CheckpointPolicy,
  type CheckpointStorage,
} from '../../runtime/index.js';
import { DelayedStorage } from '../support/leases/delayed-storage.js';
import { EventLog } from '../support/leases/event-log.js';
import { HistoryRecorder, RecordingCheckpointStorage } from '../support/linearizability/index.js';

// The soak's workload in one process on fake time: three nodes on InMemoryLeaseStrategy with 300 ms leases share a
// table and a storage, and stall for longer than the lease whenever fast-check says so. Seconds of simulated time
// run in milliseconds, and a failing stall plan shrinks.

const leaseMs = 300;
const nodes = 3;
const subscriptionIds = ['orders', 'payments'];

interface Stall {
  readonly atMs: number;
  readonly node: number;
  readonly ms: number;
}

/** A storage that takes every condition for `any()`: what fencing looks like when a storage silently ignores it. */
class ConditionIgnoringStorage extends InMemoryCheckpointStorage {
  override save(subscriptionId: string, checkpoint: string): Promise<string> {
    return super.save(subscriptionId, checkpoint, CheckpointWriteCondition.any());
  }
}

/** Runs the workload for `runMs` of fake time with `stalls` injected, and analyses the recorded history. */
async function runLeaseFencing(
  stalls: readonly Stall[],
  seed: number,
  runMs: number,
  storage: CheckpointStorage,
): Promise<SoakAnalysis> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  let random = seed >>> 0;
  const next = (): number => {
    random = (Math.imul(random, 1_664_525) + 1_013_904_223) >>> 0;
    return random / 2 ** 32;
  };
  const table = new InMemoryLeaseTable();
  const recorder = new HistoryRecorder();
  const run = { active: true };
  const clocks = Array.from({ length: nodes }, () => new StallableLeaseClock());
  const strategies = clocks.map(
    (clock) => new InMemoryLeaseStrategy({ table, leaseTimeMs: leaseMs, clock, onError: () => undefined }),
  );
  for (const { atMs, node, ms } of stalls) {
    setTimeout(() => clocks[node]?.stall(ms), atMs);
  }
  const loops = strategies.flatMap((strategy, node) =>
    subscriptionIds.map(async (id) => {
      await strategy.register(id, `node-${node}`);
      await runCheckpointLoop(
        {
          subscriberId: `node-${node}`,
          strategy,
          storage: new RecordingCheckpointStorage(storage, recorder, `node-${node}/${id}`),
          clock: clocks[node] ?? new StallableLeaseClock(),
          shouldStop: () => !run.active,
          onWrite: () => undefined,
          random: next,
        },
        id,
      );
    }),
  );
  const observers = subscriptionIds.map(async (id) => {
    const reader = new RecordingCheckpointStorage(storage, recorder, `observer/${id}`);
    while (run.active) {
      await reader.read(id);
      await new Promise((resolve) => setTimeout(resolve, 7));
    }
  });
  await vi.advanceTimersByTimeAsync(runMs);
  run.active = false;
  await vi.advanceTimersByTimeAsync(4 * leaseMs);
  await Promise.all([...loops, ...observers]);
  await Promise.all(strategies.map((strategy) => strategy.shutdown()));
  return analyseSoakHistory(recorder.history());
}

describe('lease fencing on InMemoryLeaseStrategy, the soak workload on fake time', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('refuses the write a stalled holder sends with its old token after another node took over', async () => {
    // node-0 registers first, so it holds both leases with token 0; it stalls for three lease times.
    const analysis = await runLeaseFencing(
      [{ atMs: 500, node: 0, ms: 3 * leaseMs }],
      1,
      3_000,
      new InMemoryCheckpointStorage(),
    );
    expect(analysis.refused).toBeGreaterThanOrEqual(2);
    expect(analysis.linearizability.valid).toBe(true);
    expect(analysis.staleBackwardMoves).toEqual([]);
    expect(analysis.anomalies).toBe(0);
  });

  it('reports the same stall as anomalies on a storage that ignores the condition', async () => {
    const analysis = await runLeaseFencing(
      [{ atMs: 500, node: 0, ms: 3 * leaseMs }],
      1,
      3_000,
      new ConditionIgnoringStorage(),
    );
    expect(analysis.refused).toBe(0);
    expect(analysis.linearizability.valid).toBe(false);
    expect(analysis.staleBackwardMoves.length).toBeGreaterThan(0);
  });

  it('never lets a stale token move a checkpoint backward, whatever the stalls', async () => {
    const stall = fc.record({
      atMs: fc.integer({ min: 0, max: 1_500 }),
      node: fc.integer({ min: 0, max: nodes - 1 }),
      ms: fc.integer({ min: 1, max: 4 * leaseMs }),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(stall, { maxLength: 6 }), fc.integer(), async (stalls, seed) => {
        const analysis = await runLeaseFencing(stalls, seed, 2_000, new InMemoryCheckpointStorage());
        vi.useRealTimers();
        expect(analysis.linearizability.violations.map(({ explanation }) => explanation)).toEqual([]);
        expect(analysis.anomalies).toBe(0);
      }),
      { numRuns: 15 },
    );
    // CPU-bound on fake time: a few seconds alone, more on a loaded two-core machine.
  }, 60_000);
});

/** What fast-check throws at the DurableSubscription nodes, each at `atMs` of fake time. */
type SubscriptionFault =
  | { readonly kind: 'stall'; readonly atMs: number; readonly node: number; readonly ms: number }
  | { readonly kind: 'loseCounter'; readonly atMs: number; readonly alsoLease: boolean }
  | { readonly kind: 'pause'; readonly atMs: number; readonly node: number; readonly ms: number }
  | { readonly kind: 'duplicate'; readonly atMs: number; readonly node: number; readonly sameSubscriberId: boolean }
  | { readonly kind: 'unfenceable'; readonly atMs: number; readonly node: number };

/**
 * Fences every id but those ending in `}v2`, the shape Cluster-safe Redis cannot fence. Records every checkpoint it
 * accepted, in the order it applied them: a write that moved the checkpoint back and was overwritten before the
 * observer looked still shows here.
 */
class PartlyFenceableStorage extends InMemoryCheckpointStorage {
  readonly accepted: number[] = [];

  evaluatesWriteConditionsFor(subscriptionId: string): boolean {
    return !subscriptionId.endsWith('}v2');
  }

  override async save(
    subscriptionId: string,
    checkpoint: string,
    condition: CheckpointWriteCondition,
  ): Promise<string> {
    const stored = await super.save(subscriptionId, checkpoint, condition);
    this.accepted.push(Number(checkpoint));
    return stored;
  }
}

/** How the nodes checkpoint, and whether the storage answers writes late and out of order. */
interface CheckpointSetup {
  /** Every node's `checkpointEvery`; every event when undefined. */
  readonly policy: CheckpointPolicy | undefined;
  /** Each write answered after 0 to 12 ms of fake time, so replies to writes sent close together can cross. */
  readonly slowWrites: boolean;
}

const everyEventNow: CheckpointSetup = { policy: undefined, slowWrites: false };

/** One run of one node (one grant): where its source started and what its handler was given, in order. */
interface DeliveryRunRecord {
  readonly node: number;
  readonly from: number;
  readonly startedAt: number;
  readonly delivered: number[];
}

interface SubscriptionRunReport {
  /** Every stored checkpoint and version the observer read, in order, with the fake time it read them at. */
  readonly observed: readonly { readonly at: number; readonly checkpoint: number; readonly version: bigint }[];
  /** Observations of a checkpoint whose events were not all handled when it was read: at-least-once broken. */
  readonly storedBeforeHandled: readonly string[];
  readonly runs: readonly DeliveryRunRecord[];
  /** Every checkpoint the storage accepted, in the order it applied them. */
  readonly accepted: readonly number[];
  /** The stored checkpoint once every node has shut down. */
  readonly finalCheckpoint: number;
  /** Fake time of each lost counter. */
  readonly lostAt: readonly number[];
  readonly handled: ReadonlySet<number>;
  readonly events: number;
  /** Fake time from the last fault's end until every event was checkpointed; `undefined` if that never happened. */
  readonly settledAfterMs: number | undefined;
  readonly refusals: number;
  /** Subscribe calls the faults made that must have been refused, and what each threw. */
  readonly refusedSubscribes: readonly { readonly kind: string; readonly threw: unknown }[];
  readonly otherErrors: readonly unknown[];
}

/**
 * Three DurableSubscription nodes on InMemoryLeaseStrategy (300 ms leases, one table, one storage) deliver one
 * subscription while `faults` happen: stalls of a node's lease timers and handler, lost token counters (with or
 * without the lease), pauses, a second DurableSubscription on a node's strategy, an unfenceable id. Events arrive
 * every 10 ms for 1.5 s; the run goes on until every event is checkpointed or 6 s after the last fault.
 */
async function runDurableSubscriptions(
  faults: readonly SubscriptionFault[],
  setup: CheckpointSetup = everyEventNow,
): Promise<SubscriptionRunReport> {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
  const table = new InMemoryLeaseTable();
  const storage = new PartlyFenceableStorage();
  let writes = 0;
  const nodeStorage: CheckpointStorage = setup.slowWrites
    ? new DelayedStorage(storage, () => (writes++ * 7) % 13)
    : storage;
  const log = new EventLog();
  const handled = new Set<number>();
  const runs = new Map<AbortSignal, DeliveryRunRecord>();
  const otherErrors: unknown[] = [];
  const refusedSubscribes: { kind: string; threw: unknown }[] = [];
  let refusals = 0;
  const lostAt: number[] = [];
  const members = Array.from({ length: nodes }, (_, index) => {
    const clock = new StallableLeaseClock();
    const strategy = new InMemoryLeaseStrategy({ table, leaseTimeMs: leaseMs, clock, onError: () => undefined });
    const subscription = new DurableSubscription({
      storage: nodeStorage,
      strategy,
      subscriberId: `node-${index}`,
      holdBackPollMs: 10,
      retryDelayMs: 50,
      ...(setup.policy === undefined ? {} : { checkpointEvery: setup.policy }),
      onError: (error) => {
        if (error instanceof CheckpointWriteConditionNotFulfilledError) {
          refusals += 1;
        } else {
          otherErrors.push(error);
        }
      },
    });
    subscription.subscribe(
      'orders',
      (from: Checkpoint | undefined, signal: AbortSignal) => {
        runs.set(signal, { node: index, from: Number(from ?? '-1'), startedAt: performance.now(), delivered: [] });
        return log.source(from, signal);
      },
      async (event: number, _position, { signal, saveCheckpointNow }) => {
        runs.get(signal)?.delivered.push(event);
        if (event % 7 === 0) {
          // Not awaited: a write asked for mid-event, racing the policy's own writes. Its failure ends the run.
          saveCheckpointNow().catch(() => undefined);
        }
        await new Promise((resolve) => setTimeout(resolve, 1 + (event % 4)));
        // A stalled node stays inside its handler: its late checkpoint goes out with the token it had.
        await clock.untilRunning();
        handled.add(event);
      },
      { startPosition: '-1' },
    );
    return { clock, strategy, subscription, subscriberId: `node-${index}` };
  });
  const intruders: DurableSubscription[] = [];
  for (const fault of faults) {
    setTimeout(() => {
      const target = 'node' in fault ? members[fault.node] : undefined;
      switch (fault.kind) {
        case 'stall':
          target?.clock.stall(fault.ms);
          break;
        case 'loseCounter':
          lostAt.push(performance.now());
          table.forgetTokens('orders');
          if (fault.alsoLease) {
            table.deleteLease('orders');
          }
          break;
        case 'pause':
          void target?.subscription.pause('orders').then(
            () =>
              new Promise<void>((resolve) => {
                setTimeout(() => {
                  void target.subscription.resume('orders').then(resolve);
                }, fault.ms);
              }),
          );
          break;
        case 'duplicate':
        case 'unfenceable': {
          if (target === undefined) {
            break;
          }
          const intruder = new DurableSubscription({
            storage,
            strategy: target.strategy,
            subscriberId: fault.kind === 'duplicate' && !fault.sameSubscriberId ? 'intruder' : target.subscriberId,
          });
          intruders.push(intruder);
          try {
            intruder.subscribe(fault.kind === 'duplicate' ? 'orders' : 'orders}v2', log.source, () => {
              throw new Error('a refused subscription must never deliver');
            });
            refusedSubscribes.push({ kind: fault.kind, threw: undefined });
          } catch (error) {
            refusedSubscribes.push({ kind: fault.kind, threw: error });
          }
          break;
        }
      }
    }, fault.atMs);
  }
  const appending = (async () => {
    for (let event = 0; event < 150; event += 1) {
      log.append(1);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  })();
  const observed: { at: number; checkpoint: number; version: bigint }[] = [];
  const storedBeforeHandled: string[] = [];
  const run = { active: true };
  const observer = (async () => {
    while (run.active) {
      const checkpoint = await storage.read('orders');
      const version = await storage.writeVersion('orders');
      if (checkpoint !== undefined && version !== undefined) {
        observed.push({ at: performance.now(), checkpoint: Number(checkpoint), version });
        const unhandled = Array.from({ length: Number(checkpoint) + 1 }, (_, event) => event).filter(
          (event) => !handled.has(event),
        );
        if (unhandled.length > 0) {
          storedBeforeHandled.push(
            `checkpoint ${checkpoint} stored before events ${unhandled.join(', ')} were handled`,
          );
        }
      }
      await new Promise((resolve) => setTimeout(resolve, 7));
    }
  })();
  const lastFaultEnds = Math.max(
    1_500,
    ...faults.map((fault) => fault.atMs + (fault.kind === 'stall' || fault.kind === 'pause' ? fault.ms : 0)),
  );
  await vi.advanceTimersByTimeAsync(lastFaultEnds);
  await appending;
  // Settled: every event handled and the last position stored or, when the policy counts events only (an idle source
  // then keeps its tail pending until a pause or a shutdown writes it), the last event handled in a run still under
  // way, whose shutdown writes it. A tail handled in a run that lost its lease is never written by that node: the
  // next holder delivers it again.
  const lastStoredByTime = setup.policy === undefined || setup.policy.ms !== undefined;
  const tailPendingInLiveRun = (): boolean =>
    [...runs].some(([signal, { delivered }]) => !signal.aborted && delivered.includes(149)) && handled.has(149);
  let settledAfterMs: number | undefined;
  for (let waited = 0; waited <= 6_000; waited += 25) {
    const lastStored = (await storage.read('orders')) === '149';
    if (handled.size === 150 && (lastStored || (!lastStoredByTime && tailPendingInLiveRun()))) {
      settledAfterMs = waited;
      break;
    }
    await vi.advanceTimersByTimeAsync(25);
  }
  run.active = false;
  await vi.advanceTimersByTimeAsync(50);
  await observer;
  // Fake timers drive the shutdowns' own deadlines too, so time moves on while they run.
  const shutdowns = Promise.all([
    ...members.map(({ subscription }) => subscription.shutdown()),
    ...intruders.map((intruder) => intruder.shutdown()),
  ]).then(() => Promise.all(members.map(({ strategy }) => strategy.shutdown())));
  await vi.advanceTimersByTimeAsync(12_000);
  await shutdowns;
  return {
    observed,
    storedBeforeHandled,
    runs: [...runs.values()],
    accepted: storage.accepted,
    finalCheckpoint: Number((await storage.read('orders')) ?? '-1'),
    lostAt,
    handled,
    events: log.length,
    settledAfterMs,
    refusals,
    refusedSubscribes,
    otherErrors,
  };
}

describe('DurableSubscription on InMemoryLeaseStrategy, fake time: refusals, lost counters, unfenceable ids, duplicate subscribers', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  const expectSound = (report: SubscriptionRunReport): void => {
    expect(report.settledAfterMs, 'every event handled (and checkpointed) within 6 s of the last fault').toBeDefined();
    expect(report.finalCheckpoint, 'the last position stored once every node shut down').toBe(report.events - 1);
    expect(report.storedBeforeHandled).toEqual([]);
    const backward = report.accepted.flatMap((checkpoint, index) =>
      index > 0 && checkpoint < (report.accepted[index - 1] ?? -1)
        ? [`accepted ${checkpoint} after ${report.accepted[index - 1]}`]
        : [],
    );
    expect(backward).toEqual([]);
    for (const { node, from, startedAt, delivered } of report.runs) {
      // Each run starts from the stored checkpoint (nothing stored before it began is newer) and delivers on from
      // there without a gap: what the previous holder handled but never stored is delivered again.
      const newestBefore = Math.max(
        -1,
        ...report.observed.filter(({ at }) => at < startedAt).map(({ checkpoint }) => checkpoint),
      );
      expect(from, `node-${node}'s run at ${startedAt} ms starts from the stored checkpoint`).toBeGreaterThanOrEqual(
        newestBefore,
      );
      expect(delivered, `node-${node}'s run from ${from}`).toEqual(
        Array.from({ length: delivered.length }, (_, index) => from + 1 + index),
      );
    }
    for (let event = 0; event < report.events; event += 1) {
      expect(report.handled.has(event), `event ${event} handled`).toBe(true);
    }
    for (let index = 1; index < report.observed.length; index += 1) {
      const [before, after] = [report.observed[index - 1], report.observed[index]];
      expect(after?.checkpoint ?? -1, `checkpoint after ${before?.checkpoint}`).toBeGreaterThanOrEqual(
        before?.checkpoint ?? -1,
      );
      expect((after?.version ?? -1n) >= (before?.version ?? -1n)).toBe(true);
    }
    for (const { kind, threw } of report.refusedSubscribes) {
      expect(threw).toBeInstanceOf(kind === 'duplicate' ? DuplicateSubscriberError : StorageCannotBeFencedError);
    }
    expect(report.otherErrors).toEqual([]);
  };

  /** Fake time from the loss until the observer first read a version above every version read before it. */
  const healedAfterMs = (report: SubscriptionRunReport, loss: number): number | undefined => {
    const before = report.observed.filter(({ at }) => at <= loss).map(({ version }) => version);
    const highest = before.reduce((max, version) => (version > max ? version : max), -1n);
    const healed = report.observed.find(({ at, version }) => at > loss && version > highest);
    return healed === undefined ? undefined : healed.at - loss;
  };

  it('a lease server restarted without persistence mid-run (lease and counter lost) is refused once and heals within two lease times', async () => {
    // node-0 registers first and takes token 0; its pause hands the subscription over with token 1, then the loss.
    const report = await runDurableSubscriptions([
      { kind: 'pause', atMs: 300, node: 0, ms: 100 },
      { kind: 'loseCounter', atMs: 1_000, alsoLease: true },
    ]);
    expectSound(report);
    expect(report.refusals).toBe(1);
    expect(healedAfterMs(report, report.lostAt[0] ?? -1)).toBeLessThanOrEqual(2 * leaseMs);
  });

  it('a counter lost under a holder that keeps its lease changes nothing until the next hand-over, which heals it', async () => {
    const report = await runDurableSubscriptions([
      { kind: 'pause', atMs: 300, node: 0, ms: 100 },
      { kind: 'loseCounter', atMs: 1_000, alsoLease: false },
      { kind: 'stall', atMs: 1_100, node: 1, ms: 2 * leaseMs },
      { kind: 'stall', atMs: 1_100, node: 2, ms: 2 * leaseMs },
    ]);
    expectSound(report);
    expect(report.refusals).toBeGreaterThanOrEqual(1);
  });

  it('a counter that re-mints the token a stalled holder still has is caught at acquire, before anything moves backward', async () => {
    // Found by the property below: node-0 holds token 0 and stalls past its lease; the lost counter mints 0 again.
    const report = await runDurableSubscriptions([
      { kind: 'loseCounter', atMs: 0, alsoLease: false },
      { kind: 'stall', atMs: 2, node: 0, ms: 374 },
    ]);
    expectSound(report);
    expect(report.refusals).toBeGreaterThanOrEqual(1);
  });

  it('{ events: 100 }: a holder stalled past its lease loses its pending positions, and the next holder delivers those events again', async () => {
    // node-0 takes token 0, handles events without writing them (100 are never pending at once), and stalls mid-event.
    const report = await runDurableSubscriptions([{ kind: 'stall', atMs: 400, node: 0, ms: 3 * leaseMs }], {
      policy: { events: 100 },
      slowWrites: false,
    });
    expectSound(report);
    const [first, second] = [...report.runs].sort((x, y) => x.startedAt - y.startedAt);
    expect(first?.node).toBe(0);
    expect(second?.node).not.toBe(0);
    // What node-0 handled after its last stored checkpoint (its handler asks for a write every seventh event).
    const handledNotStored = first?.delivered.filter((event) => event > (second?.from ?? Infinity)) ?? [];
    expect(handledNotStored.length).toBeGreaterThan(0);
    expect(second?.delivered.slice(0, handledNotStored.length)).toEqual(handledNotStored);
  });

  it("{ ms: 5 } over writes answered out of order: the timer's writes and the handlers' saveCheckpointNow() never cross", async () => {
    // Found by the property below, shrunk, with the writes of one run sent side by side: 'accepted 11 after 15'.
    const report = await runDurableSubscriptions([{ kind: 'loseCounter', atMs: 0, alsoLease: true }], {
      policy: { ms: 5 },
      slowWrites: true,
    });
    expectSound(report);
  });

  it('{ events: 5, ms: 40 } over writes answered out of order: a lost counter and stalls still move nothing backward', async () => {
    const report = await runDurableSubscriptions(
      [
        { kind: 'pause', atMs: 300, node: 0, ms: 100 },
        { kind: 'loseCounter', atMs: 1_000, alsoLease: true },
        { kind: 'stall', atMs: 1_100, node: 1, ms: 2 * leaseMs },
      ],
      { policy: { events: 5, ms: 40 }, slowWrites: true },
    );
    expectSound(report);
    expect(report.refusals).toBeGreaterThanOrEqual(1);
  });

  it('never moves a checkpoint backward, never stalls, and refuses every duplicate or unfenceable subscribe, whatever the faults', async () => {
    const atMs = fc.integer({ min: 0, max: 1_500 });
    const node = fc.integer({ min: 0, max: nodes - 1 });
    const fault: fc.Arbitrary<SubscriptionFault> = fc.oneof(
      fc.record({ kind: fc.constant('stall' as const), atMs, node, ms: fc.integer({ min: 1, max: 4 * leaseMs }) }),
      fc.record({ kind: fc.constant('loseCounter' as const), atMs, alsoLease: fc.boolean() }),
      fc.record({ kind: fc.constant('pause' as const), atMs, node, ms: fc.integer({ min: 1, max: 2 * leaseMs }) }),
      fc.record({ kind: fc.constant('duplicate' as const), atMs, node, sameSubscriberId: fc.boolean() }),
      fc.record({ kind: fc.constant('unfenceable' as const), atMs, node }),
    );
    const events = fc.integer({ min: 1, max: 8 });
    const ms = fc.integer({ min: 5, max: 120 });
    const setup: fc.Arbitrary<CheckpointSetup> = fc.record({
      policy: fc.option(fc.oneof(fc.record({ events }), fc.record({ ms }), fc.record({ events, ms })), {
        nil: undefined,
      }),
      slowWrites: fc.boolean(),
    });
    await fc.assert(
      fc.asyncProperty(fc.array(fault, { maxLength: 6 }), setup, async (faults, checkpoints) => {
        const report = await runDurableSubscriptions(faults, checkpoints);
        vi.useRealTimers();
        expectSound(report);
      }),
      { numRuns: 40 },
    );
    // CPU-bound on fake time: seconds alone, more on a loaded two-core machine.
  }, 120_000);
});
