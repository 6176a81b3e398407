import type { TimedHistoryEvent } from '../../test/support/linearizability/index.js';

/** Where a worker's Redis is: one server, the seed nodes of a Cluster, or the Sentinels that name a master. */
export type SoakRedisTarget =
  | { readonly mode: 'standalone'; readonly host: string; readonly port: number }
  | { readonly mode: 'cluster'; readonly nodes: readonly { readonly host: string; readonly port: number }[] }
  | {
      readonly mode: 'sentinel';
      readonly sentinels: readonly { readonly host: string; readonly port: number }[];
      readonly name: string;
      /** `false`: storages and strategies never wait for replicas (the negative control); otherwise their default. */
      readonly waitForReplicas: boolean;
      /** The client's connection name: in a partition, it says the client's side (`--partition`). */
      readonly connectionName?: string;
    };

/** Where a worker's PostgreSQL is, and the two tables the harness created there. */
export interface SoakPostgresTarget {
  readonly mode: 'postgres';
  readonly connectionString: string;
  readonly checkpointTable: string;
  readonly leaseTable: string;
  /** `false`: storages and strategies never wait for standbys (the failover soak's negative control). */
  readonly waitForStandbys?: false;
}

/** The backend every process of one soak run uses for checkpoints and leases. */
export type SoakTarget = SoakRedisTarget | SoakPostgresTarget;

/** Everything a worker process needs, sent once after it starts. */
export interface SoakWorkerConfig {
  readonly name: string;
  readonly target: SoakTarget;
  readonly subscriptionIds: readonly string[];
  readonly leaseMs: number;
  /** Writes this worker may make in total, its share of the run's operation bound. */
  readonly maxWrites: number;
}

/** Harness to worker. `stall`: freeze this worker's timers and writes for `ms`, a pause longer than the lease. */
export type SoakCommand =
  | { readonly type: 'start'; readonly config: SoakWorkerConfig }
  | { readonly type: 'stall'; readonly ms: number }
  | { readonly type: 'stop' };

/** A lease a worker was granted: for which subscription, with which token, and when (the shared monotonic clock). */
export interface SoakGrant {
  readonly subscriptionId: string;
  readonly token: bigint;
  readonly time: bigint;
}

/** Worker to harness: recorded events and grants in batches, then a final report. */
export type SoakWorkerMessage =
  | { readonly type: 'events'; readonly events: readonly TimedHistoryEvent[]; readonly grants: readonly SoakGrant[] }
  | { readonly type: 'done'; readonly leaseErrors: number };
