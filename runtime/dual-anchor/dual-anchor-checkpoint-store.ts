import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import type { DualAnchorCheckpoint, DualAnchorToken } from './dual-anchor-checkpoint.js';

/**
 * Keeps two anchors per stream, each with its own writer: `lastSeen` (a server-certified position) and
 * `lastProcessed` (the last event settled for good), plus a heartbeat confirmation. Every partial write upserts and
 * touches only its own fields in one atomic step, so concurrent writers of the two anchors never undo each other.
 *
 * Every write takes an optional last `condition` (`any()` when left out), evaluated atomically with that write against
 * one stored write version per stream, with the semantics of `CheckpointStorage.save`: a refused write rejects with
 * `CheckpointWriteConditionNotFulfilledError` and changes nothing; a store that cannot evaluate conditions answers
 * `evaluatesWriteConditions()` false and refuses every condition but `any()` with `UnsupportedWriteConditionError`.
 * Bad input rejects with a `TypeError` before anything is written.
 */
export interface DualAnchorCheckpointStore {
  /** Upserts the whole record keyed by `checkpoint.streamName`; a stored write version is kept unless `condition` sets one. */
  save(checkpoint: DualAnchorCheckpoint, condition?: CheckpointWriteCondition): Promise<void>;

  /** The stored record, or `undefined` when nothing is stored for `streamName`. */
  findByStreamName(streamName: string): Promise<DualAnchorCheckpoint | undefined>;

  /** Removes the record and its write version; a no-op when nothing is stored. */
  delete(streamName: string): Promise<void>;

  /**
   * Upserts the seen pair (`lastSeenToken`, `lastSeenTimestamp`) and, when given, `lastHeartbeatTimestamp`, all in one
   * atomic write; nothing else changes.
   */
  saveSeen(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void>;

  /**
   * Upserts the processed pair (`lastProcessedToken`, `lastProcessedTimestamp`) and, when given,
   * `lastHeartbeatTimestamp`, all in one atomic write; nothing else changes.
   */
  saveProcessed(
    streamName: string,
    token: DualAnchorToken,
    timestamp: Date,
    heartbeatTimestamp?: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void>;

  /** Upserts `lastHeartbeatTimestamp` alone: the position was re-certified unchanged. */
  saveHeartbeat(streamName: string, heartbeatTimestamp: Date, condition?: CheckpointWriteCondition): Promise<void>;

  /**
   * History-lost recovery, one atomic upsert. Installs `freshSeenToken` with `timestamp` as the seen pair and the
   * heartbeat (a `null` fresh token clears all three: a heartbeat without a recoverable position would be a lie), and
   * clears the processed pair only while the stored `lastProcessedToken` still equals `expectedDeadProcessed`,
   * compared as JSON values with object key order ignored (`null` matches only a missing processed token). A processed
   * anchor re-acquired in the meantime survives. Resolves the same either way.
   */
  resetAfterHistoryLost(
    streamName: string,
    freshSeenToken: DualAnchorToken | null,
    expectedDeadProcessed: DualAnchorToken | null,
    timestamp: Date,
    condition?: CheckpointWriteCondition,
  ): Promise<void>;

  /** Whether this store evaluates `notOlderThan` and `ifAbsent` atomically with each write. */
  evaluatesWriteConditions(): boolean;
}
