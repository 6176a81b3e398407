import { expect, it } from 'vitest';
import {
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  InMemoryMembership,
  InMemoryMembershipTable,
  PartitionedSubscription,
  type PositionedEvent,
} from '../../../runtime/index.js';
import { eventually } from '../../support/leases/event-log.js';

it('a partition that moves to a node whose reader is ahead of its checkpoint loses no event', async () => {
  const log: string[] = [];
  const handled = new Set<number>();
  async function* source(from: string | undefined, signal: AbortSignal): AsyncGenerator<PositionedEvent<string>> {
    let next = from === undefined ? 0 : Number(from);
    while (!signal.aborted) {
      if (next < log.length) {
        next += 1;
        yield { position: String(next), event: log[next - 1] ?? '' };
      } else {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  }
  const storage = new InMemoryCheckpointStorage();
  const leases = new InMemoryLeaseTable();
  const members = new InMemoryMembershipTable();
  const node = (nodeId: string) => {
    const strategy = new InMemoryLeaseStrategy({ table: leases, leaseTimeMs: 600 });
    return {
      strategy,
      subscription: new PartitionedSubscription<string>({
        name: 'orders',
        partitions: 8,
        partitionKey: (event) => event.split(':')[0] ?? '',
        source,
        storage,
        strategy,
        membership: new InMemoryMembership({ table: members, memberTimeMs: 240 }),
        nodeId,
        drainTimeoutMs: 200,
        onError: () => undefined,
        handler: async (_event, position) => {
          // Node b is slow: its partitions fall behind node a's reader.
          if (nodeId === 'b') await new Promise((resolve) => setTimeout(resolve, 2));
          handled.add(Number(position));
        },
      }),
    };
  };
  const appending = setInterval(() => {
    for (let i = 0; i < 20; i += 1) log.push(`s${log.length % 32}:${log.length + 1}`);
  }, 10);
  const a = node('a');
  await a.subscription.start();
  await new Promise((resolve) => setTimeout(resolve, 1_500));
  const b = node('b');
  await b.subscription.start();
  await eventually('b owns partitions', () => b.subscription.status().partitions.length === 4, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 1_000));
  await b.subscription.shutdown();
  await eventually('a owns every partition', () => a.subscription.status().partitions.length === 8, 10_000);
  await new Promise((resolve) => setTimeout(resolve, 500));
  clearInterval(appending);
  await eventually(
    'every checkpoint at the end',
    async () =>
      (await Promise.all(Array.from({ length: 8 }, (_, p) => storage.read(`orders/${p}`)))).every(
        (cp) => cp === String(log.length),
      ),
    20_000,
  ).catch(() => undefined);
  const missing = Array.from({ length: log.length }, (_, i) => i + 1).filter((position) => !handled.has(position));
  await Promise.all([a.subscription.shutdown(), b.subscription.shutdown()]);
  await Promise.all([a.strategy.shutdown(), b.strategy.shutdown()]);
  expect({ events: log.length, missing: missing.length }).toEqual({ events: log.length, missing: 0 });
}, 60_000);
