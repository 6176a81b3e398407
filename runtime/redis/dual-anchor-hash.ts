import { earliestTimestampMillis, latestTimestampMillis, type StoredDualAnchorFields } from '../dual-anchor/index.js';

/** The hash field holding a stream's write version, a decimal string; absent until a `notOlderThan` write stores one. */
export const writeVersionField = 'writeVersion';

const timestampFields = ['lastSeenTimestamp', 'lastProcessedTimestamp', 'lastHeartbeatTimestamp'] as const;
const jsonFields = ['lastSeenToken', 'lastProcessedToken'] as const;
const epochMillis = /^-?\d{1,15}$/;

/**
 * `fields` as `HSET` arguments: field name, then value, with `''` for `null`. A stored token or metadata text is never
 * empty (canonical JSON), nor is an instance id, so `''` is unambiguous, and one `HSET` can write a null over a value.
 */
export function hashArguments(fields: Partial<StoredDualAnchorFields>): string[] {
  const args: string[] = [];
  for (const [field, value] of Object.entries(fields) as [keyof StoredDualAnchorFields, string | number | null][]) {
    args.push(field, value === null ? '' : String(value));
  }
  return args;
}

/**
 * The stored fields of one record's hash (`HGETALL`); a missing field or `''` is `null`, a missing `metadata` is `{}`.
 * @throws Error naming the key, the field and the value when a field holds what this store never writes.
 */
export function storedFieldsOfHash(key: string, hash: Readonly<Record<string, string>>): StoredDualAnchorFields {
  const text = (field: string): string | null => {
    const value = hash[field];
    return value === undefined || value === '' ? null : value;
  };
  for (const field of timestampFields) {
    const value = text(field);
    if (value !== null && !(epochMillis.test(value) && inTimestampRange(Number(value)))) {
      throw corrupt(key, field, value, 'epoch milliseconds (years 1 to 9999) as a decimal integer');
    }
  }
  for (const field of [...jsonFields, 'metadata'] as const) {
    const value = text(field);
    if (value !== null && !parsesAsJson(value, field === 'metadata')) {
      throw corrupt(key, field, value, field === 'metadata' ? 'a JSON object' : 'JSON text');
    }
  }
  const millis = (field: (typeof timestampFields)[number]): number | null => {
    const value = text(field);
    return value === null ? null : Number(value);
  };
  return {
    instanceId: text('instanceId'),
    lastSeenToken: text('lastSeenToken'),
    lastSeenTimestamp: millis('lastSeenTimestamp'),
    lastProcessedToken: text('lastProcessedToken'),
    lastProcessedTimestamp: millis('lastProcessedTimestamp'),
    lastHeartbeatTimestamp: millis('lastHeartbeatTimestamp'),
    metadata: text('metadata') ?? '{}',
  };
}

function inTimestampRange(millis: number): boolean {
  return millis >= earliestTimestampMillis && millis <= latestTimestampMillis;
}

function parsesAsJson(text: string, mustBeObject: boolean): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return !mustBeObject || (typeof value === 'object' && value !== null && !Array.isArray(value));
  } catch {
    return false;
  }
}

function corrupt(key: string, field: string, value: string, expected: string): Error {
  return new Error(
    `Dual-anchor record ${JSON.stringify(key)} holds ${JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value)} in field ` +
      `${JSON.stringify(field)}, not ${expected}. Something other than RedisDualAnchorCheckpointStore wrote it; fix the field with HSET or ` +
      'delete the record (the stream then resumes from its start policy).',
  );
}
