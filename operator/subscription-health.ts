/** The health flags `inspect` raises; doc/operations.md says what each means, what caused it and what fixes it. */
export const healthFlags = ['stuck', 'unfenceable', 'stray-version', 'no-version', 'expired-lease', 'unowned'] as const;

/** One of {@link healthFlags}. */
export type HealthFlag = (typeof healthFlags)[number];

/** A lease as the store records it. */
export interface RecordedLease {
  /** The owner the strategy stored: `"<subscriberId> <strategy instance uuid>/<registration>"`. */
  readonly holder: string;
  readonly token: bigint;
  /**
   * Milliseconds until the store expires it by its own clock; zero or less for a lease that expired and is still
   * recorded (PostgreSQL keeps the row, Redis deletes the key); `undefined` for a lease with no expiry at all.
   */
  readonly expiresInMs: number | undefined;
}

/** What the store holds for one subscription, as read by `inspect`. */
export interface SubscriptionState {
  /** `undefined` for a version key whose subscription cannot be told: the key holds only a hash of the id. */
  readonly id: string | undefined;
  readonly checkpoint: string | undefined;
  readonly storedVersion: bigint | undefined;
  /** The lease recorded now, live or (PostgreSQL only) expired; `undefined` when nobody holds one. */
  readonly lease: RecordedLease | undefined;
  /** The last token the lease strategy minted; `undefined` when it never minted one (or its counter was lost). */
  readonly tokenCounter: bigint | undefined;
  /** On a Cluster: the id's checkpoint key and version key cannot share a slot (no hash tag, and empty or with `}`). */
  readonly clusterUnaligned: boolean;
  /** Where the store keeps this subscription, for the report: its Redis keys, or its PostgreSQL tables. */
  readonly records: Readonly<Record<string, string>>;
  /** Values the storages and strategies never write (a version that is not a canonical decimal, a key of another type). */
  readonly problems: readonly string[];
}

/** A subscription's state judged: its flags, and the token the next grant mints. */
export interface JudgedSubscription extends SubscriptionState {
  /** What the next grant mints: one above the counter, or 0 with no counter. `undefined` when the id is unknown. */
  readonly nextToken: bigint | undefined;
  readonly flags: readonly HealthFlag[];
}

/**
 * Judges one subscription (ADR 1003). A pure function of what the store holds:
 * - `stuck`: a stored version at or above the next token: that token's writes are refused (`notOlderThan` below the
 *   stored version), or, equal to it, refused at acquire as a token minted twice.
 * - `unfenceable`: on a Cluster, the id's two keys cannot share a slot, so Cluster-safe mode refuses to fence it.
 * - `stray-version`: a version of an id Cluster cannot align (left by `forStandalone`, never consulted). A version
 *   with no checkpoint on an id the storage fences is a fence, not stray: what a fence on acquire leaves before the
 *   first checkpoint, and what `reset` leaves (ADR 1004).
 * - `no-version`: a checkpoint with no version for an id the lease strategy has minted tokens for: written by `any()`
 *   or a pre-fencing release, so a stale writer is not refused until the next fenced write.
 * - `expired-lease`: the strategy minted tokens for the id, but no lease is live: it expired (or was released) and no
 *   node took it over, so nobody delivers the subscription.
 * A subscription with a problem (a value no storage or strategy writes) gets no flags: its problem comes first.
 */
export function judgeSubscription(state: SubscriptionState): JudgedSubscription {
  if (state.id === undefined) {
    return { ...state, nextToken: undefined, flags: state.problems.length > 0 ? [] : ['stray-version'] };
  }
  const nextToken = state.tokenCounter === undefined ? 0n : state.tokenCounter + 1n;
  if (state.problems.length > 0) {
    // A value no storage or strategy writes was read as missing: flags judged from it would mislead. Fix it first.
    return { ...state, nextToken, flags: [] };
  }
  const hasVersion = state.storedVersion !== undefined;
  const raised: Record<HealthFlag, boolean> = {
    stuck: state.storedVersion !== undefined && state.storedVersion >= nextToken,
    unfenceable: state.clusterUnaligned,
    'stray-version': hasVersion && state.clusterUnaligned,
    'no-version': state.checkpoint !== undefined && !hasVersion && state.tokenCounter !== undefined,
    'expired-lease': state.tokenCounter !== undefined && !hasLiveLease(state),
    // A partition's flag, judged with its membership (judgePartitionedSubscription).
    unowned: false,
  };
  return { ...state, nextToken, flags: healthFlags.filter((flag) => raised[flag]) };
}

/** Whether a lease is live: recorded and not expired by the store's clock (a lease with no expiry is live). */
export function hasLiveLease(state: SubscriptionState): boolean {
  return state.lease !== undefined && (state.lease.expiresInMs === undefined || state.lease.expiresInMs > 0);
}

/** True when `inspect` should exit 1 for this subscription: a flag raised, or a value no storage writes. */
export function needsAttention(subscription: JudgedSubscription): boolean {
  return subscription.flags.length > 0 || subscription.problems.length > 0;
}
