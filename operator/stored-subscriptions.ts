import type { OperatorBackend } from './operator-backend.js';
import { OperatorError } from './operator-error.js';
import type { ScanProgress } from './scan-progress.js';
import { judgeSubscription, type JudgedSubscription } from './subscription-health.js';

/**
 * The subscriptions `ids`, judged, for a command that changes them: all read before anything changes, so that an id
 * with nothing stored (a typo, a wrong prefix or table) stops the command before it touches any other.
 * @throws OperatorError naming the first id with neither a checkpoint nor a version.
 */
export async function storedSubscriptions(
  backend: OperatorBackend,
  ids: readonly string[],
  progress: ScanProgress,
  settings: string,
): Promise<JudgedSubscription[]> {
  const subscriptions = (await backend.inspect(ids, progress)).subscriptions.map(judgeSubscription);
  const missing = subscriptions.find(
    (subscription) => subscription.checkpoint === undefined && subscription.storedVersion === undefined,
  );
  if (missing?.id !== undefined) {
    throw new OperatorError(
      `nothing is stored for subscription ${JSON.stringify(missing.id)} (${backend.describeRecords(missing.id)}) on ${backend.target}, ` +
        `so nothing was changed; check the id and ${settings}`,
    );
  }
  return subscriptions;
}
