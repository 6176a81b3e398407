import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { describeValue } from '../describe-value.js';
import { canonicalJson, isPlainObject, parseJson } from './canonical-json.js';
import type { DualAnchorCheckpoint } from './dual-anchor-checkpoint.js';
import type { JsonObject } from './json-value.js';
import { timestampMillis } from './timestamp.js';
import { assertStreamName, assertWellFormedId } from './well-formed-id.js';
import { writeConditionSnapshot } from './write-condition-snapshot.js';

/**
 * A record's fields as a store keeps them: tokens and metadata as canonical JSON text, timestamps as epoch
 * milliseconds, `null` for an absent value. Two tokens are the same JSON value exactly when their texts are equal.
 */
export interface StoredDualAnchorFields {
  readonly instanceId: string | null;
  readonly lastSeenToken: string | null;
  readonly lastSeenTimestamp: number | null;
  readonly lastProcessedToken: string | null;
  readonly lastProcessedTimestamp: number | null;
  readonly lastHeartbeatTimestamp: number | null;
  readonly metadata: string;
}

/** The fields of a record no write has touched yet: what a partial write upserts onto. */
export const emptyStoredDualAnchorFields: StoredDualAnchorFields = Object.freeze({
  instanceId: null,
  lastSeenToken: null,
  lastSeenTimestamp: null,
  lastProcessedToken: null,
  lastProcessedTimestamp: null,
  lastHeartbeatTimestamp: null,
  metadata: '{}',
});

/** One validated upsert: set exactly `fields` (every field for `save`, its own pair for a partial write) when `condition` holds. */
export interface DualAnchorFieldWrite {
  readonly streamName: string;
  readonly fields: Partial<StoredDualAnchorFields>;
  readonly condition: CheckpointWriteCondition;
}

/** One validated `resetAfterHistoryLost`: always set `fields`; clear the processed pair only while the guard holds. */
export interface DualAnchorResetWrite {
  readonly streamName: string;
  /** The seen pair and the heartbeat: the fresh token and its timestamp, or all three `null`. */
  readonly fields: Pick<StoredDualAnchorFields, 'lastSeenToken' | 'lastSeenTimestamp' | 'lastHeartbeatTimestamp'>;
  /** The canonical text the stored `lastProcessedToken` must equal for the processed pair to be cleared; `null` matches a missing one. */
  readonly expectedDeadProcessed: string | null;
  readonly condition: CheckpointWriteCondition;
}

/**
 * Validates a dual-anchor write's arguments in the order they are declared and turns them into the stored form, before
 * anything is sent: every built-in store starts each write here, and a store of your own can too. Each method throws
 * the `TypeError` the store's method rejects with.
 */
export const DualAnchorWritePlan = Object.freeze({
  /** The whole record of `save(checkpoint, condition)`. */
  save(checkpoint: unknown, condition: unknown): DualAnchorFieldWrite {
    const { streamName, fields } = encodeDualAnchorCheckpoint(checkpoint);
    return { streamName, fields, condition: writeConditionSnapshot(condition) };
  },

  /** The seen pair, and the heartbeat when one is given. */
  saveSeen(
    streamName: unknown,
    token: unknown,
    timestamp: unknown,
    heartbeatTimestamp: unknown,
    condition: unknown,
  ): DualAnchorFieldWrite {
    return anchorWrite('saveSeen', streamName, token, timestamp, heartbeatTimestamp, condition);
  },

  /** The processed pair, and the heartbeat when one is given. */
  saveProcessed(
    streamName: unknown,
    token: unknown,
    timestamp: unknown,
    heartbeatTimestamp: unknown,
    condition: unknown,
  ): DualAnchorFieldWrite {
    return anchorWrite('saveProcessed', streamName, token, timestamp, heartbeatTimestamp, condition);
  },

  /** The heartbeat alone. */
  saveHeartbeat(streamName: unknown, heartbeatTimestamp: unknown, condition: unknown): DualAnchorFieldWrite {
    assertStreamName(streamName);
    const fields = { lastHeartbeatTimestamp: timestampMillis(heartbeatTimestamp, 'heartbeatTimestamp') };
    return { streamName, fields, condition: writeConditionSnapshot(condition) };
  },

  /** The seen pair and heartbeat to install, and the guard on the processed pair. */
  resetAfterHistoryLost(
    streamName: unknown,
    freshSeenToken: unknown,
    expectedDeadProcessed: unknown,
    timestamp: unknown,
    condition: unknown,
  ): DualAnchorResetWrite {
    assertStreamName(streamName);
    const fresh = nullableToken(freshSeenToken, 'freshSeenToken');
    const expected = nullableToken(expectedDeadProcessed, 'expectedDeadProcessed');
    const millis = timestampMillis(timestamp, 'timestamp');
    const at = fresh === null ? null : millis;
    return {
      streamName,
      fields: { lastSeenToken: fresh, lastSeenTimestamp: at, lastHeartbeatTimestamp: at },
      expectedDeadProcessed: expected,
      condition: writeConditionSnapshot(condition),
    };
  },
});

/**
 * Validates a whole record and turns it into its stored form.
 * @throws TypeError for a record that is not a `DualAnchorCheckpoint` of JSON tokens, valid dates and plain metadata.
 */
export function encodeDualAnchorCheckpoint(checkpoint: unknown): {
  readonly streamName: string;
  readonly fields: StoredDualAnchorFields;
} {
  if (typeof checkpoint !== 'object' || checkpoint === null) {
    throw new TypeError(`checkpoint must be a DualAnchorCheckpoint object, got ${describeValue(checkpoint)}.`);
  }
  const record = checkpoint as Partial<Record<keyof DualAnchorCheckpoint, unknown>>;
  const streamName = record.streamName;
  assertWellFormedId(streamName, 'checkpoint.streamName');
  const fields: StoredDualAnchorFields = {
    instanceId: instanceIdField(record.instanceId),
    lastSeenToken: nullableToken(record.lastSeenToken, 'checkpoint.lastSeenToken'),
    lastSeenTimestamp: nullableTimestamp(record.lastSeenTimestamp, 'checkpoint.lastSeenTimestamp'),
    lastProcessedToken: nullableToken(record.lastProcessedToken, 'checkpoint.lastProcessedToken'),
    lastProcessedTimestamp: nullableTimestamp(record.lastProcessedTimestamp, 'checkpoint.lastProcessedTimestamp'),
    lastHeartbeatTimestamp: nullableTimestamp(record.lastHeartbeatTimestamp, 'checkpoint.lastHeartbeatTimestamp'),
    metadata: metadataField(record.metadata),
  };
  return { streamName, fields };
}

/** `stored` after `reset`: the processed pair is cleared only while its token's text equals the guard's (both may be `null`). */
export function storedFieldsAfterReset(
  stored: StoredDualAnchorFields,
  reset: DualAnchorResetWrite,
): StoredDualAnchorFields {
  const dead = stored.lastProcessedToken === reset.expectedDeadProcessed;
  return {
    ...stored,
    ...reset.fields,
    ...(dead ? { lastProcessedToken: null, lastProcessedTimestamp: null } : {}),
  };
}

/** The record a store hands out for `stored`: fresh values the caller may keep or change without touching the store. */
export function decodeDualAnchorCheckpoint(streamName: string, stored: StoredDualAnchorFields): DualAnchorCheckpoint {
  return {
    streamName,
    instanceId: stored.instanceId,
    lastSeenToken: stored.lastSeenToken === null ? null : parseJson(stored.lastSeenToken),
    lastSeenTimestamp: dateOf(stored.lastSeenTimestamp),
    lastProcessedToken: stored.lastProcessedToken === null ? null : parseJson(stored.lastProcessedToken),
    lastProcessedTimestamp: dateOf(stored.lastProcessedTimestamp),
    lastHeartbeatTimestamp: dateOf(stored.lastHeartbeatTimestamp),
    metadata: parseJson(stored.metadata) as JsonObject,
  };
}

/** An anchor write: its pair, and the heartbeat when one is given, in one object built without spreads (a hot path). */
function anchorWrite(
  operation: 'saveSeen' | 'saveProcessed',
  streamName: unknown,
  token: unknown,
  timestamp: unknown,
  heartbeatTimestamp: unknown,
  condition: unknown,
): DualAnchorFieldWrite {
  assertStreamName(streamName);
  const tokenText = anchorToken(token, operation);
  const millis = timestampMillis(timestamp, 'timestamp');
  const heartbeat = optionalHeartbeat(heartbeatTimestamp);
  const fields: { -readonly [Field in keyof StoredDualAnchorFields]?: StoredDualAnchorFields[Field] } =
    operation === 'saveSeen'
      ? { lastSeenToken: tokenText, lastSeenTimestamp: millis }
      : { lastProcessedToken: tokenText, lastProcessedTimestamp: millis };
  if (heartbeat !== undefined) {
    fields.lastHeartbeatTimestamp = heartbeat;
  }
  return { streamName, fields, condition: writeConditionSnapshot(condition) };
}

function dateOf(millis: number | null): Date | null {
  return millis === null ? null : new Date(millis);
}

function anchorToken(token: unknown, operation: string): string {
  if (token === null) {
    throw new TypeError(
      `${operation} needs a token, got null: null means "no anchor". To clear anchors, use resetAfterHistoryLost or save the whole record.`,
    );
  }
  return canonicalJson(token, 'token');
}

function nullableToken(token: unknown, what: string): string | null {
  if (token === undefined) {
    throw new TypeError(`${what} must be a JSON value or null, got undefined. Pass null for "no token".`);
  }
  return token === null ? null : canonicalJson(token, what);
}

function nullableTimestamp(timestamp: unknown, what: string): number | null {
  return timestamp === null ? null : timestampMillis(timestamp, what);
}

function optionalHeartbeat(heartbeatTimestamp: unknown): number | undefined {
  if (heartbeatTimestamp === undefined) {
    return undefined;
  }
  if (heartbeatTimestamp === null) {
    throw new TypeError(
      'heartbeatTimestamp must be a Date or left out (undefined), got null. Leave it out to keep the stored heartbeat.',
    );
  }
  return timestampMillis(heartbeatTimestamp, 'heartbeatTimestamp');
}

function instanceIdField(instanceId: unknown): string | null {
  if (instanceId === undefined || instanceId === null) {
    return null;
  }
  assertWellFormedId(instanceId, 'checkpoint.instanceId (or null)');
  return instanceId;
}

function metadataField(metadata: unknown): string {
  if (!isPlainObject(metadata)) {
    throw new TypeError(
      `checkpoint.metadata must be a plain object of JSON values, got ${describeValue(metadata)}. Pass {} for none.`,
    );
  }
  return canonicalJson(metadata, 'checkpoint.metadata');
}
