import type { InspectionReport } from './inspection-report.js';
import type { ReplicationInspection } from './operator-backend.js';
import { hasLiveLease, healthFlags, type HealthFlag, type JudgedSubscription } from './subscription-health.js';

/**
 * `inspect --prometheus`: the store's health as Prometheus text exposition, for a cron job writing a node exporter's
 * textfile collector. Counts only, never a subscription id (they can be unbounded); every flag is printed, 0 when
 * none is raised, so that an alert on one sees it fall back. Nothing is printed until the scan ends.
 */
export class PrometheusInspectionReport implements InspectionReport {
  readonly #out: (text: string) => void;
  readonly #flagged = new Map<HealthFlag, number>(healthFlags.map((flag) => [flag, 0]));
  #subscriptions = 0;
  #withProblems = 0;
  #liveLeases = 0;
  #replication: ReplicationInspection | undefined;

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
${this.#replication === undefined ? '' : replicationGauges(this.#replication)}`);
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
