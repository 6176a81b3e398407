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

/** Each field's index in {@link dualAnchorColumns}. */
const columnIndexOf: ReadonlyMap<string, number> = new Map(dualAnchorColumns.map(({ field }, index) => [field, index]));

/**
 * The statement values of a write: `streamName`, then the value of each field `fields` sets, in the order `fields`
 * lists them. `columns` names those columns in the same order, one octal digit each (the column's index in
 * {@link dualAnchorColumns} plus one, the first column in the lowest digit), which picks the statement. Tokens and
 * metadata are canonical JSON, which escapes every control character, so no value holds a NUL that PostgreSQL text
 * would refuse.
 */
export function columnValues(
  streamName: string,
  fields: Partial<StoredDualAnchorFields>,
): { readonly columns: number; readonly values: unknown[] } {
  const values: unknown[] = [streamName];
  let columns = 0;
  let digit = 1;
  // for…in over the plan's own few fields, not a lookup of all seven: this runs on every write, and a lookup by a
  // varying key into plans of several shapes cost more than the rest of the function.
  for (const field in fields) {
    const index = columnIndexOf.get(field);
    const value = fields[field as keyof StoredDualAnchorFields];
    if (index !== undefined && value !== undefined) {
      columns += (index + 1) * digit;
      digit *= 8;
      values.push(
        (dualAnchorColumns[index] as DualAnchorColumn).timestamp && typeof value === 'number'
          ? timestampText(value)
          : value,
      );
    }
  }
  return { columns, values };
}

/** A timestamp field's statement value: its ISO 8601 UTC text, or `null`. */
export function nullableTimestampText(millis: number | null): string | null {
  return millis === null ? null : timestampText(millis);
}

/** The columns a `columns` code of {@link columnValues} names, in its order. */
export function columnsOf(columns: number): DualAnchorColumn[] {
  const named: DualAnchorColumn[] = [];
  for (let rest = columns; rest > 0; rest = Math.floor(rest / 8)) {
    named.push(dualAnchorColumns[(rest % 8) - 1] as DualAnchorColumn);
  }
  return named;
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
