import { afterEach, describe, expect, it } from 'vitest';
import {
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  InMemoryMembership,
  InMemoryMembershipTable,
  PartitionedSubscription,
  partitionOf,
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

function cluster(log: Log, partitions = 8): Cluster {
  const storage = new InMemoryCheckpointStorage();
  const leases = new InMemoryLeaseTable();
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
        handler: (event, _position, context) => {
          handled.push({ node: nodeId, event, context });
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
