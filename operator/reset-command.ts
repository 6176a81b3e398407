import type { OperatorBackend } from './operator-backend.js';
import type { OperatorInvocation } from './operator-arguments.js';
import { OperatorError } from './operator-error.js';
import type { OperatorIo } from './operator-io.js';
import { ScanProgress } from './scan-progress.js';
import { storedSubscriptions } from './stored-subscriptions.js';

/**
 * `reset <id…> --yes`: the storage's own `delete(id)`, checkpoint and version together. Warns that delivery restarts
 * from the subscription's start position, and that a live lease's holder would write its next checkpoint over the
 * reset. Without `--yes` it says what it would delete and changes nothing.
 */
export async function resetCommand(
  invocation: OperatorInvocation,
  backend: OperatorBackend,
  io: OperatorIo,
  settings: string,
): Promise<number> {
  const progress = new ScanProgress({ write: io.err, isTTY: io.errIsTTY }, 'reset');
  for (const subscription of await storedSubscriptions(backend, invocation.ids, progress, settings)) {
    const rawId = subscription.id ?? '';
    const id = JSON.stringify(rawId);
    const stored = [
      subscription.checkpoint === undefined ? undefined : `checkpoint ${JSON.stringify(subscription.checkpoint)}`,
      subscription.storedVersion === undefined ? undefined : `version ${subscription.storedVersion}`,
    ].filter((part) => part !== undefined);
    io.err(
      `warning: resetting ${id} deletes its ${stored.join(' and ')}: delivery restarts from the subscription's start position ` +
        '(the startPosition given to subscribe, or the beginning of its source), and every event since is delivered again.\n',
    );
    const lease = subscription.lease;
    if (lease !== undefined && (lease.expiresInMs === undefined || lease.expiresInMs > 0)) {
      io.err(
        `warning: ${id} has a live lease (holder ${JSON.stringify(lease.holder)}, token ${lease.token}): its holder keeps delivering ` +
          'and writes its next checkpoint over the reset. Stop the consumers first for delivery to restart from the start position.\n',
      );
    }
    if (!invocation.yes) {
      io.out(`would delete ${backend.describeRecords(rawId)}. Nothing was changed; run again with --yes to do it.\n`);
      continue;
    }
    await backend.deleteCheckpoint(rawId);
    const [after] = (await backend.inspect([rawId], progress)).subscriptions;
    if (after !== undefined && (after.checkpoint !== undefined || after.storedVersion !== undefined)) {
      throw new OperatorError(
        `deleted ${id}, but reading it back shows it stored again: a consumer is still writing it; stop it and run reset again`,
      );
    }
    io.out(`deleted ${backend.describeRecords(rawId)}: the checkpoint and version of ${id} are gone.\n`);
  }
  return 0;
}
