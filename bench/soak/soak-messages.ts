import type { TimedHistoryEvent } from '../../test/support/linearizability/index.js';

/** Where a worker's Redis is: one server, or the seed nodes of a Cluster. */
export type SoakRedisTarget =
  | { readonly mode: 'standalone'; readonly host: string; readonly port: number }
  | { readonly mode: 'cluster'; readonly nodes: readonly { readonly host: string; readonly port: number }[] };

/** Everything a worker process needs, sent once after it starts. */
export interface SoakWorkerConfig {
  readonly name: string;
  readonly redis: SoakRedisTarget;
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

/** Worker to harness: recorded events in batches, then a final report. */
export type SoakWorkerMessage =
  | { readonly type: 'events'; readonly events: readonly TimedHistoryEvent[] }
  | { readonly type: 'done'; readonly leaseErrors: number };
