import type { OperatorBackend } from './operator-backend.js';
import type { OperatorInvocation } from './operator-arguments.js';
import { OperatorError } from './operator-error.js';
import type { OperatorIo } from './operator-io.js';
import { ScanProgress } from './scan-progress.js';
import { storedSubscriptions } from './stored-subscriptions.js';
import { judgeSubscription } from './subscription-health.js';

/**
 * `repair <id…> --raise-token`: for each stuck subscription, the strategy's own `raiseFencingTokenAbove(id, stored
 * version)`, so that the next grant mints one above the stored version, fences and resumes from the stored
 * checkpoint: nothing is replayed. Without `--yes` it says what it would do and changes nothing.
 */
export async function repairCommand(
  invocation: OperatorInvocation,
  backend: OperatorBackend,
  io: OperatorIo,
  settings: string,
): Promise<number> {
  const progress = new ScanProgress({ write: io.err, isTTY: io.errIsTTY }, 'repair');
  for (const subscription of await storedSubscriptions(backend, invocation.ids, progress, settings)) {
    const id = JSON.stringify(subscription.id ?? '');
    const { storedVersion, nextToken } = subscription;
    if (storedVersion === undefined || nextToken === undefined) {
      io.out(`${id}: no stored version, so no write is refused; nothing to raise.\n`);
      continue;
    }
    if (!subscription.flags.includes('stuck')) {
      io.out(
        `${id}: not stuck: the next grant mints ${nextToken}, above the stored version ${storedVersion}; nothing to raise.\n`,
      );
      continue;
    }
    const resumesFrom =
      subscription.checkpoint === undefined
        ? 'its start position'
        : `checkpoint ${JSON.stringify(subscription.checkpoint)}`;
    if (!invocation.yes) {
      io.out(
        `would raise the token counter of ${id} to its stored version ${storedVersion}: the next grant would mint ${storedVersion + 1n} ` +
          `instead of ${nextToken}, fence, and resume from ${resumesFrom} with nothing replayed. Nothing was changed; run again with --yes to do it.\n`,
      );
      continue;
    }
    await backend.raiseFencingTokenAbove(subscription.id ?? '', storedVersion);
    const [after] = (await backend.inspect([subscription.id ?? ''], progress)).subscriptions.map(judgeSubscription);
    if (after === undefined || after.nextToken === undefined || after.nextToken <= storedVersion) {
      throw new OperatorError(
        `the token counter of ${id} was raised, but reading it back shows the next token ${String(after?.nextToken)}, not above ` +
          `${storedVersion}: something else wrote it meanwhile; run inspect ${id}`,
      );
    }
    io.out(
      `raised the token counter of ${id} to ${storedVersion}: the next grant mints ${after.nextToken}, fences, and resumes from ${resumesFrom} with nothing replayed.\n`,
    );
  }
  return 0;
}
