import type { MembershipView } from '../partitions/membership.js';
import {
  membershipView,
  type JoinOutcome,
  type MemberKey,
  type MembershipStore,
} from '../partitions/membership-store.js';

/** Options of {@link InMemoryMembershipTable}. */
export interface InMemoryMembershipTableOptions {
  /** The table's own clock, which alone decides when a member expires (the "server time"); `performance.now` by default. */
  readonly now?: () => number;
}

interface TableMember {
  readonly instance: string;
  readonly joinedAt: number;
  expiresAt: number;
  owned: readonly number[];
}

/**
 * Memberships in process memory, shared by several {@link InMemoryMembership} "nodes" in one process: for tests and
 * single-process apps. Each method decides and writes without an `await` in between, so it is one atomic step.
 */
export class InMemoryMembershipTable implements MembershipStore {
  readonly #now: () => number;
  readonly #partitions = new Map<string, number>();
  readonly #members = new Map<string, Map<string, TableMember>>();

  constructor(options: InMemoryMembershipTableOptions = {}) {
    this.#now = options.now ?? (() => performance.now());
  }

  async join(
    { subscription, nodeId, instance }: MemberKey,
    partitions: number,
    memberTimeMs: number,
  ): Promise<JoinOutcome> {
    const now = this.#now();
    const members = this.#live(subscription, now);
    const storedPartitions = this.#partitions.get(subscription) ?? partitions;
    const live = members.get(nodeId);
    if (storedPartitions !== partitions) {
      return { joined: false, storedPartitions };
    }
    if (live !== undefined) {
      return { joined: false, expiresInMs: Math.ceil(live.expiresAt - now) };
    }
    this.#partitions.set(subscription, partitions);
    members.set(nodeId, { instance, joinedAt: now, expiresAt: now + memberTimeMs, owned: [] });
    return { joined: true };
  }

  async heartbeat(
    { subscription, nodeId, instance }: MemberKey,
    owned: readonly number[],
    memberTimeMs: number,
  ): Promise<MembershipView> {
    const now = this.#now();
    const members = this.#live(subscription, now);
    const mine = members.get(nodeId);
    if (mine?.instance === instance) {
      mine.expiresAt = now + memberTimeMs;
      mine.owned = owned;
    }
    const view = [...members].map(([id, member]) => ({
      nodeId: id,
      memberForMs: Math.floor(now - member.joinedAt),
      owned: member.owned,
    }));
    return membershipView(mine?.instance === instance, view);
  }

  async leave({ subscription, nodeId, instance }: MemberKey): Promise<void> {
    const members = this.#members.get(subscription);
    if (members?.get(nodeId)?.instance === instance) {
      members.delete(nodeId);
    }
  }

  /** The live members of `subscription`, the expired ones dropped. */
  #live(subscription: string, now: number): Map<string, TableMember> {
    const members = this.#members.get(subscription) ?? new Map<string, TableMember>();
    this.#members.set(subscription, members);
    for (const [nodeId, member] of members) {
      if (member.expiresAt <= now) {
        members.delete(nodeId);
      }
    }
    return members;
  }
}
