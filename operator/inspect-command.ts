import { inspectionJsonRows, inspectionSummary, inspectionText } from './inspection-report.js';
import type { OperatorBackend } from './operator-backend.js';
import type { OperatorInvocation } from './operator-arguments.js';
import type { OperatorIo } from './operator-io.js';
import { ScanProgress } from './scan-progress.js';
import { judgeSubscription, needsAttention } from './subscription-health.js';

/** `inspect`: reads, judges and reports; exit code 0 when every subscription is healthy, 1 otherwise. */
export async function inspectCommand(
  invocation: OperatorInvocation,
  backend: OperatorBackend,
  io: OperatorIo,
): Promise<number> {
  const startedAt = performance.now();
  const progress = new ScanProgress({ write: io.err, isTTY: io.errIsTTY }, 'inspect');
  const inspection = await backend.inspect(invocation.ids.length > 0 ? invocation.ids : undefined, progress);
  const subscriptions = inspection.subscriptions.map(judgeSubscription);
  if (invocation.json) {
    io.out(`${JSON.stringify(inspectionJsonRows(subscriptions), null, 2)}\n`);
  } else {
    const seconds = (performance.now() - startedAt) / 1_000;
    io.out(
      inspectionText(subscriptions, inspectionSummary(subscriptions, inspection.coverage, backend.target, seconds)),
    );
  }
  return subscriptions.some(needsAttention) ? 1 : 0;
}
