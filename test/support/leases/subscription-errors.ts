import { CheckpointWriteConditionNotFulfilledError } from '../../../runtime/index.js';

/**
 * What a `DurableSubscription` node reports to `onError`, sorted: refusals (expected when a lease changes hands or a
 * counter is lost) apart from every other error (which a healthy run has none of). Pass `onError` to the nodes.
 */
export class SubscriptionErrors {
  readonly refusals: CheckpointWriteConditionNotFulfilledError[] = [];
  readonly others: unknown[] = [];

  readonly onError = (error: unknown): void => {
    if (error instanceof CheckpointWriteConditionNotFulfilledError) {
      this.refusals.push(error);
    } else {
      this.others.push(error);
    }
  };
}
