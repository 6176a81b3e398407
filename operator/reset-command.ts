import { CheckpointWriteConditionNotFulfilledError } from 'checkpoint-fencing';
import type { OperatorBackend } from './operator-backend.js';
import type { OperatorInvocation } from './operator-arguments.js';
import { OperatorError } from './operator-error.js';
import type { OperatorIo } from './operator-io.js';
import { ScanProgress } from './scan-progress.js';
import { storedSubscriptions } from './stored-subscriptions.js';
import { hasLiveLease, judgeSubscription, type JudgedSubscription } from './subscription-health.js';

/**
 * `reset <id…> --yes`: delivery restarts from each subscription's start position, and no holder from before the reset
 * writes again (ADR 1004). The token counter and the stored version are raised to the fence, one above every version
 * stored and token minted (the strategy's `raiseFencingTokenAbove`, the storage's `advanceWriteVersion`), then the
 * checkpoint is deleted and the version kept (`deleteCheckpointKeepingVersion`). An id a Cluster cannot fence has
 * both keys deleted, as its version key fences nothing. Refuses, changing nothing, while an id has a live lease or a
 * value no storage writes. Without `--yes` it says what it would do and changes nothing.
 */
export async function resetCommand(
  invocation: OperatorInvocation,
  backend: OperatorBackend,
  io: OperatorIo,
  settings: string,
): Promise<number> {
  const progress = new ScanProgress({ write: io.err, isTTY: io.errIsTTY }, 'reset');
  const subscriptions = await storedSubscriptions(backend, invocation.ids, progress, settings);
  subscriptions.forEach(assertResettable);
  for (const subscription of subscriptions) {
    const rawId = subscription.id ?? '';
    const id = JSON.stringify(rawId);
    const records = backend.describeRecords(rawId);
    if (subscription.checkpoint !== undefined) {
      io.err(
        `warning: resetting ${id} deletes its checkpoint ${JSON.stringify(subscription.checkpoint)}: delivery restarts from the subscription's ` +
          'start position (the startPosition given to subscribe, or the beginning of its source), and every event since is delivered again.\n',
      );
    }
    if (subscription.clusterUnaligned) {
      if (!invocation.yes) {
        io.out(
          `would delete ${records}: on a Cluster ${id} cannot be fenced, so its version key fences nothing. ` +
            'Nothing was changed; run again with --yes to do it.\n',
        );
        continue;
      }
      await backend.deleteCheckpoint(rawId);
      await assertReset(backend, progress, rawId, undefined);
      io.out(`deleted ${records}: the checkpoint and version of ${id} are gone.\n`);
      continue;
    }
    const fence = fenceAboveEveryToken(subscription);
    const hadCheckpoint = subscription.checkpoint !== undefined;
    if (!invocation.yes) {
      io.out(
        (fence === undefined
          ? `would delete the checkpoint of ${id} (${records}); no version is stored and no token was minted for it, so nothing fences it. `
          : `would raise the token counter and the stored version of ${id} to ${fence}, above every token minted for it` +
            `${hadCheckpoint ? ', and delete its checkpoint' : ''} (${records}): every earlier holder's write would be refused, and ` +
            `the next grant would mint ${fence + 1n} and deliver from the start position. `) +
          'Nothing was changed; run again with --yes to do it.\n',
      );
      continue;
    }
    if (fence !== undefined) {
      // The counter first: a failure after it leaves a higher counter, harmless, where a fence above the counter is stuck.
      await backend.raiseFencingTokenAbove(rawId, fence);
      try {
        await backend.advanceWriteVersion(rawId, fence);
      } catch (error) {
        if (!(error instanceof CheckpointWriteConditionNotFulfilledError)) {
          throw error;
        }
        throw new OperatorError(
          `${id} was fenced above ${fence} while reset ran (stored version ${String(error.storedVersion)}): a consumer took its lease, ` +
            'and its checkpoint was left as it was; stop every consumer of it and run reset again',
        );
      }
    }
    await backend.deleteCheckpointKeepingVersion(rawId);
    await assertReset(backend, progress, rawId, fence);
    io.out(
      fence === undefined
        ? `reset ${id}: deleted its checkpoint; no version is stored and no token was minted for it, so nothing fences it.\n`
        : `reset ${id}: ${hadCheckpoint ? 'deleted its checkpoint and ' : ''}fenced it at version ${fence}, above every token minted ` +
            `for it: every earlier holder's write is refused, and the next grant mints ${fence + 1n} and delivers from the start position.\n`,
    );
  }
  return 0;
}

/**
 * Refuses a subscription whose reset could not restart delivery or whose fence cannot be judged.
 * @throws OperatorError naming the id, before anything changed.
 */
function assertResettable(subscription: JudgedSubscription): void {
  const id = JSON.stringify(subscription.id ?? '');
  const [problem] = subscription.problems;
  if (problem !== undefined) {
    throw new OperatorError(
      `${id} holds a value no storage or strategy writes (${problem}), so no fence can be judged from it and nothing was changed; ` +
        `fix it as inspect ${id} says, then run reset again`,
    );
  }
  const { lease } = subscription;
  if (lease !== undefined && hasLiveLease(subscription)) {
    const expires =
      lease.expiresInMs === undefined ? 'no expiry' : `expires in ${(lease.expiresInMs / 1_000).toFixed(1)} s`;
    throw new OperatorError(
      `${id} has a live lease (holder ${JSON.stringify(lease.holder)}, token ${lease.token}, ${expires}): its holder keeps delivering ` +
        'from where it is and its next checkpoint is accepted over a reset, so nothing was changed; stop every consumer of it, ' +
        'wait until inspect shows no holder, and run reset again',
    );
  }
}

/** One above every version stored and every token minted for the subscription; `undefined` when there is neither. */
function fenceAboveEveryToken(subscription: JudgedSubscription): bigint | undefined {
  const known = [subscription.storedVersion, subscription.tokenCounter].filter((value) => value !== undefined);
  return known.length === 0 ? undefined : known.reduce((highest, value) => (value > highest ? value : highest)) + 1n;
}

/**
 * Reads the subscription back: its checkpoint gone, its version at the fence (none without one) and the next grant
 * above it. @throws OperatorError when a consumer wrote meanwhile.
 */
async function assertReset(
  backend: OperatorBackend,
  progress: ScanProgress,
  rawId: string,
  fence: bigint | undefined,
): Promise<void> {
  const [after] = (await backend.inspect([rawId], progress)).subscriptions.map(judgeSubscription);
  const nextAboveFence = fence === undefined || (after?.nextToken !== undefined && after.nextToken > fence);
  if (after === undefined || after.checkpoint !== undefined || after.storedVersion !== fence || !nextAboveFence) {
    throw new OperatorError(
      `reset ${JSON.stringify(rawId)}, but reading it back shows checkpoint ${JSON.stringify(after?.checkpoint ?? null)}, ` +
        `version ${String(after?.storedVersion)} and next token ${String(after?.nextToken)}: a consumer is still running; ` +
        'stop every consumer of it and run reset again',
    );
  }
}
