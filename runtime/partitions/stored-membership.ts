import { randomUUID } from 'node:crypto';
import { describeValue, quoteText } from '../describe-value.js';
import { assertNonEmptyId } from '../subscription-id.js';
import type { Member, Membership } from './membership.js';
import type { MembershipStore } from './membership-store.js';
import { assertPartitionCount } from './partition-hash.js';

/** Options every membership takes. */
export interface MembershipOptions {
  /** How long a member stays live after its last heartbeat, by the store's clock; 10 000 ms by default. */
  readonly memberTimeMs?: number;
}

/** A {@link Membership} over any {@link MembershipStore}: checks arguments, and explains a refused join. */
export class StoredMembership implements Membership {
  readonly memberTimeMs: number;
  readonly #store: MembershipStore;

  /** @throws RangeError unless `memberTimeMs` is a whole number of milliseconds, at least 1. */
  constructor(store: MembershipStore, options: MembershipOptions = {}) {
    const memberTimeMs = options.memberTimeMs ?? 10_000;
    if (!Number.isSafeInteger(memberTimeMs) || memberTimeMs < 1) {
      throw new RangeError(
        `memberTimeMs must be a whole number of milliseconds, at least 1; got ${describeValue(memberTimeMs)}.`,
      );
    }
    this.memberTimeMs = memberTimeMs;
    this.#store = store;
  }

  async join(subscription: string, nodeId: string, partitions: number): Promise<Member> {
    assertNonEmptyId(subscription, 'subscription');
    assertNonEmptyId(nodeId, 'nodeId');
    assertPartitionCount(partitions);
    const key = { subscription, nodeId, instance: randomUUID() };
    const outcome = await this.#store.join(key, partitions, this.memberTimeMs);
    const named = `Node ${quoteText(nodeId)} cannot join partitioned subscription ${quoteText(subscription)}`;
    if ('storedPartitions' in outcome) {
      throw new Error(
        `${named} with ${partitions} partitions: the subscription is recorded with ${outcome.storedPartitions}, ` +
          'and a key hashes to another partition under another count, so its events would be split between two ' +
          `checkpoints. Start every node with partitions: ${outcome.storedPartitions}, or give the subscription a new ` +
          'name to change the count.',
      );
    }
    if ('expiresInMs' in outcome) {
      throw new Error(
        `${named}: node id ${quoteText(nodeId)} is a live member already (for another ${outcome.expiresInMs} ms ` +
          'unless it heartbeats), and two nodes under one id would each take the other for itself. Give every node ' +
          'its own nodeId; if the other has stopped, join again once its membership has expired.',
      );
    }
    const { memberTimeMs } = this;
    const store = this.#store;
    return {
      subscription,
      nodeId,
      partitions,
      heartbeat: async (owned) => store.heartbeat(key, ownedPartitions(owned, partitions), memberTimeMs),
      leave: () => store.leave(key),
    };
  }
}

/** `owned` sorted, once checked: distinct whole numbers from 0 to `partitions - 1`. */
function ownedPartitions(owned: unknown, partitions: number): number[] {
  const list = Array.isArray(owned) ? (owned as unknown[]) : [Number.NaN];
  if (
    new Set(list).size !== list.length ||
    !list.every((p) => Number.isInteger(p) && (p as number) >= 0 && (p as number) < partitions)
  ) {
    throw new RangeError(
      `owned must list distinct partitions from 0 to ${partitions - 1}, got ${describeValue(owned)}.`,
    );
  }
  return (list as number[]).slice().sort((a, b) => a - b);
}
