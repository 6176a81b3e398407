/**
 * The live nodes of partitioned subscriptions, kept by heartbeats judged on the store's clock, never a node's. A
 * partitioned subscription joins once, then heartbeats with the partitions whose leases it holds; each heartbeat
 * answers the live members and what they hold, from which every node computes the same target (ADR 1201).
 * `describeMembershipConformance` in `checkpoint-fencing/testing` checks an implementation.
 */
export interface Membership {
  /** How long a member stays live after its last heartbeat, by the store's clock, in milliseconds. */
  readonly memberTimeMs: number;

  /**
   * Makes `nodeId` a live member of the partitioned subscription `subscription`, split into `partitions`. The first
   * join records `partitions` for the subscription for good, even after every member has left.
   * @throws Error when the subscription is recorded with another partition count, or `nodeId` is a live member
   * already, naming both values and the fix; TypeError or RangeError for bad arguments, before anything is sent.
   */
  join(subscription: string, nodeId: string, partitions: number): Promise<Member>;
}

/** One join of one node. A later join of the same node id is another member: this one's calls never touch it. */
export interface Member {
  readonly subscription: string;
  readonly nodeId: string;
  readonly partitions: number;

  /**
   * One round trip: renews this membership for `memberTimeMs` by the store's clock, records `owned` (the partitions
   * whose leases this node holds), and answers the live members. A membership that lapsed (it expired, or left) is
   * not renewed: `renewed` is false, and the node must join again.
   * @throws RangeError unless `owned` holds distinct whole numbers below `partitions`, before anything is sent.
   */
  heartbeat(owned: readonly number[]): Promise<MembershipView>;

  /** Ends this membership at once, so the others stop counting it; idempotent. */
  leave(): Promise<void>;
}

/** What a heartbeat answers. */
export interface MembershipView {
  /** False when this membership had lapsed before the heartbeat, which then renewed nothing. */
  readonly renewed: boolean;
  /** The live members by the store's clock, sorted by node id; this one among them when renewed. */
  readonly members: readonly LiveMember[];
}

/** A live member, as a heartbeat sees it. */
export interface LiveMember {
  readonly nodeId: string;
  /** How long ago it joined, by the store's clock, in milliseconds: a settle window waits on it. */
  readonly memberForMs: number;
  /** The partitions it reported at its last heartbeat, ascending. */
  readonly owned: readonly number[];
}
