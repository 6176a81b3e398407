import type { ScanProgress } from './scan-progress.js';
import type { SubscriptionState } from './subscription-health.js';

/** What one inspection read, besides the subscriptions. */
export interface Inspection {
  readonly subscriptions: readonly SubscriptionState[];
  /** How much was read, for the summary line: e.g. `200,004 keys scanned on 3 masters`, `9 rows read from …`. */
  readonly coverage: string;
}

/**
 * A store the operator commands work on: a Redis server or Cluster, or a PostgreSQL database. Every change goes
 * through the storage's or the strategy's own method, never through a statement or script of the operator's own.
 */
export interface OperatorBackend {
  /** The URL connected to, its password replaced by `***`. */
  readonly target: string;
  /** Reads `ids`, or every subscription the store holds when `ids` is undefined. Changes nothing. */
  inspect(ids: readonly string[] | undefined, progress: ScanProgress): Promise<Inspection>;
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
