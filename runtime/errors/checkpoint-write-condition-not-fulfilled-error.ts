import { formatWriteCondition, type CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { quoteText } from '../describe-value.js';

/**
 * A storage refused a write because its condition did not hold; checkpoint and version are exactly as they were.
 * Do not retry: the lease that issued the token has moved on, so the same write can never succeed. Its subclass
 * `NoLeaseHeldError` is the fenced writer's own refusal of a write it had no token for, sent nowhere.
 */
export class CheckpointWriteConditionNotFulfilledError extends Error {
  override readonly name: string = 'CheckpointWriteConditionNotFulfilledError';

  constructor(
    readonly subscriptionId: string,
    readonly condition: CheckpointWriteCondition,
    readonly storedVersion?: bigint,
  ) {
    super(refusalMessage(subscriptionId, condition, storedVersion));
  }
}

function refusalMessage(
  subscriptionId: string,
  condition: CheckpointWriteCondition,
  storedVersion: bigint | undefined,
): string {
  const stored = storedVersion === undefined ? 'no stored version' : `stored version ${storedVersion}`;
  const why =
    condition.kind === 'ifAbsent'
      ? 'a checkpoint is already stored'
      : condition.kind === 'notOlderThan'
        ? `a newer writer holds the subscription (${stored})`
        : 'the storage refused it';
  return (
    `Checkpoint write for subscription ${quoteText(subscriptionId)} refused: ${formatWriteCondition(condition)} does not hold, ${why}. ` +
    'The checkpoint was left unchanged; do not retry this write, the lease has moved on.'
  );
}
