import { afterEach, describe, expect, it } from 'vitest';
import { StoredMembership, type MembershipStore } from '../../../runtime/partitions/index.js';
import {
  CheckpointWriteCondition as Condition,
  CheckpointWriteConditionNotFulfilledError,
  formatWriteCondition,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  LeaseKeepingStrategy,
  InMemoryLeaseTable,
  InMemoryMembership,
  InMemoryMembershipTable,
  PartitionedSubscription,
  partitionOf,
  type CheckpointWriteCondition,
  type HeldLease,
  type LeaseStore,
  type PartitionedSubscriptionOptions,
  type PartitionHandlerContext,
} from '../../../runtime/index.js';
import { TestLog, until, type LogEvent } from '../../support/partitions/partitioned-scenario.js';
import { RecordingTelemetry } from '../../support/telemetry/recording-telemetry.js';
import { ThrowingMeterProvider } from '../../support/telemetry/throwing-telemetry.js';

const leaseTimeMs = 600;
const memberTimeMs = 240;

interface Cluster {
  readonly storage: InMemoryCheckpointStorage;
  readonly leases: RecordingLeaseTable;
  readonly members: InMemoryMembershipTable;
  readonly handled: { node: string; event: LogEvent; context: PartitionHandlerContext }[];
  readonly node: (
    nodeId: string,
    extra?: Partial<PartitionedSubscriptionOptions<LogEvent>>,
  ) => PartitionedSubscription<LogEvent>;
}

const running: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((stop) => stop()));
});

/** What the storage, the lease table and the handlers did, in order. */
const timeline: string[] = [];

/** Records each stored checkpoint with the token it was stamped with, each fence and each read. */
class RecordingStorage extends InMemoryCheckpointStorage {
  override async save(id: string, checkpoint: string, condition: CheckpointWriteCondition): Promise<string> {
    const saved = await super.save(id, checkpoint, condition);
    timeline.push(`save ${id} ${checkpoint} ${formatWriteCondition(condition)}`);
    return saved;
  }

  override async advanceWriteVersion(id: string, version: bigint): Promise<void> {
    await super.advanceWriteVersion(id, version);
    timeline.push(`fence ${id} ${version}`);
  }

  override async read(id: string): Promise<string | undefined> {
    const checkpoint = await super.read(id);
    timeline.push(`read ${id} ${checkpoint ?? '-'}`);
    return checkpoint;
  }
}

/** Records each grant and each release, by node, and when each lease was last set in the table. */
class RecordingLeaseTable extends InMemoryLeaseTable {
  readonly #granted = new Set<string>();
  readonly setAt = new Map<string, number>();

  override async refreshAll(leases: readonly HeldLease[], leaseTimeMs: number): Promise<readonly boolean[]> {
    const renewed = await super.refreshAll(leases, leaseTimeMs);
    leases.forEach(
      ({ subscriptionId }, index) => renewed[index] === true && this.setAt.set(subscriptionId, performance.now()),
    );
    return renewed;
  }

  override async acquire(id: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined> {
    const token = await super.acquire(id, owner, leaseTimeMs);
    if (token !== undefined) {
      this.setAt.set(id, performance.now());
    }
    if (token !== undefined && !this.#granted.has(`${id} ${owner} ${token}`)) {
      this.#granted.add(`${id} ${owner} ${token}`);
      timeline.push(`grant ${id} ${owner.split(' ')[0] ?? ''} ${token}`);
    }
    return token;
  }

  override async release(id: string, owner: string, token: bigint): Promise<void> {
    timeline.push(`release ${id} ${owner.split(' ')[0] ?? ''} ${token}`);
    await super.release(id, owner, token);
  }
}

function cluster(log: TestLog, partitions = 8): Cluster {
  timeline.length = 0;
  const storage = new RecordingStorage();
  const leases = new RecordingLeaseTable();
  const members = new InMemoryMembershipTable();
  const handled: Cluster['handled'] = [];
  return {
    storage,
    leases,
    members,
    handled,
    node: (nodeId, extra = {}) => {
      const strategy = new InMemoryLeaseStrategy({ table: leases, leaseTimeMs });
      const subscription = new PartitionedSubscription<LogEvent>({
        name: 'orders',
        partitions,
        partitionKey: (event) => event.stream,
        source: log.source,
        handler: (event, position, context) => {
          handled.push({ node: nodeId, event, context });
          timeline.push(`handle orders/${context.partition} ${nodeId} ${position}`);
        },
        storage,
        strategy,
        membership: new InMemoryMembership({ table: members, memberTimeMs }),
        nodeId,
        drainTimeoutMs: 200,
        onError: () => undefined,
        ...extra,
      });
      running.push(async () => {
        await subscription.shutdown();
        await strategy.shutdown();
      });
      return subscription;
    },
  };
}

describe('PartitionedSubscription on the in-memory backends', () => {
  it('one node takes every partition, hands each event to its partition once, and reads the log once', async () => {
    const log = new TestLog();
    log.append(400);
    const { handled, storage, node } = cluster(log);
    const a = node('a');
    await a.start();
    await until(() => handled.length >= 400);
    expect(new Set(handled.map(({ event }) => event.n)).size).toBe(400);
    for (const { event, context } of handled) {
      expect(context.partition).toBe(partitionOf(event.stream, 8));
      expect(context.fencingToken).toBe(0n);
    }
    expect(a.status().eventsRead).toBe(400);
    expect(log.reads).toBe(400);
    const status = a.status();
    expect(status.nodeId).toBe('a');
    expect(status.members.map((member) => member.nodeId)).toEqual(['a']);
    expect(status.partitions.map((p) => p.partition)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    await until(() => a.status().partitions.every((p) => p.checkpoint === '400'));
    await a.shutdown();
    for (let partition = 0; partition < 8; partition += 1) {
      expect(await storage.read(`orders/${partition}`)).toBe('400');
    }
  });

  it('two nodes split the partitions four and four, and a third joining moves some over', async () => {
    const log = new TestLog();
    log.append(200);
    const { handled, node } = cluster(log);
    const a = node('a');
    const b = node('b');
    await Promise.all([a.start(), b.start()]);
    await until(() => a.status().partitions.length === 4 && b.status().partitions.length === 4);
    await until(() => new Set(handled.map(({ event }) => event.n)).size === 200);
    const c = node('c');
    await c.start();
    await until(() => c.status().partitions.length >= 2);
    const counts = [a, b, c].map((s) => s.status().partitions.length).sort();
    expect(counts).toEqual([2, 3, 3]);
    log.append(100);
    await until(() => new Set(handled.map(({ event }) => event.n)).size === 300);
  });
});

describe('PartitionedSubscription hand-over', () => {
  it('revokes before it assigns: last write under the old token, release, then the grant, fence and read, then handling', async () => {
    const log = new TestLog();
    log.append(200);
    const { handled, node } = cluster(log);
    const a = node('a');
    await a.start();
    await until(() => new Set(handled.map(({ event }) => event.n)).size === 200);
    await until(() => a.status().partitions.every((p) => p.checkpoint === '200'));
    const b = node('b');
    await b.start();
    await until(() => b.status().partitions.length === 4 && a.status().partitions.length === 4);
    log.append(100);
    await until(() => new Set(handled.map(({ event }) => event.n)).size === 300);
    for (const { partition, fencingToken } of b.status().partitions) {
      const id = `orders/${partition}`;
      const of = timeline.filter((line) => line.split(' ')[1] === id);
      const granted = of.indexOf(`grant ${id} b ${fencingToken}`);
      expect(fencingToken).toBe(1n);
      // Before the grant: a's last write with its token 0 (the position it reached), then a's release.
      expect(of.slice(granted - 2, granted)).toEqual([`save ${id} 200 notOlderThan(0)`, `release ${id} a 0`]);
      // After it: b fences with its token and reads what a stored; only then does it handle, from after it.
      expect(of.slice(granted + 1, granted + 3)).toEqual([`fence ${id} 1`, `read ${id} 200`]);
      const handledByB = of.slice(granted + 3).filter((line) => line.startsWith('handle'));
      const newEvents = log.events.filter(({ n, stream }) => n > 200 && partitionOf(stream, 8) === partition);
      expect(handledByB).toHaveLength(newEvents.length);
      expect(handledByB.every((line) => line.startsWith(`handle ${id} b `) && Number(line.split(' ')[3]) > 200)).toBe(
        true,
      );
    }
  });
});

describe('PartitionedSubscription over a global source', () => {
  it('moves a partition with no events of its own forward to the log position, so a move does not replay from far back', async () => {
    const log = new TestLog();
    log.append(300, 1);
    const busy = partitionOf('stream-0', 4);
    const { handled, storage, node } = cluster(log, 4);
    const a = node('a');
    await a.start();
    await until(() => handled.length === 300);
    for (let partition = 0; partition < 4; partition += 1) {
      await until(() => a.status().partitions.find((p) => p.partition === partition)?.checkpoint === '300');
    }
    await a.shutdown();
    for (let partition = 0; partition < 4; partition += 1) {
      expect(await storage.read(`orders/${partition}`)).toBe('300');
    }
    expect(handled.every(({ context }) => context.partition === busy)).toBe(true);
  });

  it('reads an event once per node however many partitions it runs, a late partition reading again only from its own position', async () => {
    const log = new TestLog();
    log.append(1_000);
    const { handled, node } = cluster(log, 16);
    const a = node('a');
    await a.start();
    await until(() => new Set(handled.map(({ event }) => event.n)).size === 1_000);
    expect(a.status().eventsRead).toBe(1_000);
    log.append(1_000);
    await until(() => new Set(handled.map(({ event }) => event.n)).size === 2_000);
    expect(a.status().eventsRead).toBe(2_000);
    expect(log.reads).toBe(2_000);
  });
});

/** A node's way to the lease table and the membership table, which a test can cut. */
function reachable<T extends object>(inner: T, cut: { down: boolean }): T {
  return new Proxy(inner, {
    get(target, property) {
      const value: unknown = Reflect.get(target, property, target);
      return typeof value !== 'function'
        ? value
        : async (...args: unknown[]): Promise<unknown> => {
            if (cut.down) {
              throw new Error('store unreachable');
            }
            return (value as (...a: unknown[]) => unknown).apply(target, args);
          };
    },
  });
}

describe('PartitionedSubscription when a node loses its stores', () => {
  it('stops the partitions and aborts the handlers before the lease expires; its late fenced write is refused', async () => {
    const log = new TestLog();
    log.append(64);
    const { storage, leases, members, handled, node } = cluster(log, 4);
    const cut = { down: false };
    let stuck: { context: PartitionHandlerContext; abortedAt: number | undefined } | undefined;
    let release = (): void => undefined;
    const gate = new Promise<void>((resolve) => (release = resolve));
    running.push(async () => {
      release();
    });
    const a = node('a', {
      strategy: new LeaseKeepingStrategy(reachable<LeaseStore>(leases, cut), { leaseTimeMs, onError: () => undefined }),
      membership: new StoredMembership(reachable<MembershipStore>(members, cut), { memberTimeMs }),
      handler: async (_event, _position, context) => {
        if (stuck === undefined) {
          const entry = { context, abortedAt: undefined as number | undefined };
          stuck = entry;
          context.signal.addEventListener('abort', () => (entry.abortedAt = performance.now()));
          // A handler that ignores its signal: a zombie once its node is cut off.
          await gate;
        }
      },
    });
    await a.start();
    await until(() => stuck !== undefined);
    const b = node('b');
    await b.start();
    const mine = stuck as NonNullable<typeof stuck>;
    const id = `orders/${mine.context.partition}`;
    cut.down = true;
    await until(() => mine.abortedAt !== undefined);
    const expiresAt = (leases.setAt.get(id) ?? 0) + leaseTimeMs;
    expect(mine.abortedAt).toBeLessThan(expiresAt);
    expect(a.status().partitions.find((p) => p.partition === mine.context.partition)).toBeDefined();
    await until(() => b.status().partitions.some((p) => p.partition === mine.context.partition));
    await until(() =>
      handled.some(({ node: by, event }) => by === 'b' && partitionOf(event.stream, 4) === mine.context.partition),
    );
    const stored = await storage.read(id);
    release();
    await expect(
      storage.save(id, '1', Condition.notOlderThan(mine.context.fencingToken ?? -1n)),
    ).rejects.toBeInstanceOf(CheckpointWriteConditionNotFulfilledError);
    expect(await storage.read(id)).toBe(stored);
    cut.down = false;
  });
});

describe('PartitionedSubscription telemetry', () => {
  it('records partitions owned, rebalances, hand-over and unowned durations beside the other names', async () => {
    const log = new TestLog();
    log.append(100);
    const telemetry = new RecordingTelemetry();
    const { node } = cluster(log);
    const a = node('a', telemetry.options);
    await a.start();
    // Until a's membership entry lists all 8 too, not only its leases: b would otherwise see them unowned at its
    // first heartbeat, try to take its 4 (refused while a holds them) and be granted each at its strategy's next try,
    // which may come before b's heartbeat sees it released. A grant by a node that never saw the partition unowned
    // records no unowned duration (doc/observability.md), so in CI only 1 of the 4 hand-overs was recorded.
    await until(() => a.status().members.find(({ nodeId }) => nodeId === 'a')?.owned.length === 8);
    const b = node('b', telemetry.options);
    await b.start();
    await until(() => a.status().partitions.length === 4 && b.status().partitions.length === 4);
    const sum = async (name: string): Promise<number> =>
      (await telemetry.points(name)).reduce((total, point) => total + point.value, 0);
    expect(await sum('checkpoint_fencing.partitions.owned')).toBe(8);
    expect(await sum('checkpoint_fencing.partition.rebalances')).toBeGreaterThanOrEqual(2);
    expect(await sum('checkpoint_fencing.partition.handover.duration')).toBe(4);
    expect(await sum('checkpoint_fencing.partition.unowned.duration')).toBeGreaterThanOrEqual(8 + 4);
    await telemetry.shutdown();
  });

  it('goes on when the meter throws, and reports the first error once (ADR 2402)', async () => {
    const log = new TestLog();
    log.append(50);
    const { handled, node } = cluster(log, 4);
    const meterProvider = new ThrowingMeterProvider('record');
    const errors: unknown[] = [];
    const a = node('a', { meterProvider, onError: (error) => errors.push(error) });
    await a.start();
    await until(() => handled.length === 50 && a.status().partitions.length === 4);
    expect(meterProvider.thrown).toBeGreaterThan(1);
    const fromTelemetry = errors.filter((error) => String(error).includes('a partition grant, loss or hand-over'));
    expect(fromTelemetry).toHaveLength(1);
  });
});

describe('PartitionedSubscription with a poison event', () => {
  it('stalls only its own partition: the others handle every event and move their checkpoints to the end', async () => {
    const log = new TestLog();
    log.append(200);
    const poison = log.events[6] as LogEvent;
    const stalled = partitionOf(poison.stream, 4);
    const { handled, storage, node } = cluster(log, 4);
    const a = node('a', {
      handler: (event, _position, context) => {
        if (event.n === poison.n) {
          throw new Error('poison');
        }
        handled.push({ node: 'a', event, context });
      },
    });
    await a.start();
    const others = log.events.filter(({ stream }) => partitionOf(stream, 4) !== stalled);
    await until(() => new Set(handled.map(({ event }) => event.n)).size >= others.length);
    expect(handled.every(({ event }) => partitionOf(event.stream, 4) !== stalled || event.n < poison.n)).toBe(true);
    for (let partition = 0; partition < 4; partition += 1) {
      if (partition !== stalled) {
        await until(async () => (await storage.read(`orders/${partition}`)) === '200');
      }
    }
    expect(Number((await storage.read(`orders/${stalled}`)) ?? 0)).toBeLessThan(poison.n);
  });
});

describe('PartitionedSubscription drain', () => {
  it('gives a partition up after the drain timeout though its handler never returns, aborting that handler', async () => {
    const log = new TestLog();
    log.append(16);
    const { leases, storage, node } = cluster(log, 2);
    let stuck: PartitionHandlerContext | undefined;
    const a = node('a', {
      drainTimeoutMs: 150,
      handler: async (event, _position, context) => {
        if (event.n === 5) {
          stuck = context;
          await new Promise(() => undefined);
        }
      },
    });
    await a.start();
    await until(() => stuck !== undefined);
    const id = `orders/${stuck?.partition}`;
    const started = performance.now();
    const shutDown = a.shutdown();
    await until(() => a.status().partitions.length === 0);
    expect(performance.now() - started).toBeLessThan(leaseTimeMs);
    expect(stuck?.signal.aborted).toBe(true);
    // Given up: another owner takes it at once with the next token, and a's late write would be refused.
    expect(await leases.acquire(id, 'probe', 1_000)).toBe(1n);
    await storage.advanceWriteVersion(id, 1n);
    await expect(storage.save(id, '99', Condition.notOlderThan(stuck?.fencingToken ?? -1n))).rejects.toBeInstanceOf(
      CheckpointWriteConditionNotFulfilledError,
    );
    // The DurableSubscription underneath waits its 5 s for the stuck handler before it stops.
    await shutDown;
  });
});

describe('PartitionedSubscription when the membership lapses', () => {
  it('keeps its partitions while it holds their leases, then joins again and takes its share', async () => {
    const log = new TestLog();
    log.append(100);
    const { members, node } = cluster(log);
    const cut = { down: false };
    const errors: unknown[] = [];
    const a = node('a', {
      membership: new StoredMembership(reachable<MembershipStore>(members, cut), { memberTimeMs }),
      onError: (error) => errors.push(error),
    });
    const b = node('b');
    await Promise.all([a.start(), b.start()]);
    await until(() => a.status().partitions.length === 4 && b.status().partitions.length === 4);
    cut.down = true;
    // b sees a gone, but a holds its leases: b takes nothing of a's.
    await until(() => b.status().members.length === 1);
    await new Promise((resolve) => setTimeout(resolve, memberTimeMs));
    expect(a.status().partitions).toHaveLength(4);
    expect(b.status().partitions).toHaveLength(4);
    cut.down = false;
    await until(() => b.status().members.length === 2 && a.status().members.length === 2);
    expect(errors.some((error) => String(error).includes('store unreachable'))).toBe(true);
    log.append(100);
    await until(() => a.status().partitions.every((p) => p.checkpoint === '200'));
    expect(a.status().partitions).toHaveLength(4);
  });
});

describe('PartitionedSubscription start checks', () => {
  const base = (
    extra: Partial<PartitionedSubscriptionOptions<LogEvent>> = {},
  ): PartitionedSubscriptionOptions<LogEvent> => ({
    name: 'orders',
    partitionKey: (event) => event.stream,
    source: new TestLog().source,
    handler: () => undefined,
    storage: new InMemoryCheckpointStorage(),
    strategy: new InMemoryLeaseStrategy({ leaseTimeMs: 3_000 }),
    membership: new InMemoryMembership({ memberTimeMs: 1_000 }),
    ...extra,
  });

  it('refuses a drain timeout not below the lease time, and a heartbeat not below half of it', () => {
    expect(() => new PartitionedSubscription(base({ drainTimeoutMs: 3_000 }))).toThrow(
      /drainTimeoutMs must be a whole number of milliseconds below the strategy's lease time \(3000 ms\), got 3000/u,
    );
    expect(
      () => new PartitionedSubscription(base({ membership: new InMemoryMembership({ memberTimeMs: 4_500 }) })),
    ).toThrow(/heartbeats every 1500 ms .* not below half the lease time \(3000 ms\).* Lower memberTimeMs/u);
  });

  it('refuses both sources or neither, a partition count that is not a power of two, and an empty name', () => {
    expect(
      () =>
        new PartitionedSubscription(
          base({ partitionSource: () => new TestLog().source(undefined, new AbortController().signal) }),
        ),
    ).toThrow(/exactly one of source .* and partitionSource/u);
    expect(() => new PartitionedSubscription(base({ source: undefined }))).toThrow(/exactly one of source/u);
    expect(() => new PartitionedSubscription(base({ partitions: 48 }))).toThrow(/power of two/u);
    expect(() => new PartitionedSubscription(base({ name: '' }))).toThrow(TypeError);
  });

  it('start refuses another partition count and a node id that is live, naming both values and the fix', async () => {
    const table = new InMemoryMembershipTable();
    const membership = (): InMemoryMembership => new InMemoryMembership({ table, memberTimeMs: 1_000 });
    const first = new PartitionedSubscription(base({ membership: membership(), nodeId: 'a', partitions: 8 }));
    running.push(() => first.shutdown());
    await first.start();
    await expect(
      new PartitionedSubscription(base({ membership: membership(), nodeId: 'b', partitions: 16 })).start(),
    ).rejects.toThrow(/with 16 partitions: the subscription is recorded with 8.*partitions: 8/su);
    await expect(
      new PartitionedSubscription(base({ membership: membership(), nodeId: 'a', partitions: 8 })).start(),
    ).rejects.toThrow(/node id "a" is a live member already.*its own nodeId/su);
  });
});

describe('PartitionedSubscription over a partitionSource', () => {
  it('reads each partition on its own and hands its events over with the partition in the context', async () => {
    const log = new TestLog();
    log.append(120);
    const { handled, node } = cluster(log, 4);
    const asked: number[] = [];
    const a = node('a', {
      source: undefined,
      partitionSource: async function* (partition, from, signal) {
        asked.push(partition);
        for await (const item of log.source(from, signal)) {
          if (partitionOf(item.event.stream, 4) === partition) {
            yield { ...item, lag: 0 };
          }
        }
      },
    });
    await a.start();
    await until(() => new Set(handled.map(({ event }) => event.n)).size === 120);
    expect(new Set(asked)).toEqual(new Set([0, 1, 2, 3]));
    for (const { event, context } of handled) {
      expect(context.partition).toBe(partitionOf(event.stream, 4));
    }
    expect(a.status().partitions.map((p) => p.lag)).toEqual([0, 0, 0, 0]);
  });
});
