import type { InspectionReport } from './inspection-report.js';
import type { ReplicationInspection } from './operator-backend.js';
import type { JudgedPartitionedSubscription } from './partitioned-subscription-health.js';
import { hasLiveLease, healthFlags, type HealthFlag, type JudgedSubscription } from './subscription-health.js';

/**
 * `inspect --prometheus`: the store's health as Prometheus text exposition, for a cron job writing a node exporter's
 * textfile collector. Counts only, never a subscription id (they can be unbounded); every flag is printed, 0 when
 * none is raised, so that an alert on one sees it fall back. A partitioned subscription is the exception: its name and
 * partitions are labels (a few names, each with its fixed P), so its ownership can be graphed. Nothing is printed
 * until the scan ends.
 */
export class PrometheusInspectionReport implements InspectionReport {
  readonly #out: (text: string) => void;
  readonly #flagged = new Map<HealthFlag, number>(healthFlags.map((flag) => [flag, 0]));
  #subscriptions = 0;
  #withProblems = 0;
  #liveLeases = 0;
  #replication: ReplicationInspection | undefined;
  readonly #partitionSamples = new Map<PartitionFamily, string[]>();

  constructor(out: (text: string) => void) {
    this.#out = out;
  }

  replication(inspection: ReplicationInspection): void {
    this.#replication = inspection;
  }

  write(subscriptions: readonly JudgedSubscription[]): void {
    for (const subscription of subscriptions) {
      this.#subscriptions += 1;
      this.#withProblems += subscription.problems.length > 0 ? 1 : 0;
      this.#liveLeases += hasLiveLease(subscription) ? 1 : 0;
      for (const flag of subscription.flags) {
        this.#flagged.set(flag, (this.#flagged.get(flag) ?? 0) + 1);
      }
    }
  }

  partitioned(group: JudgedPartitionedSubscription): void {
    this.write(group.partitions);
    addPartitionSamples(this.#partitionSamples, group);
  }

  end(): void {
    const flagged = [...this.#flagged].map(
      ([flag, count]) => `checkpoint_fencing_inspect_flagged{flag="${flag}"} ${count}`,
    );
    this.#out(`# HELP checkpoint_fencing_inspect_subscriptions Subscriptions inspect read.
# TYPE checkpoint_fencing_inspect_subscriptions gauge
checkpoint_fencing_inspect_subscriptions ${this.#subscriptions}
# HELP checkpoint_fencing_inspect_flagged Subscriptions with each health flag raised (doc/operations.md).
# TYPE checkpoint_fencing_inspect_flagged gauge
${flagged.join('\n')}
# HELP checkpoint_fencing_inspect_problems Subscriptions holding a value no storage or strategy writes.
# TYPE checkpoint_fencing_inspect_problems gauge
checkpoint_fencing_inspect_problems ${this.#withProblems}
# HELP checkpoint_fencing_inspect_live_leases Subscriptions whose lease is held and not expired.
# TYPE checkpoint_fencing_inspect_live_leases gauge
checkpoint_fencing_inspect_live_leases ${this.#liveLeases}
${this.#replication === undefined ? '' : replicationGauges(this.#replication)}${partitionGauges(this.#partitionSamples)}`);
  }
}

function replicationGauges({ replicas, needsAttention }: ReplicationInspection): string {
  return `# HELP checkpoint_fencing_inspect_replicas Replicas (Redis) or standbys (PostgreSQL) that could be promoted, by whether commits wait for them synchronously.
# TYPE checkpoint_fencing_inspect_replicas gauge
checkpoint_fencing_inspect_replicas{sync="sync"} ${replicas.synchronous}
checkpoint_fencing_inspect_replicas{sync="async"} ${replicas.asynchronous}
# HELP checkpoint_fencing_inspect_replication_flagged 1 when a failover can lose grants or writes, or every grant fails (doc/operations.md).
# TYPE checkpoint_fencing_inspect_replication_flagged gauge
checkpoint_fencing_inspect_replication_flagged ${needsAttention ? 1 : 0}
`;
}

/** The families of a partitioned subscription's samples, each with its help, printed as one group each. */
const partitionFamilies = {
  partition_members: 'Live members of each partitioned subscription.',
  partitions_unowned: 'Partitions of each partitioned subscription that no node owns.',
  partition_owner: '1 for each partition and the node id that owns it; owner="" and 0 while no node does.',
  partition_token: "The fencing token of each owned partition's live lease.",
  partition_checkpoint: "Each partition's checkpoint where it is a decimal number (a position in a global log).",
} as const;

type PartitionFamily = keyof typeof partitionFamilies;

/** Adds one partitioned subscription's samples to each family's. */
function addPartitionSamples(
  samples: Map<PartitionFamily, string[]>,
  { membership, partitions, unowned }: JudgedPartitionedSubscription,
): void {
  const add = (family: PartitionFamily, labels: string, value: string | number | bigint): void => {
    const lines = samples.get(family) ?? [];
    samples.set(family, lines);
    lines.push(`checkpoint_fencing_inspect_${family}{${labels}} ${value}`);
  };
  const subscription = `subscription="${labelValue(membership.name)}"`;
  add('partition_members', subscription, membership.members.length);
  add('partitions_unowned', subscription, unowned.length);
  for (const { partition, owner, lease, checkpoint } of partitions) {
    const labels = `${subscription},partition="${partition}"`;
    add('partition_owner', `${labels},owner="${labelValue(owner ?? '')}"`, owner === undefined ? 0 : 1);
    if (owner !== undefined && lease !== undefined) {
      add('partition_token', labels, lease.token);
    }
    if (checkpoint !== undefined && /^(0|[1-9][0-9]*)$/u.test(checkpoint)) {
      add('partition_checkpoint', labels, checkpoint);
    }
  }
}

/** Each family with samples, its HELP and TYPE lines first. */
function partitionGauges(samples: ReadonlyMap<PartitionFamily, readonly string[]>): string {
  return [...samples]
    .map(
      ([family, lines]) =>
        `# HELP checkpoint_fencing_inspect_${family} ${partitionFamilies[family]}\n` +
        `# TYPE checkpoint_fencing_inspect_${family} gauge\n${lines.join('\n')}\n`,
    )
    .join('');
}

/** A label value as the text exposition format escapes it. */
function labelValue(text: string): string {
  return text.replace(/[\\"\n]/gu, (character) => (character === '\n' ? '\\n' : `\\${character}`));
}
