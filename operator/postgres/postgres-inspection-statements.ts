import {
  defaultCheckpointTable,
  defaultLeaseTable,
  defaultMembershipTable,
  physicalWalSenders,
  promotable,
  qualifiedTableName,
  type TableSettingNames,
} from 'checkpoint-fencing/store-layout';

/** The tables an inspection reads: those of a `PostgresCheckpointStorage` and a `PostgresLeaseStrategy`. */
export interface PostgresInspectionTables {
  /** The schema of both tables; none: the server's `search_path` decides, as for the storage and the strategy. */
  readonly schema?: string;
  /** The checkpoint table, `checkpoint_fencing_checkpoints` by default. */
  readonly table?: string;
  /** The lease table, `checkpoint_fencing_leases` by default. */
  readonly leaseTable?: string;
  /** The table of the application's `PostgresMembership`, `checkpoint_fencing_members` by default. */
  readonly membershipTable?: string;
}

/** How an error message names each setting of {@link PostgresInspectionTables}. */
export interface PostgresInspectionSettingNames {
  readonly schema: string;
  readonly table: string;
  readonly leaseTable: string;
  readonly membershipTable: string;
}

/**
 * The read-only statement that lists the subscriptions of a checkpoint table and a lease table, a page at a time, with
 * the same table names, defaults and identifier rules as the storage and the strategy.
 */
export interface PostgresInspectionStatements {
  /** For messages: `schema.table` or `table`. */
  readonly checkpointTable: string;
  readonly leaseTable: string;
  /**
   * One page of the ids either table holds, in the order of the tables' primary keys, each with both its rows. Takes
   * $1 the ids to read (`text[]`, or NULL for every id), $2 the last id of the previous page (NULL for the first), $3
   * the page size: keyset pagination, so each page is two index range scans however far the inspection got, and no
   * cursor or session state is needed (an unnamed statement, ADR 0805, fine behind pgbouncer).
   * → `subscription_id`; `in_checkpoints` (a boolean), `checkpoint` (NULL for a version recorded alone), `version` as
   * text (or NULL); `in_leases`, `token` (the last token minted, as text), `owner` (NULL while free) and
   * `expires_in_ms`, the milliseconds left on the lease by the database clock as text, negative once it expired (NULL
   * while free).
   */
  readonly subscriptions: string;
  readonly membershipTable: string;
  /**
   * The partitioned subscriptions the membership table records, with their live members by the database clock. Takes
   * $1 the names to read (`text[]`, or NULL for every one). → `subscription`, `partitions` (as text), `members` (a
   * JSON array of `nodeId`, `memberForMs`, `expiresInMs` and `owned`, in node id order).
   */
  readonly memberships: string;
}

/**
 * The inspection statement for `tables`.
 * @throws TypeError for a table or schema that is not a plain identifier, naming the setting as `names` says.
 */
export function postgresInspectionStatements(
  tables: PostgresInspectionTables,
  names: PostgresInspectionSettingNames,
): PostgresInspectionStatements {
  const checkpointNames: TableSettingNames = { table: names.table, schema: names.schema };
  const leaseNames: TableSettingNames = { table: names.leaseTable, schema: names.schema };
  const checkpoints = qualifiedTableName(checkpointNames, tables.table ?? defaultCheckpointTable, tables.schema);
  const leases = qualifiedTableName(leaseNames, tables.leaseTable ?? defaultLeaseTable, tables.schema);
  const memberships = qualifiedTableName(
    { table: names.membershipTable, schema: names.schema },
    tables.membershipTable ?? defaultMembershipTable,
    tables.schema,
  );
  const msSince = (from: string, to: string): string => `floor(extract(epoch FROM ${to} - ${from}) * 1000)::bigint`;
  const pageOf = (table: string): string =>
    `(SELECT subscription_id FROM ${table} ` +
    'WHERE ($1::text[] IS NULL OR subscription_id = ANY($1::text[])) AND ($2::text IS NULL OR subscription_id > $2::text) ' +
    'ORDER BY subscription_id LIMIT $3::integer)';
  return {
    checkpointTable: checkpoints.display,
    leaseTable: leases.display,
    subscriptions:
      'SELECT page.subscription_id, ' +
      'cp.subscription_id IS NOT NULL AS in_checkpoints, cp.checkpoint, cp.version::text AS version, ' +
      'lease.subscription_id IS NOT NULL AS in_leases, lease.token::text AS token, lease.owner, ' +
      'round(extract(epoch FROM lease.expires_at - clock_timestamp()) * 1000)::text AS expires_in_ms ' +
      // The first $3 ids of the two tables together: each table's first $3 after $2, merged.
      `FROM (SELECT subscription_id FROM (${pageOf(checkpoints.sql)} UNION ${pageOf(leases.sql)}) AS both_tables ` +
      'ORDER BY subscription_id LIMIT $3::integer) AS page ' +
      `LEFT JOIN ${checkpoints.sql} AS cp ON cp.subscription_id = page.subscription_id ` +
      `LEFT JOIN ${leases.sql} AS lease ON lease.subscription_id = page.subscription_id ` +
      'ORDER BY page.subscription_id',
    membershipTable: memberships.display,
    memberships:
      'SELECT s.subscription, s.partitions::text AS partitions, ' +
      "coalesce(json_agg(json_build_object('nodeId', m.node_id, " +
      `'memberForMs', ${msSince('m.joined_at', 'clock_timestamp()')}, ` +
      `'expiresInMs', ${msSince('clock_timestamp()', 'm.expires_at')}, 'owned', m.owned) ` +
      "ORDER BY m.node_id) FILTER (WHERE m.node_id IS NOT NULL), '[]') AS members " +
      `FROM ${memberships.sql} AS s LEFT JOIN ${memberships.sql} AS m ON m.subscription = s.subscription ` +
      "AND m.node_id <> '' AND m.expires_at > clock_timestamp() " +
      "WHERE s.node_id = '' AND ($1::text[] IS NULL OR s.subscription = ANY($1::text[])) " +
      'GROUP BY s.subscription, s.partitions ORDER BY s.subscription',
  };
}

/**
 * What `inspect` reads about a server's replication, with the same notion of a standby as the waits: whether it is
 * itself in recovery, `synchronous_standby_names`, the role, each physical walsender (`name`, `state`, `sync` state,
 * whether it is `promotable`, how many bytes its write position is `behind` the primary's flush position, as text),
 * and the physical replication slots no walsender uses (a standby or archiver that is not streaming now).
 */
export const replicationInspectionStatement =
  'SELECT pg_is_in_recovery() AS in_recovery, ' +
  "current_setting('synchronous_standby_names') AS synchronous_standby_names, current_user::text AS role, " +
  "coalesce((SELECT json_agg(json_build_object('name', (SELECT application_name FROM pg_stat_get_activity(w.pid)), " +
  `'state', w.state, 'sync', w.sync_state, 'promotable', ${promotable}, 'behind', ` +
  'CASE WHEN w.write_lsn IS NULL OR pg_is_in_recovery() THEN NULL ' +
  'ELSE pg_wal_lsn_diff(pg_current_wal_flush_lsn(), w.write_lsn)::text END) ORDER BY w.pid) ' +
  `FROM ${physicalWalSenders}), '[]') AS walsenders, ` +
  "coalesce((SELECT json_agg(slot_name ORDER BY slot_name) FROM pg_replication_slots WHERE slot_type = 'physical' " +
  "AND NOT active), '[]') AS idle_slots";
