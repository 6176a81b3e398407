import { afterEach, expect, it } from 'vitest';
import {
  PartitionedSubscription,
  partitionOf,
  type CheckpointStorage,
  type CompetingConsumerStrategy,
  type Membership,
  type PositionedEvent,
} from '../../../runtime/index.js';

/** One event of the test log: its stream (the partition key) and its number (its position). */
export interface LogEvent {
  readonly stream: string;
  readonly n: number;
}

/** A global log in memory: positions "1", "2", …; `reads` counts every event handed out. */
export class TestLog {
  readonly events: LogEvent[] = [];
  reads = 0;

  readonly source = (from: string | undefined, signal: AbortSignal): AsyncIterable<PositionedEvent<LogEvent>> =>
    this.#read(from === undefined ? 0 : Number(from), signal);

  append(count: number, streams = 16): void {
    for (let i = 0; i < count; i += 1) {
      const n = this.events.length + 1;
      this.events.push({ stream: `stream-${n % streams}`, n });
    }
  }

  async *#read(start: number, signal: AbortSignal): AsyncGenerator<PositionedEvent<LogEvent>> {
    for (let index = start; index < this.events.length && !signal.aborted; index += 1) {
      this.reads += 1;
      const event = this.events[index] as LogEvent;
      yield { position: String(event.n), event };
    }
  }
}

/** Resolves once `condition` holds, polling every 10 ms; rejects after `timeoutMs`. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 10_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (!(await condition())) {
    if (performance.now() > deadline) {
      throw new Error('timed out waiting for a condition');
    }
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** What one backend gives the scenario: each node's own storage, strategy and membership over shared stores. */
export interface PartitionedBackend {
  readonly leaseTimeMs: number;
  readonly memberTimeMs: number;
  /** Called once per case, before its nodes: a fresh namespace (tables, key prefix). */
  readonly prepare: () => Promise<{
    readonly storage: () => CheckpointStorage;
    readonly strategy: () => CompetingConsumerStrategy & { shutdown(): Promise<void> };
    readonly membership: () => Membership;
  }>;
}

/**
 * Three `PartitionedSubscription` nodes in this process over one backend: two split 8 partitions four and four, a
 * third joins and takes its share, one shuts down and hands its partitions over; every event is handled, and every
 * partition's stored checkpoint reaches the end of the log.
 */
export function itHandsPartitionsOver(backend: PartitionedBackend): void {
  const stops: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(stops.splice(0).map((stop) => stop()));
  });

  it('splits the partitions between the live nodes, hands them over on a join and a shutdown, and handles every event', async () => {
    const made = await backend.prepare();
    const storage = made.storage();
    const log = new TestLog();
    log.append(300);
    const handled = new Map<number, string[]>();
    const node = (nodeId: string): PartitionedSubscription<LogEvent> => {
      const strategy = made.strategy();
      const subscription = new PartitionedSubscription<LogEvent>({
        name: 'orders',
        partitions: 8,
        partitionKey: (event) => event.stream,
        source: log.source,
        handler: (event, _position, context) => {
          expect(context.partition).toBe(partitionOf(event.stream, 8));
          handled.set(event.n, [...(handled.get(event.n) ?? []), `${nodeId}@${context.fencingToken}`]);
        },
        storage: made.storage(),
        strategy,
        membership: made.membership(),
        nodeId,
        drainTimeoutMs: Math.floor(backend.leaseTimeMs / 2),
        onError: () => undefined,
      });
      stops.push(async () => {
        await subscription.shutdown();
        await strategy.shutdown();
      });
      return subscription;
    };
    const owned = (subscription: PartitionedSubscription<LogEvent>): number => subscription.status().partitions.length;
    const [a, b, c] = [node('a'), node('b'), node('c')];
    await Promise.all([a.start(), b.start()]);
    await until(() => owned(a) === 4 && owned(b) === 4);
    await until(() => handled.size === 300);
    await c.start();
    await until(() => [a, b, c].map(owned).sort().join() === '2,3,3');
    await a.shutdown();
    await until(() => owned(b) + owned(c) === 8 && Math.abs(owned(b) - owned(c)) <= 1);
    log.append(100);
    await until(() => handled.size === 400);
    const tokens = [b, c].flatMap((s) => s.status().partitions.map((p) => p.fencingToken));
    expect(tokens.some((token) => token > 0n)).toBe(true);
    for (let partition = 0; partition < 8; partition += 1) {
      await until(async () => (await storage.read(`orders/${partition}`)) === '400');
    }
    // Once per event, but for the stretch a partition moved in reads again from its own checkpoint.
    for (const subscription of [b, c]) {
      expect(subscription.status().eventsRead).toBeLessThan(400 * 1.1);
    }
  });
}
