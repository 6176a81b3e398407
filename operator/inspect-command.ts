import { InspectionTally } from './inspection-tally.js';
import { JsonInspectionReport, TextInspectionReport, type InspectionReport } from './inspection-report.js';
import type { InspectionCoverage, OperatorBackend } from './operator-backend.js';
import type { OperatorInvocation } from './operator-arguments.js';
import type { OperatorIo } from './operator-io.js';
import { PrometheusInspectionReport } from './prometheus-inspection-report.js';
import { ScanProgress } from './scan-progress.js';
import { judgeSubscription, type SubscriptionState } from './subscription-health.js';

/**
 * `inspect`: reads, judges and reports; exit code 0 when every subscription is healthy, 1 otherwise. Each batch is
 * judged and printed as the store hands it over, and only counted after, so a scan of any size holds one batch.
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
  const judgeAndPrint = async (states: readonly SubscriptionState[]): Promise<void> => {
    const subscriptions = states.map(judgeSubscription);
    progress.interrupt();
    report.write(subscriptions);
    tally.add(subscriptions);
    await io.outDrained();
  };
  let read: InspectionCoverage;
  if (invocation.ids.length > 0) {
    const inspection = await backend.inspect(invocation.ids, progress);
    await judgeAndPrint(inspection.subscriptions);
    read = inspection;
  } else {
    read = await backend.inspectEverySubscription(progress, judgeAndPrint);
  }
  const seconds = (performance.now() - startedAt) / 1_000;
  report.end(tally.summary(read.coverage, backend.target, seconds));
  return tally.needsAttention || replication?.needsAttention === true ? 1 : 0;
}
