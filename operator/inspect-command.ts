import { InspectionTally } from './inspection-tally.js';
import { JsonInspectionReport, TextInspectionReport, type InspectionReport } from './inspection-report.js';
import type { OperatorBackend } from './operator-backend.js';
import type { OperatorInvocation } from './operator-arguments.js';
import type { OperatorIo } from './operator-io.js';
import { judgePartitionedSubscription, partitionIds } from './partitioned-subscription-health.js';
import { PrometheusInspectionReport } from './prometheus-inspection-report.js';
import { ScanProgress } from './scan-progress.js';
import { judgeSubscription, type SubscriptionState } from './subscription-health.js';

/**
 * `inspect`: reads, judges and reports; exit code 0 when every subscription is healthy, 1 otherwise. Each batch is
 * judged and printed as the store hands it over, and only counted after, so a scan of any size holds one batch. The
 * partitioned subscriptions a membership records come last, one group each, their partitions read by id.
 */
export async function inspectCommand(
  invocation: OperatorInvocation,
  backend: OperatorBackend,
  io: OperatorIo,
): Promise<number> {
  const startedAt = performance.now();
  const progress = new ScanProgress({ write: io.err, isTTY: io.errIsTTY }, 'inspect');
  const report: InspectionReport = invocation.prometheus
    ? new PrometheusInspectionReport(io.out)
    : invocation.json
      ? new JsonInspectionReport(io.out)
      : new TextInspectionReport(io.out);
  const tally = new InspectionTally();
  const replication = await backend.inspectReplication?.();
  if (replication !== undefined) {
    report.replication?.(replication);
    if (invocation.json) {
      // stdout holds the rows alone; what needs attention goes to stderr.
      const flagged = replication.lines.filter((line) => line.startsWith('!'));
      io.err(flagged.map((line) => `${line}\n`).join(''));
    }
  }
  // A partitioned subscription's partitions are shown in its group, not among the other subscriptions.
  const memberships =
    (await backend.inspectMemberships?.(invocation.ids.length > 0 ? invocation.ids : undefined, progress)) ?? [];
  const grouped = new Set(memberships.flatMap(partitionIds));
  const judgeAndPrint = async (states: readonly SubscriptionState[]): Promise<void> => {
    const subscriptions = states.filter(({ id }) => id === undefined || !grouped.has(id)).map(judgeSubscription);
    progress.interrupt();
    report.write(subscriptions);
    tally.add(subscriptions);
    await io.outDrained();
  };
  const coverage: string[] = [];
  if (invocation.ids.length > 0) {
    const plain = invocation.ids.filter((id) => !memberships.some(({ name }) => name === id));
    if (plain.length > 0) {
      const inspection = await backend.inspect(plain, progress);
      await judgeAndPrint(inspection.subscriptions);
      coverage.push(inspection.coverage);
    }
  } else {
    coverage.push((await backend.inspectEverySubscription(progress, judgeAndPrint)).coverage);
  }
  for (const membership of memberships) {
    const { subscriptions } = await backend.inspect(partitionIds(membership), progress);
    const group = judgePartitionedSubscription(membership, subscriptions);
    progress.interrupt();
    report.partitioned(group);
    tally.addPartitioned(group);
    await io.outDrained();
  }
  if (memberships.length > 0) {
    const partitions = memberships.reduce((sum, { partitions: count }) => sum + count, 0);
    coverage.push(
      `${memberships.length} partitioned ${memberships.length === 1 ? 'subscription' : 'subscriptions'} of ` +
        `${partitions.toLocaleString('en-US')} partitions read`,
    );
  }
  const seconds = (performance.now() - startedAt) / 1_000;
  report.end(tally.summary(coverage.join(', '), backend.target, seconds));
  return tally.needsAttention || replication?.needsAttention === true ? 1 : 0;
}
