import type { DualAnchorCheckpointStore, DualAnchorToken } from '../runtime/dual-anchor-entry.js';

/**
 * One backend `bench:anchors` measures: a dual-anchor store and, through the same client, the plainest write the
 * backend has of one field of a given size, the baseline a targeted anchor write is held to: an `HSET` of one field on
 * Redis, a single-column upsert on PostgreSQL.
 */
export interface AnchorBenchBackend {
  /** Server and client, e.g. `Redis 7.0.15, one ioredis client`. */
  readonly description: string;
  readonly store: DualAnchorCheckpointStore;
  /** What the plain write is, e.g. `HSET of one field`. */
  readonly plainWriteName: string;
  /** Writes in flight through the one client; what the client can carry (a pool's size). */
  readonly inFlight: number;
  /** Writes a side measures in each pair, unless `BENCH_OPERATIONS` says otherwise. */
  readonly operations: number;
  /**
   * How many bytes the plain write's one value carries to match a `saveProcessed(streamName, token, timestamp,
   * heartbeatTimestamp)`, measured by writing it once: what that write stores or sends beyond the key.
   */
  plainValueBytes(token: DualAnchorToken, timestamp: Date, heartbeatTimestamp: Date): Promise<number>;
  /** Writes `value` as one field of the record `key`: no script, no validation, nothing but the command. */
  plainWrite(key: string, value: string): Promise<unknown>;
  /** Stops what the backend started. */
  close(): Promise<void>;
}
