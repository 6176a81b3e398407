import { isStoredJsonText, storedTimestampMillis, type StoredDualAnchorFields } from '../dual-anchor/index.js';
import { timestampText } from './postgres-timestamp-text.js';

/** One field of a dual-anchor record and the column that holds it. */
export interface DualAnchorColumn {
  readonly field: keyof StoredDualAnchorFields;
  readonly column: string;
  /** A `timestamptz` column: written as ISO 8601 UTC text, read back as epoch milliseconds (ADR 0904). */
  readonly timestamp: boolean;
}

/** Every column of the record but the key and the version, in the one order statements and values use. */
export const dualAnchorColumns: readonly DualAnchorColumn[] = [
  { field: 'instanceId', column: 'instance_id', timestamp: false },
  { field: 'lastSeenToken', column: 'last_seen_token', timestamp: false },
  { field: 'lastSeenTimestamp', column: 'last_seen_timestamp', timestamp: true },
  { field: 'lastProcessedToken', column: 'last_processed_token', timestamp: false },
  { field: 'lastProcessedTimestamp', column: 'last_processed_timestamp', timestamp: true },
  { field: 'lastHeartbeatTimestamp', column: 'last_heartbeat_timestamp', timestamp: true },
  { field: 'metadata', column: 'metadata', timestamp: false },
];

/**
 * The statement values of a write: `streamName`, then the value of each column `fields` sets, in column order;
 * `columns` has bit i set for `dualAnchorColumns[i]`, which picks the statement. Tokens and metadata are canonical
 * JSON, which escapes every control character, so no value holds a NUL that PostgreSQL text would refuse.
 */
export function columnValues(
  streamName: string,
  fields: Partial<StoredDualAnchorFields>,
): { readonly columns: number; readonly values: unknown[] } {
  const values: unknown[] = [streamName];
  let columns = 0;
  // An indexed loop: this runs on every write, and a destructuring iterator costs more than the rest of it.
  for (let index = 0; index < dualAnchorColumns.length; index += 1) {
    const { field, timestamp } = dualAnchorColumns[index] as DualAnchorColumn;
    const value = fields[field];
    if (value !== undefined) {
      columns |= 1 << index;
      values.push(timestamp && typeof value === 'number' ? timestampText(value) : value);
    }
  }
  return { columns, values };
}

/**
 * The stored fields of a row the find statement returned (timestamps as epoch-millisecond text).
 * @throws Error naming the stream, the column and the value when a column holds what this store never writes.
 */
export function storedFieldsOfRow(
  row: Readonly<Record<string, unknown>>,
  streamName: string,
  tableDisplay: string,
): StoredDualAnchorFields {
  const fields: Partial<Record<keyof StoredDualAnchorFields, string | number | null>> = {};
  for (const { field, column, timestamp } of dualAnchorColumns) {
    const value = row[column];
    const stored = storedValue(field, value, timestamp);
    if (stored === undefined) {
      throw new Error(
        `The dual-anchor record of stream ${JSON.stringify(streamName)} in ${tableDisplay} holds ${shown(value, timestamp)} in column ` +
          `${column}, not ${expected(field, timestamp)}. Something other than PostgresDualAnchorCheckpointStore wrote it; ` +
          'fix the column with UPDATE or delete the row (the stream then resumes from its start policy).',
      );
    }
    fields[field] = stored;
  }
  return fields as StoredDualAnchorFields;
}

/** `value` as the stored field, or `undefined` when it is something this store never writes. */
function storedValue(
  field: keyof StoredDualAnchorFields,
  value: unknown,
  timestamp: boolean,
): string | number | null | undefined {
  if (value === null) {
    return field === 'metadata' ? undefined : null;
  }
  if (typeof value !== 'string') {
    return undefined;
  }
  if (timestamp) {
    return storedTimestampMillis(value);
  }
  if (field === 'instanceId') {
    return value === '' ? undefined : value;
  }
  return isStoredJsonText(value, field === 'metadata') ? value : undefined;
}

function expected(field: keyof StoredDualAnchorFields, timestamp: boolean): string {
  if (timestamp) {
    return 'a timestamp in years 1 to 9999, or NULL';
  }
  switch (field) {
    case 'instanceId':
      return 'a non-empty instance id, or NULL';
    case 'metadata':
      return 'the text of a JSON object';
    default:
      return 'the text of a JSON value, or NULL';
  }
}

/** A column's value for a message; a timestamp arrives as the epoch-millisecond text the find statement computes. */
function shown(value: unknown, timestamp: boolean): string {
  if (typeof value !== 'string') {
    return value === null ? 'NULL' : typeof value;
  }
  if (timestamp) {
    return `${value} (epoch milliseconds)`;
  }
  return JSON.stringify(value.length > 64 ? `${value.slice(0, 64)}…` : value);
}
