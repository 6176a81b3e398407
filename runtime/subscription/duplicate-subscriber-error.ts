import { quoteText } from '../describe-value.js';

/**
 * `subscribe` named an id that another `DurableSubscription` already subscribed on the same strategy instance. With
 * the same subscriber id both would deliver under one lease and one token, so the fence could not tell them apart;
 * with another one the strategy could not say whose token it holds, and neither would deliver.
 */
export class DuplicateSubscriberError extends Error {
  override readonly name = 'DuplicateSubscriberError';

  constructor(
    readonly subscriptionId: string,
    readonly subscriberId: string,
    readonly registeredSubscriberId: string,
  ) {
    super(
      `Subscription ${quoteText(subscriptionId)} is already subscribed on this strategy instance by another DurableSubscription ` +
        (subscriberId === registeredSubscriberId
          ? `with the same subscriber id ${quoteText(subscriberId)}: both would deliver under one lease and one fencing token, so the fence could not tell them apart. `
          : `as subscriber ${quoteText(registeredSubscriberId)}: the strategy could not tell which of the two its token belongs to, so neither would deliver. `) +
        'A node is one strategy instance: give each DurableSubscription its own strategy, or subscribe the id once per node.',
    );
  }
}
