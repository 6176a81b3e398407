import type { CompetingConsumerStrategy } from '../leases/competing-consumer-strategy.js';
import { DuplicateSubscriberError } from './duplicate-subscriber-error.js';

/** Per strategy instance: which subscriber id each subscription id is subscribed under, by any `DurableSubscription`. */
const claims = new WeakMap<CompetingConsumerStrategy, Map<string, string>>();

/**
 * Claims `subscriptionId` on `strategy` for one `DurableSubscription` and returns the function that gives the claim
 * back. Across `DurableSubscription` instances in this process, so that two of them on one strategy instance never
 * both register one id. Giving it back twice is harmless: it never gives back a later claim of the same id.
 * @throws DuplicateSubscriberError when the id is claimed already.
 */
export function claimSubscription(
  strategy: CompetingConsumerStrategy,
  subscriptionId: string,
  subscriberId: string,
): () => void {
  let claimed = claims.get(strategy);
  if (claimed === undefined) {
    claimed = new Map();
    claims.set(strategy, claimed);
  }
  const registered = claimed.get(subscriptionId);
  if (registered !== undefined) {
    throw new DuplicateSubscriberError(subscriptionId, subscriberId, registered);
  }
  claimed.set(subscriptionId, subscriberId);
  const ofStrategy = claimed;
  let released = false;
  return () => {
    if (!released) {
      released = true;
      ofStrategy.delete(subscriptionId);
    }
  };
}
