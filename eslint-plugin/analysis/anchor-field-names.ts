import { DUAL_ANCHOR_RECORD_FIELD_NAMES } from '../../vocabulary/index.js';

// Names of a dual-anchor record's fields as stores spell them: the record's own (`lastProcessedToken`), SQL columns
// (`last_processed_token`, `last_processed_ts` in the reference's example), hash fields and document keys. Compared
// lower-case without `_` and `-`, so every spelling of one field matches.

const RECORD_FIELDS: ReadonlySet<string> = new Set(
  DUAL_ANCHOR_RECORD_FIELD_NAMES.filter((name) => name !== 'streamName').map(normalized),
);

/** Names that identify or version a record rather than hold its state: reading one back is not copying the record. */
const KEY_OR_VERSION: ReadonlySet<string> = new Set([
  'id',
  'key',
  'version',
  'etag',
  'rev',
  'revision',
  'cas',
  'v',
  'rowcount',
  'length',
  'count',
]);

/** Names of the version a write judges itself (optimistic concurrency): `version`, `_version`, `__v`, `revision`. */
const VERSIONS: ReadonlySet<string> = new Set(['version', 'v', 'revision', 'rev', 'etag', 'cas']);
/** Option names that make a write judge an expected version: `expectedVersion`, `expectedRevision`, `ifMatch`. */
const EXPECTED_VERSIONS: ReadonlySet<string> = new Set([
  'expectedversion',
  'expectedrevision',
  'expectedetag',
  'ifmatch',
]);

/** Whether `name` is a record's version, as a filter on it makes a compare-and-set: `version`, `_version`, `__v`. */
export function namesVersion(name: string): boolean {
  return VERSIONS.has(normalized(name));
}

/** Whether `name` is an option that makes a write judge an expected version: `expectedVersion`, `ifMatch`. */
export function namesExpectedVersion(name: string): boolean {
  return EXPECTED_VERSIONS.has(normalized(name));
}

/** Whether `name` is a processed-anchor field: `lastProcessedToken`, `last_processed_token`, `processed`, … */
export function namesProcessedAnchor(name: string): boolean {
  return normalized(name).includes('processed');
}

/** Whether `name` is the heartbeat confirmation: `lastHeartbeatTimestamp`, `last_heartbeat_ts`, `heartbeat`, … */
export function namesHeartbeat(name: string): boolean {
  return normalized(name).includes('heartbeat');
}

/** Whether `name` is an anchor (seen or processed): `lastSeenToken`, `last_processed_ts`, … */
export function namesAnchor(name: string): boolean {
  const plain = normalized(name);
  return plain.includes('seen') || plain.includes('processed');
}

/** Whether `name` identifies or versions a record (`id`, `streamId`, `version`, `_id`, `__v`, `rowCount`). */
export function namesKeyOrVersion(name: string): boolean {
  const plain = normalized(name);
  return KEY_OR_VERSION.has(plain) || (plain.endsWith('id') && !RECORD_FIELDS.has(plain));
}

function normalized(name: string): string {
  return name.replace(/[-_]/gu, '').toLowerCase();
}
