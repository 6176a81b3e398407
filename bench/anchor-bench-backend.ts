import type { DualAnchorCheckpointStore, DualAnchorToken } from '../runtime/index.js';

/**
 * One backend `bench:anchors` measures: a dual-anchor store and, through the same client, the plainest write the
 * backend has of one field of a given size, the baseline a targeted anchor write is held to. Redis today; a
 * PostgreSQL backend (a single-column upsert as its plain write) is one more implementation of this interface.
 */
export interface AnchorBenchBackend {
  /** Server and client, e.g. `Redis 7.0.15, one ioredis client`. */
  readonly description: string;
  readonly store: DualAnchorCheckpointStore;
  /** What the plain write is, e.g. `HSET of one field`. */
  readonly plainWriteName: string;
  /**
   * The bytes of field names and values a `saveProcessed(streamName, token, timestamp, heartbeatTimestamp)` stores,
   * measured by writing it once, so the plain write can carry as many.
   */
  anchorWriteBytes(token: DualAnchorToken, timestamp: Date, heartbeatTimestamp: Date): Promise<number>;
  /** Writes `value` as one field of the record `key`: no script, no validation, nothing but the command. */
  plainWrite(key: string, value: string): Promise<unknown>;
  /** Stops what the backend started. */
  close(): Promise<void>;
}
