/**
 * Where leases and their fencing tokens live; `LeaseKeepingStrategy` turns any store into a competing-consumer
 * strategy. Every method is one atomic step in the store: acquiring mints the next token in the same step that writes
 * the lease. Tokens come from a counter per subscription id that only goes up and is never deleted, whoever holds the
 * lease: a key apart from the lease on Redis (ADR 0401), the token column of a lease row that is never deleted on
 * PostgreSQL (ADR 0803).
 *
 * `owner` identifies one consumer of one strategy instance: the strategy makes it from the subscriber id and a nonce
 * unique to the instance and the registration (`"<subscriberId> <instance uuid>/<n>"`). A store compares owners whole,
 * never by subscriber id alone, so two strategy instances given the same subscriber id, in one process or in two,
 * never share a lease (or a token).
 */
export interface LeaseStore {
  /**
   * Takes the lease when it is free and resolves to its newly minted token, or to the token it already has when
   * `owner` holds it; resolves to `undefined` when another owner holds it.
   */
  acquire(subscriptionId: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined>;

  /**
   * Extends each lease by `leaseTimeMs` when its `owner` still holds it with its `token`, and resolves to whether it
   * did, lease by lease. One round trip for all of them (one script, one statement; on a Redis Cluster, one script per
   * hash slot, sent at once), so a node holding many leases renews them at the cost of one: the strategy sends every
   * lease it holds in one call per refresh interval.
   */
  refreshAll(leases: readonly HeldLease[], leaseTimeMs: number): Promise<readonly boolean[]>;

  /** Frees the lease when `owner` still holds it with `token`; a stale holder's late release frees nothing. */
  release(subscriptionId: string, owner: string, token: bigint): Promise<void>;

  /**
   * Raises the token floor: once this resolves, the next token `acquire` mints for `subscriptionId` is greater than
   * `version`. A counter already at `version` or above is left as it is, so the counter is never lowered; a missing
   * counter is created. A store that keeps the counter apart from the lease leaves every lease alone; one whose
   * counter is also the holder's token (PostgreSQL) frees a lease held with a token below `version` instead, because
   * keeping it would hand its holder the floor itself as a token. One atomic step. The strategy calls it after a write
   * stamped with one of its tokens was refused over a stored version the counter never reached (the counter was
   * deleted, evicted or restored from an old backup), so a lost counter heals in one hand-over.
   */
  raiseFencingTokenAbove(subscriptionId: string, version: bigint): Promise<void>;
}

/** A lease as its holder knows it: what {@link LeaseStore.refreshAll} renews. */
export interface HeldLease {
  readonly subscriptionId: string;
  readonly owner: string;
  readonly token: bigint;
}
