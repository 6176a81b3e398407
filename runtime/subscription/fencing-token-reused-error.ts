import { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { quoteText } from '../describe-value.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';

/**
 * A new grant's token is the version already stored, written by another holder: the strategy's token counter was
 * lost (deleted, evicted, reset by a restart without persistence) and minted the same token twice. The fence cannot
 * tell two holders of one token apart, so the grant is treated as a refused write: the node raises the token floor
 * above it and gives the lease up. A `CheckpointWriteConditionNotFulfilledError` whose `storedVersion` is `token`.
 */
export class FencingTokenReusedError extends CheckpointWriteConditionNotFulfilledError {
  override readonly name = 'FencingTokenReusedError';

  constructor(subscriptionId: string, token: bigint) {
    super(subscriptionId, CheckpointWriteCondition.notOlderThan(token), token);
    this.message =
      `Subscription ${quoteText(subscriptionId)} was granted token ${token}, but version ${token} is already stored by another ` +
      'holder: the token counter was lost and minted it twice, and the fence cannot tell two holders of one token apart. ' +
      'Nothing was written; this node raises the token floor above it and gives the lease up. Never delete where the ' +
      'strategy keeps its token counter (the token key in Redis, the lease row in PostgreSQL).';
  }
}
