import type { JsonValue } from './json-value.js';

/**
 * A stream's own resume token as the server handed it out: any JSON value but `null`, which means "no anchor". Stored
 * as canonical JSON, so it reads back as an equal JSON value with object keys in sorted order (ADR 0902).
 */
export type DualAnchorToken = Exclude<JsonValue, null>;

/**
 * The dual-anchor record of one stream. Every token and timestamp may be `null`, in any combination: a brand-new
 * stream has neither anchor, an idle stream certified only by the heartbeat has a seen anchor and no processed one.
 * Timestamps keep millisecond precision (what a `Date` holds); `metadata` must be a plain object of JSON values.
 */
export interface DualAnchorCheckpoint {
  /** The key the record is stored under: a non-empty, well-formed UTF-16 string. */
  readonly streamName: string;
  /** The instance that wrote the record with `save`; `null` (or left out) for none. Partial writes leave it alone. */
  readonly instanceId?: string | null;
  /** `lastSeen`: the last position the server certified (a heartbeat probe writes it). */
  readonly lastSeenToken: DualAnchorToken | null;
  readonly lastSeenTimestamp: Date | null;
  /** `lastProcessed`: the last event settled for good (the processing policy writes it). */
  readonly lastProcessedToken: DualAnchorToken | null;
  /** That event's own time, as the stream reported it. */
  readonly lastProcessedTimestamp: Date | null;
  /** The last time a recoverable position was confirmed. */
  readonly lastHeartbeatTimestamp: Date | null;
  readonly metadata: Record<string, unknown>;
}
