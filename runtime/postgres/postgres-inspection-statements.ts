import { defaultCheckpointTable } from './postgres-checkpoint-storage.js';
import { qualifiedTableName, type TableSettingNames } from './postgres-identifiers.js';
import { defaultLeaseTable } from './postgres-lease-strategy.js';

/** The tables an inspection reads: those of a `PostgresCheckpointStorage` and a `PostgresLeaseStrategy`. */
export interface PostgresInspectionTables {
  /** The schema of both tables; none: the server's `search_path` decides, as for the storage and the strategy. */
  readonly schema?: string;
  /** The checkpoint table, `checkpoint_fencing_checkpoints` by default. */
  readonly table?: string;
  /** The lease table, `checkpoint_fencing_leases` by default. */
  readonly leaseTable?: string;
}

/** How an error message names each setting of {@link PostgresInspectionTables}. */
export interface PostgresInspectionSettingNames {
  readonly schema: string;
  readonly table: string;
  readonly leaseTable: string;
}

/**
 * The read-only statements that list the rows of a checkpoint table and a lease table, with the same table names,
 * defaults and identifier rules as the storage and the strategy. Each takes $1 the ids to read (`text[]`, or NULL
 * for every row), $2 the last id of the previous page (NULL for the first), $3 the page size; rows come ordered by id.
 */
export interface PostgresInspectionStatements {
  /** For messages: `schema.table` or `table`. */
  readonly checkpointTable: string;
  readonly leaseTable: string;
  /** → `subscription_id`, `checkpoint` (NULL for a version recorded alone), `version` as text (or NULL). */
  readonly checkpoints: string;
  /**
   * → `subscription_id`, `token` (the last token minted, as text), `owner` (NULL while free) and `expires_in_ms`, the
   * milliseconds left on the lease by the database clock as text, negative once it expired (NULL while free).
   */
  readonly leases: string;
}

/**
 * The inspection statements for `tables`.
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
  const page =
    'WHERE ($1::text[] IS NULL OR subscription_id = ANY($1::text[])) AND ($2::text IS NULL OR subscription_id > $2::text) ' +
    'ORDER BY subscription_id LIMIT $3::integer';
  return {
    checkpointTable: checkpoints.display,
    leaseTable: leases.display,
    checkpoints: `SELECT subscription_id, checkpoint, version::text AS version FROM ${checkpoints.sql} ${page}`,
    leases:
      'SELECT subscription_id, token::text AS token, owner, ' +
      'round(extract(epoch FROM expires_at - clock_timestamp()) * 1000)::text AS expires_in_ms ' +
      `FROM ${leases.sql} ${page}`,
  };
}
