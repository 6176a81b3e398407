import { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { quoteText } from '../describe-value.js';
import { CheckpointWriteConditionNotFulfilledError } from './checkpoint-write-condition-not-fulfilled-error.js';

/**
 * A `FencedCheckpointWriter` sent nothing: its token source answered `undefined`, so this node holds no lease for the
 * subscription, and the only write it could send is the unconditional one that moves a checkpoint backward. A
 * `CheckpointWriteConditionNotFulfilledError`, so code that stops on a refusal stops here too: `condition` is that
 * `any()` write, refused by the writer, and `storedVersion` is `undefined`, as nothing was read (ADR 0004).
 */
export class NoLeaseHeldError extends CheckpointWriteConditionNotFulfilledError {
  override readonly name = 'NoLeaseHeldError';

  constructor(subscriptionId: string) {
    super(subscriptionId, CheckpointWriteCondition.any());
    this.message =
      `Checkpoint write for subscription ${quoteText(subscriptionId)} not sent: this node holds no lease for it (the ` +
      'fencing-token source answered undefined, as after a release, a shutdown, an expiry or a refusal), and a write ' +
      'without a token would be unconditional. The checkpoint was left unchanged; do not retry this write: the new ' +
      'holder of the lease resumes from the stored checkpoint.';
  }
}
