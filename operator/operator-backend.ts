import type { RecordedMembership } from './partitioned-subscription-health.js';
import type { ScanProgress } from './scan-progress.js';
import type { SubscriptionState } from './subscription-health.js';

/** How much an inspection read, for the summary line. */
export interface InspectionCoverage {
  /** E.g. `200,004 keys scanned on 3 masters`, `9 rows read from …`, `2 ids read`. */
  readonly coverage: string;
}

/** What reading a command line's ids read: every subscription, and how much was read. */
export interface Inspection extends InspectionCoverage {
  readonly subscriptions: readonly SubscriptionState[];
}

/**
 * Takes the subscriptions a scan reads, a batch at a time, as soon as they are read; resolves once the report can take
 * the next batch, so that a reader slower than the store holds the scan back instead of piling output up in memory.
 */
export type InspectedBatch = (subscriptions: readonly SubscriptionState[]) => Promise<void>;

/** What `inspect` reports about the replication of the server it reads (PostgreSQL). */
export interface ReplicationInspection {
  /** Lines to print; those that need attention start with `!`. */
  readonly lines: readonly string[];
  /** A set-up in which a failover can lose grants or writes, or every grant fails: `inspect` exits 1. */
  readonly needsAttention: boolean;
  /** The replicas (Redis) or standbys (PostgreSQL) that could be promoted, by how commits wait for them. */
  readonly replicas: { readonly synchronous: number; readonly asynchronous: number };
}

/**
 * A store the operator commands work on: a Redis server or Cluster, or a PostgreSQL database. Every change goes
 * through the storage's or the strategy's own method, never through a statement or script of the operator's own.
 */
export interface OperatorBackend {
  /** The URL connected to, its password replaced by `***`. */
  readonly target: string;
  /** Reads the subscriptions `ids`, in that order, one each, also those with nothing stored. Changes nothing. */
  inspect(ids: readonly string[], progress: ScanProgress): Promise<Inspection>;
  /**
   * Reads every subscription the store holds and hands them to `report` a bounded batch at a time, as it reads them:
   * what it holds at once does not grow with the store. Changes nothing.
   */
  inspectEverySubscription(progress: ScanProgress, report: InspectedBatch): Promise<InspectionCoverage>;
  /**
   * The partitioned subscriptions among `names` (those a membership records a partition count for), or, with
   * `undefined`, every one the store records, with their live members. Changes nothing.
   */
  inspectMemberships?(names: readonly string[] | undefined, progress: ScanProgress): Promise<RecordedMembership[]>;
  /** The replication of the server read, where the store can tell (Redis's replicas, PostgreSQL's standbys). Changes nothing. */
  inspectReplication?(): Promise<ReplicationInspection>;
  /** The lease strategy's own `raiseFencingTokenAbove(id, version)`. */
  raiseFencingTokenAbove(id: string, version: bigint): Promise<void>;
  /**
   * The checkpoint storage's own `advanceWriteVersion(id, version)`. A refusal (a newer version is stored) rejects
   * with the storage's `CheckpointWriteConditionNotFulfilledError` as it is: it says something about the store, not the connection.
   */
  advanceWriteVersion(id: string, version: bigint): Promise<void>;
  /** The checkpoint storage's own `deleteCheckpointKeepingVersion(id)`: the checkpoint goes, the version stays as the fence. */
  deleteCheckpointKeepingVersion(id: string): Promise<void>;
  /** The checkpoint storage's own `delete(id)`: checkpoint and version together. */
  deleteCheckpoint(id: string): Promise<void>;
  /** What the store names this subscription's records, for the dry runs: keys on Redis, a table row on PostgreSQL. */
  describeRecords(id: string): string;
  close(): Promise<void>;
}
