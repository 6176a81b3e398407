import type { LiveMember, MembershipView } from './membership.js';

/** What a join found: it joined, or the partition count recorded, or how long the live member of that id has left. */
export type JoinOutcome =
  | { readonly joined: true }
  | { readonly joined: false; readonly storedPartitions: number }
  | { readonly joined: false; readonly expiresInMs: number };

/**
 * Where memberships live; `StoredMembership` turns any store into a {@link Membership}. Each method is one atomic
 * step judged on the store's clock. `instance` is unique to one join: only that join's calls renew or end it.
 */
export interface MembershipStore {
  /** Records `partitions` unless another count is, and adds the member unless its node id is live, owning nothing. */
  join(
    subscription: string,
    nodeId: string,
    instance: string,
    partitions: number,
    memberTimeMs: number,
  ): Promise<JoinOutcome>;
  heartbeat(
    subscription: string,
    nodeId: string,
    instance: string,
    owned: readonly number[],
    memberTimeMs: number,
  ): Promise<MembershipView>;
  leave(subscription: string, nodeId: string, instance: string): Promise<void>;
}

/** The view every store answers: `members` in node id order. */
export function membershipView(renewed: boolean, members: LiveMember[]): MembershipView {
  return { renewed, members: members.sort((a, b) => (a.nodeId < b.nodeId ? -1 : 1)) };
}

/** The partitions of a member's `owned`, kept as comma-separated text by the Redis and PostgreSQL stores. */
export function ownedFromText(text: unknown): number[] {
  return text === '' ? [] : String(text).split(',').map(Number);
}
