import type { LiveMember } from 'checkpoint-fencing';
import {
  hasLiveLease,
  healthFlags,
  judgeSubscription,
  type JudgedSubscription,
  type SubscriptionState,
} from './subscription-health.js';

/** A live member of a partitioned subscription, as its membership records it, with the time its membership has left. */
export interface RecordedMember extends LiveMember {
  /** Milliseconds until its membership expires unless it heartbeats, by the store's clock. */
  readonly expiresInMs: number;
}

/** What a membership store records for one partitioned subscription (`RedisMembership`, `PostgresMembership`). */
export interface RecordedMembership {
  /** The subscription's name: its partitions are the subscription ids `<name>/0` to `<name>/<partitions - 1>`. */
  readonly name: string;
  readonly partitions: number;
  /** The live members, in node id order; expired ones are left out, as every node leaves them out. */
  readonly members: readonly RecordedMember[];
  /** Where the store keeps the membership: its Redis keys, or its PostgreSQL table. */
  readonly records: Readonly<Record<string, string>>;
  /** Values `RedisMembership` never writes (a member value of another form), reported as on any row. */
  readonly problems: readonly string[];
}

/** One partition judged: its subscription's flags, `unowned` among them when no live lease is held. */
export interface JudgedPartition extends JudgedSubscription {
  readonly partition: number;
  /** The node id of the live lease's holder; `undefined` while no node owns the partition. */
  readonly owner: string | undefined;
}

/** A partitioned subscription judged: its membership and every partition, in order. */
export interface JudgedPartitionedSubscription {
  readonly membership: RecordedMembership;
  readonly partitions: readonly JudgedPartition[];
  /** The partitions no node owns: each is delivered by nobody until a node takes its lease. */
  readonly unowned: readonly number[];
}

/** The subscription ids of `membership`'s partitions, in partition order: what each partition's lease and checkpoint are stored under. */
export function partitionIds(membership: Pick<RecordedMembership, 'name' | 'partitions'>): string[] {
  return Array.from({ length: membership.partitions }, (_, partition) => `${membership.name}/${partition}`);
}

/**
 * Judges a partitioned subscription from its membership and the state of each partition's subscription id (in
 * {@link partitionIds} order): each partition as any subscription, plus `unowned` when no live lease is held, so that
 * `inspect` exits 1 while a partition goes undelivered (as `expired-lease` does for a plain subscription).
 */
export function judgePartitionedSubscription(
  membership: RecordedMembership,
  states: readonly SubscriptionState[],
): JudgedPartitionedSubscription {
  const partitions = states.map((state, partition): JudgedPartition => {
    const judged = judgeSubscription(state);
    if (judged.lease !== undefined && hasLiveLease(judged)) {
      return { ...judged, partition, owner: ownerNode(judged.lease.holder) };
    }
    // A problem row gets no flags (its problem comes first), as judgeSubscription rules.
    const flags =
      judged.problems.length > 0
        ? judged.flags
        : healthFlags.filter((flag) => flag === 'unowned' || judged.flags.includes(flag));
    return { ...judged, partition, owner: undefined, flags };
  });
  return {
    membership,
    partitions,
    unowned: partitions.filter(({ owner }) => owner === undefined).map(({ partition }) => partition),
  };
}

/** The node id in a lease holder `"<node id> <strategy instance uuid>/<registration>"`; the whole holder otherwise. */
export function ownerNode(holder: string): string {
  return /^(.*) [0-9a-f]{8}-[0-9a-f-]{27}\/[0-9]+$/su.exec(holder)?.[1] ?? holder;
}

/**
 * A recorded partition count, as a membership writes it: a power of two from 1 to 4096. Any other value is a problem
 * of `where`, and the subscription is shown with no partitions, since which ids they are cannot be told.
 */
export function recordedPartitionCount(text: string, where: string, problems: string[]): number {
  const count = Number(text);
  if (/^[1-9][0-9]{0,3}$/u.test(text) && count <= 4096 && (count & (count - 1)) === 0) {
    return count;
  }
  problems.push(
    `${where} records ${JSON.stringify(text)} partitions, not a power of two from 1 to 4096 as a membership writes it; ` +
      'set it to the partitions every node starts with',
  );
  return 0;
}
