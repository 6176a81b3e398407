import { derivedIdentifier, type QualifiedTableName } from './postgres-identifiers.js';

/** Every statement `PostgresMembership` sends, for one table; times on the database clock (`clock_timestamp()`). */
export interface MembershipStatements {
  readonly createTable: string;
  /** $1 subscription, $2 partitions. Drops expired members; records $2 unless a count is; returns the recorded one. */
  readonly recordPartitions: string;
  /** $1 subscription, $2 node id, $3 instance, $4 member ms. `joined` 1 when added, else the live one's ms left. */
  readonly join: string;
  /** $1 subscription, $2 node id, $3 instance, $4 member ms, $5 owned. Renews that join; returns the live members. */
  readonly heartbeat: string;
  /** $1 subscription, $2 node id, $3 instance. */
  readonly leave: string;
}

/** The statements for `table`, whose name is already validated and quoted. */
export function membershipStatements(table: QualifiedTableName, tableName: string): MembershipStatements {
  const t = table.sql;
  const live = 'expires_at > clock_timestamp()';
  const expiry = "clock_timestamp() + $4::bigint * interval '1 millisecond'";
  const view =
    'floor(extract(epoch FROM clock_timestamp() - joined_at) * 1000)::bigint::text AS member_for_ms, ' +
    "array_to_string(owned, ',') AS owned";
  return {
    createTable: [
      `CREATE TABLE IF NOT EXISTS ${t} (`,
      '  subscription text NOT NULL,',
      "  -- '' on the row that records the subscription's partition count, for good; a member's node id on the others.",
      '  node_id text NOT NULL,',
      '  partitions integer,',
      '  -- A member: its join, when it joined and expires by the database clock, and the partitions it last reported.',
      '  instance text,',
      '  joined_at timestamptz,',
      '  expires_at timestamptz,',
      '  owned integer[],',
      '  PRIMARY KEY (subscription, node_id),',
      `  CONSTRAINT ${derivedIdentifier(tableName, 'row_kind')} CHECK (`,
      "    (node_id = '') = (partitions IS NOT NULL) AND (node_id = '') = (expires_at IS NULL))",
      ')',
    ].join('\n'),
    recordPartitions:
      `WITH expired AS (DELETE FROM ${t} WHERE subscription = $1 AND node_id <> '' AND NOT ${live}) ` +
      `INSERT INTO ${t} AS s (subscription, node_id, partitions) VALUES ($1, '', $2) ` +
      'ON CONFLICT (subscription, node_id) DO UPDATE SET partitions = s.partitions ' +
      'RETURNING partitions::text AS partitions',
    join:
      `WITH joined AS (INSERT INTO ${t} AS m (subscription, node_id, instance, joined_at, expires_at, owned) ` +
      `VALUES ($1, $2, $3, clock_timestamp(), ${expiry}, '{}') ON CONFLICT (subscription, node_id) DO UPDATE SET ` +
      'instance = EXCLUDED.instance, joined_at = EXCLUDED.joined_at, expires_at = EXCLUDED.expires_at, ' +
      'owned = EXCLUDED.owned ' +
      `WHERE NOT m.${live} RETURNING 1) SELECT (SELECT count(*) FROM joined)::int AS joined, ` +
      `(SELECT ceil(extract(epoch FROM expires_at - clock_timestamp()) * 1000)::text FROM ${t} ` +
      'WHERE subscription = $1 AND node_id = $2) AS expires_in_ms',
    heartbeat:
      `WITH beat AS (UPDATE ${t} SET expires_at = ${expiry}, owned = $5::integer[] ` +
      `WHERE subscription = $1 AND node_id = $2 AND instance = $3 AND ${live} RETURNING node_id, joined_at, owned) ` +
      `SELECT node_id, true AS renewed, ${view} FROM beat UNION ALL SELECT node_id, false, ${view} FROM ${t} ` +
      `WHERE subscription = $1 AND node_id <> '' AND ${live} AND NOT (node_id = $2 AND instance = $3)`,
    leave: `DELETE FROM ${t} WHERE subscription = $1 AND node_id = $2 AND instance = $3`,
  };
}
