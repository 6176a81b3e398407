import { quoteText } from '../describe-value.js';
/** `pause` or `resume` named a subscription id this {@link DurableSubscription} instance never subscribed. */
export class UnknownSubscriptionError extends Error {
  override readonly name = 'UnknownSubscriptionError';

  constructor(readonly subscriptionId: string) {
    super(
      `Subscription ${quoteText(subscriptionId)} is not subscribed on this DurableSubscription instance, so it cannot be ` +
        'paused or resumed. Call subscribe() for it first, or check the id for a typo.',
    );
  }
}
