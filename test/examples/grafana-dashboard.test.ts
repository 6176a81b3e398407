import { readFileSync } from 'node:fs';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import type { MeterProvider as MeterProviderApi } from '@opentelemetry/api';
import {
  DurableSubscription,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  InMemoryMembership,
  InMemoryMembershipTable,
  PartitionedSubscription,
} from '../../runtime/index.js';
import { eventually } from '../support/leases/event-log.js';
import { HandSetStrategy } from '../support/leases/hand-set-strategy.js';
import { ManualLeaseClock } from '../support/leases/manual-lease-clock.js';

interface Dashboard {
  readonly panels: readonly {
    readonly title: string;
    readonly description?: string;
    readonly targets: readonly { readonly expr: string }[];
  }[];
}

const dashboard = JSON.parse(
  readFileSync(new URL('../../doc/grafana-dashboard.json', import.meta.url), 'utf8'),
) as Dashboard;

/** The Prometheus names of every metric the package records, as OpenTelemetry's Prometheus exporter writes them. */
async function emittedNames(): Promise<Set<string>> {
  const exporter = new PrometheusExporter({ preventServerStart: true });
  const meterProvider = new MeterProvider({ readers: [exporter] });
  const storage = new InMemoryCheckpointStorage({ meterProvider });
  // A grant, then a loss: the lease deleted under the strategy, found gone at its next refresh.
  const clock = new ManualLeaseClock();
  const table = new InMemoryLeaseTable({ now: () => clock.now() });
  const strategy = new InMemoryLeaseStrategy({ table, clock, meterProvider, leaseTimeMs: 900 });
  await strategy.register('orders', 'node-a');
  table.deleteLease('orders');
  await clock.advance(300);
  await strategy.shutdown();
  // An event handled, with its lag; then a grant whose token is below the stored version: the fence on acquire is
  // refused, and the run ends on that refusal.
  await storage.advanceWriteVersion('orders', 5n);
  const handSet = new HandSetStrategy();
  const subscription = new DurableSubscription({
    storage,
    strategy: handSet,
    subscriberId: 'node-a',
    takeoverGraceMs: 0,
    onError: () => undefined,
    meterProvider,
  });
  subscription.subscribe(
    'orders',
    async function* () {
      yield { position: '2', event: 'order', lag: 0 };
    },
    () => undefined,
  );
  handSet.grant(1n);
  await eventually('the refused run gave the lease up', () => handSet.calls.includes('release'));
  await subscription.shutdown();
  const unfenced = new DurableSubscription({ storage: new InMemoryCheckpointStorage(), meterProvider });
  let handled = false;
  unfenced.subscribe(
    'orders',
    async function* () {
      yield { position: '2', event: 'order', lag: 0 };
    },
    () => {
      handled = true;
    },
  );
  await eventually('the event was handled', () => handled);
  await unfenced.shutdown();
  await partitionsHandedOver(meterProvider);
  const { resourceMetrics } = await exporter.collect();
  const text = new PrometheusSerializer().serialize(resourceMetrics);
  await meterProvider.shutdown();
  const names = new Set<string>();
  for (const [, name, type] of text.matchAll(/^# TYPE (\S+) (\S+)$/gmu)) {
    const suffixes = type === 'histogram' ? ['_bucket', '_sum', '_count'] : [''];
    for (const suffix of suffixes) {
      names.add(`${name ?? ''}${suffix}`);
    }
  }
  return names;
}

/**
 * The partition metrics: node a takes all four partitions of a partitioned subscription (grants, a rebalance), then b
 * joins and a hands two over (hand-overs, ends), which b takes after they were unowned.
 */
async function partitionsHandedOver(meterProvider: MeterProviderApi): Promise<void> {
  const leases = new InMemoryLeaseTable();
  const members = new InMemoryMembershipTable();
  const storage = new InMemoryCheckpointStorage();
  const node = (nodeId: string): [PartitionedSubscription<string>, InMemoryLeaseStrategy] => {
    const strategy = new InMemoryLeaseStrategy({ table: leases, leaseTimeMs: 600 });
    const subscription = new PartitionedSubscription<string>({
      name: 'orders',
      partitions: 4,
      partitionKey: (event) => event,
      // An empty log, read until the run stops.
      source: async function* (_from, signal) {
        await new Promise((resolve) => {
          signal.addEventListener('abort', resolve);
        });
        yield* [];
      },
      handler: () => undefined,
      storage,
      strategy,
      membership: new InMemoryMembership({ table: members, memberTimeMs: 240 }),
      nodeId,
      drainTimeoutMs: 200,
      onError: () => undefined,
      meterProvider,
    });
    return [subscription, strategy];
  };
  const [a, aLeases] = node('a');
  await a.start();
  await eventually('a owns every partition', () => a.status().partitions.length === 4);
  const [b, bLeases] = node('b');
  await b.start();
  await eventually('b owns two partitions', () => b.status().partitions.length === 2);
  await Promise.all([a.shutdown(), b.shutdown()]);
  await Promise.all([aLeases.shutdown(), bLeases.shutdown()]);
}

/** The metric names a PromQL expression selects: label names in `by (…)` and `{…}` left out. */
function metricNamesIn(expr: string): string[] {
  const selectors = expr.replace(/\b(?:by|without)\s*\([^)]*\)/gu, '').replace(/\{[^}]*\}/gu, '');
  return [...selectors.matchAll(/checkpoint_fencing_[a-z_]+/gu)].map(String);
}

describe('doc/grafana-dashboard.json', () => {
  it('queries only metrics the package emits', async () => {
    const emitted = await emittedNames();
    const queried = dashboard.panels.flatMap((panel) => panel.targets.flatMap((target) => metricNamesIn(target.expr)));
    expect(queried.length).toBeGreaterThan(0);
    expect(queried.filter((name) => !emitted.has(name))).toEqual([]);
  });

  it('describes every panel', () => {
    expect(dashboard.panels.filter((panel) => (panel.description ?? '') === '').map((panel) => panel.title)).toEqual(
      [],
    );
  });
});
