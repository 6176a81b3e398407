import { afterEach, describe, expect, it } from 'vitest';
import {
  formatWriteCondition,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  InMemoryMembership,
  InMemoryMembershipTable,
  PartitionedSubscription,
  partitionOf,
  type CheckpointWriteCondition,
  type PartitionedSubscriptionOptions,
  type PartitionHandlerContext,
  type PositionedEvent,
} from '../../../runtime/index.js';

interface Event {
  readonly stream: string;
  readonly n: number;
}

/** A global log in memory: positions "1", "2", … ; `reads` counts every event handed out. */
class Log {
  readonly events: Event[] = [];
  reads = 0;

  append(count: number, streams = 16): void {
    for (let i = 0; i < count; i += 1) {
      const n = this.events.length + 1;
      this.events.push({ stream: `stream-${n % streams}`, n });
    }
  }

  readonly source = (from: string | undefined, signal: AbortSignal): AsyncIterable<PositionedEvent<Event>> =>
    this.#read(from === undefined ? 0 : Number(from), signal);

  async *#read(start: number, signal: AbortSignal): AsyncGenerator<PositionedEvent<Event>> {
    for (let index = start; index < this.events.length && !signal.aborted; index += 1) {
      this.reads += 1;
      const event = this.events[index] as Event;
      yield { position: String(event.n), event };
    }
  }
}

const leaseTimeMs = 600;
const memberTimeMs = 240;

interface Cluster {
  readonly storage: InMemoryCheckpointStorage;
  readonly leases: InMemoryLeaseTable;
  readonly members: InMemoryMembershipTable;
  readonly handled: { node: string; event: Event; context: PartitionHandlerContext }[];
  readonly node: (
    nodeId: string,
    extra?: Partial<PartitionedSubscriptionOptions<Event>>,
  ) => PartitionedSubscription<Event>;
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

/** Records each grant and each release, by node. */
class RecordingLeaseTable extends InMemoryLeaseTable {
  readonly #granted = new Set<string>();

  override async acquire(id: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined> {
    const token = await super.acquire(id, owner, leaseTimeMs);
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

function cluster(log: Log, partitions = 8): Cluster {
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
      const subscription = new PartitionedSubscription<Event>({
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

async function until(condition: () => boolean, timeoutMs = 5_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!condition()) {
    if (performance.now() > deadline) {
      throw new Error('timed out waiting for a condition');
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('PartitionedSubscription on the in-memory backends', () => {
  it('one node takes every partition, hands each event to its partition once, and reads the log once', async () => {
    const log = new Log();
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
    const log = new Log();
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
    const log = new Log();
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

describe('PartitionedSubscription over a partitionSource', () => {
  it('reads each partition on its own and hands its events over with the partition in the context', async () => {
    const log = new Log();
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
