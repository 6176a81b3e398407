import { quoteText } from '../describe-value.js';
import { isStoredJsonText, storedTimestampMillis, type StoredDualAnchorFields } from '../dual-anchor/index.js';

/** The hash field holding a stream's write version, a decimal string; absent until a `notOlderThan` write stores one. */
export const writeVersionField = 'writeVersion';

/**
 * `fields` as `HSET` arguments, in the hash layout of ADR 0901: `instanceId`; `lastSeen` and `lastProcessed`, each
 * anchor's pair in one field as the JSON array `[<epoch ms>,<canonical token>]`; `lastHeartbeatTimestamp` in epoch
 * ms; `metadata` as canonical JSON. `''` is `null` (a pair's `''` is both halves null): no value this store writes is
 * empty, so one `HSET` can write a null over a value. Every write plan sets a pair's two halves together.
 */
export function hashArguments(fields: Partial<StoredDualAnchorFields>): string[] {
  const args: string[] = [];
  if (fields.instanceId !== undefined) {
    args.push('instanceId', fields.instanceId ?? '');
  }
  if (fields.lastSeenToken !== undefined) {
    args.push('lastSeen', pairText(fields.lastSeenTimestamp, fields.lastSeenToken));
  }
  if (fields.lastProcessedToken !== undefined) {
    args.push('lastProcessed', pairText(fields.lastProcessedTimestamp, fields.lastProcessedToken));
  }
  if (fields.lastHeartbeatTimestamp !== undefined) {
    args.push('lastHeartbeatTimestamp', millisText(fields.lastHeartbeatTimestamp));
  }
  if (fields.metadata !== undefined) {
    args.push('metadata', fields.metadata);
  }
  return args;
}

/** An anchor pair's field value: `''` when both halves are null, else `[<ms or null>,<token or null>]`. */
export function pairText(timestamp: number | null | undefined, token: string | null): string {
  if (timestamp === undefined) {
    throw new Error('A dual-anchor write plan set a token without its timestamp; a pair is always written whole.');
  }
  return timestamp === null && token === null ? '' : `[${timestamp ?? 'null'},${token ?? 'null'}]`;
}

/** A timestamp's field value: epoch milliseconds, or `''` for null. */
export function millisText(timestamp: number | null): string {
  return timestamp === null ? '' : String(timestamp);
}

/**
 * The stored fields of one record's hash (`HGETALL`); a missing field or `''` is `null`, a missing `metadata` is `{}`.
 * @throws Error naming the key, the field and the value when a field holds what this store never writes.
 */
export function storedFieldsOfHash(key: string, hash: Readonly<Record<string, string>>): StoredDualAnchorFields {
  const [lastSeenTimestamp, lastSeenToken] = pairOf(key, 'lastSeen', hash['lastSeen']);
  const [lastProcessedTimestamp, lastProcessedToken] = pairOf(key, 'lastProcessed', hash['lastProcessed']);
  const heartbeat = hash['lastHeartbeatTimestamp'];
  const metadata = hash['metadata'];
  if (metadata !== undefined && metadata !== '' && !isStoredJsonText(metadata, true)) {
    throw corrupt(key, 'metadata', metadata, 'a JSON object');
  }
  return {
    instanceId: hash['instanceId'] || null,
    lastSeenToken,
    lastSeenTimestamp,
    lastProcessedToken,
    lastProcessedTimestamp,
    lastHeartbeatTimestamp: heartbeat === undefined || heartbeat === '' ? null : heartbeatOf(key, heartbeat),
    metadata: metadata || '{}',
  };
}

/**
 * The error for an anchor pair field holding what this store never writes, as a read reports it: for a script that
 * found such a field before writing.
 */
export function corruptPairError(key: string, field: string, value: string): Error {
  return corrupt(key, field, value, 'an anchor pair [<epoch ms or null>,<JSON token or null>]');
}

function pairOf(key: string, field: string, value: string | undefined): [number | null, string | null] {
  if (value === undefined || value === '') {
    return [null, null];
  }
  const comma = value.indexOf(',');
  if (!value.startsWith('[') || !value.endsWith(']') || comma === -1) {
    throw corruptPairError(key, field, value);
  }
  const millis = value.slice(1, comma);
  const token = value.slice(comma + 1, -1);
  if (token === '' || !isStoredJsonText(token, false)) {
    throw corruptPairError(key, field, value);
  }
  const timestamp = millis === 'null' ? null : storedTimestampMillis(millis);
  if (timestamp === undefined) {
    throw corruptPairError(key, field, value);
  }
  return [timestamp, token === 'null' ? null : token];
}

function heartbeatOf(key: string, value: string): number {
  const timestamp = storedTimestampMillis(value);
  if (timestamp === undefined) {
    throw corrupt(key, 'lastHeartbeatTimestamp', value, 'epoch milliseconds (years 1 to 9999) as a decimal integer');
  }
  return timestamp;
}

function corrupt(key: string, field: string, value: string, expected: string): Error {
  return new Error(
    `Dual-anchor record ${quoteText(key)} holds ${JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value)} in field ` +
      `${JSON.stringify(field)}, not ${expected}. Something other than RedisDualAnchorCheckpointStore wrote it; fix the field with HSET or ` +
      'delete the record (the stream then resumes from its start policy).',
  );
}
