import type { FencingToken } from '../fencing-token.js';

/** Told which consumer a lease was granted to, or which consumer may no longer consume. */
export type CompetingConsumerListener = (subscriptionId: string, subscriberId: string) => void;

/**
 * Hands each subscription to one consumer at a time across nodes, and numbers every hand-over with a fencing token
 * that only goes up, so a checkpoint storage can refuse a write from a consumer that lost its lease.
 */
export interface CompetingConsumerStrategy {
  /** How long a lease lasts without a refresh, when the strategy has such a time; consumers derive waits from it. */
  readonly leaseTimeMs?: number;

  /**
   * Makes `subscriberId` a candidate for the lease of `subscriptionId` and resolves to `true` when it holds the lease
   * right away. The strategy keeps trying for a registered consumer and calls the `onGranted` listeners when the
   * lease arrives. Registering a consumer that is already registered changes nothing.
   */
  register(subscriptionId: string, subscriberId: string): Promise<boolean>;

  /**
   * Throws `TypeError` for a subscription id this strategy could never register (PostgreSQL text cannot hold NUL),
   * synchronously and before anything is sent, beyond the rules every strategy shares (`runtime/subscription-id.ts`).
   * `DurableSubscription` calls it in `subscribe`, so such an id is refused at once rather than retried without end.
   */
  assertSubscriptionId?(subscriptionId: string): void;

  /** Like {@link assertSubscriptionId}, for a subscriber id; `DurableSubscription` calls it in its constructor. */
  assertSubscriberId?(subscriberId: string): void;

  /** Gives up the lease if held and keeps the consumer out until it registers again. */
  unregister(subscriptionId: string, subscriberId: string): Promise<void>;

  /** Gives up the lease if held; the consumer stays registered and may take the lease back later. */
  release(subscriptionId: string, subscriberId: string): Promise<void>;

  /**
   * Whether the consumer holds the lease, answered from memory (it is called for every event). False once three
   * quarters of the lease time have passed since the request that last set the lease was sent, and at once after a
   * release.
   */
  hasLock(subscriptionId: string, subscriberId: string): boolean;

  /**
   * The token of the lease this strategy instance holds for `subscriptionId`; `undefined` when it holds none, or when
   * more than one of its consumers is registered for that id (either could be handed the other's token).
   */
  fencingToken(subscriptionId: string): FencingToken | undefined;

  /**
   * Raises the token floor of `subscriptionId`: every token minted after this resolves is greater than `version`. It
   * never lowers a counter and leaves leases held with a token at or above `version` alone (a lease below it may be
   * freed, see `LeaseStore.raiseFencingTokenAbove`). A consumer calls it after a write stamped with one of this
   * strategy's tokens was refused with `storedVersion` `version` while it still held the lease: the counter was lost
   * (deleted, evicted, reset by a restart without persistence), and raising it makes the next hand-over's token
   * fence again, instead of one refused hand-over per unit of the stored version. Optional; every built-in strategy
   * (in memory, Redis, PostgreSQL) has it, and the conformance kit checks it when it is there.
   * @throws TypeError (as a rejection) for an id the strategy would not register, or a version that is not a non-negative bigint.
   */
  raiseFencingTokenAbove?(subscriptionId: string, version: bigint): Promise<void>;

  /** Calls `listener` whenever a consumer of this instance is granted a lease; returns a function that stops it. */
  onGranted(listener: CompetingConsumerListener): () => void;

  /** Calls `listener` whenever a consumer of this instance loses or gives up a lease; returns a function that stops it. */
  onProhibited(listener: CompetingConsumerListener): () => void;

  /** Stops acquiring and refreshing, then makes one attempt to give up each lease held, waiting at most 5 s. */
  shutdown(): Promise<void>;
}
