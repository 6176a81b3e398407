import { readFileSync } from 'node:fs';
import { PrometheusExporter, PrometheusSerializer } from '@opentelemetry/exporter-prometheus';
import { MeterProvider } from '@opentelemetry/sdk-metrics';
import { describe, expect, it } from 'vitest';
import {
  DurableSubscription,
  InMemoryCheckpointStorage,
  InMemoryLeaseStrategy,
  InMemoryLeaseTable,
  InMemoryMembership,
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
  // A partitioned subscription takes its partitions and hands them over at shutdown.
  const partitionStrategy = new InMemoryLeaseStrategy({ leaseTimeMs: 900 });
  const partitioned = new PartitionedSubscription<string>({
    name: 'orders',
    partitions: 2,
    partitionKey: (event) => event,
    partitionSource: async function* () {
      yield* [];
    },
    handler: () => undefined,
    storage: new InMemoryCheckpointStorage(),
    strategy: partitionStrategy,
    membership: new InMemoryMembership({ memberTimeMs: 300 }),
    meterProvider,
  });
  await partitioned.start();
  await eventually('both partitions were taken', () => partitioned.status().partitions.length === 2);
  await partitioned.shutdown();
  await partitionStrategy.shutdown();
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
