import type { LiveMember, MembershipView } from './membership.js';

/** One join of one node; `instance` is unique to the join, so only its own calls renew or end it. */
export interface MemberKey {
  readonly subscription: string;
  readonly nodeId: string;
  readonly instance: string;
}

/** What a join found: it joined, or the partition count recorded, or how long the live member of that id has left. */
export type JoinOutcome =
  | { readonly joined: true }
  | { readonly joined: false; readonly storedPartitions: number }
  | { readonly joined: false; readonly expiresInMs: number };

/** Where memberships live, for `StoredMembership`: each method is one atomic step judged on the store's clock. */
export interface MembershipStore {
  /** Records `partitions` unless another count is, and adds the member, owning nothing, unless its node id is live. */
  join(member: MemberKey, partitions: number, memberTimeMs: number): Promise<JoinOutcome>;
  heartbeat(member: MemberKey, owned: readonly number[], memberTimeMs: number): Promise<MembershipView>;
  leave(member: MemberKey): Promise<void>;
}

/** The view every store answers: `members` in node id order. */
export function membershipView(renewed: boolean, members: LiveMember[]): MembershipView {
  return { renewed, members: members.sort((a, b) => (a.nodeId < b.nodeId ? -1 : 1)) };
}

/** The partitions of a member's `owned`, kept as comma-separated text by the Redis and PostgreSQL stores. */
export function ownedFromText(text: unknown): number[] {
  return text === '' ? [] : String(text).split(',').map(Number);
}
