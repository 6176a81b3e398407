import { quoteText } from '../describe-value.js';
/** `subscribe` was called twice for one subscription id on one {@link DurableSubscription} instance. */
export class DuplicateSubscriptionIdError extends Error {
  override readonly name = 'DuplicateSubscriptionIdError';

  constructor(readonly subscriptionId: string) {
    super(
      `Subscription ${quoteText(subscriptionId)} is already subscribed on this DurableSubscription instance. ` +
        'Run the same id on other nodes (that is what the lease is for), or use another id here.',
    );
  }
}
