import { derivedIdentifier, type QualifiedTableName } from './postgres-identifiers.js';
import { andStandbyCheck, inEachForm, rowsFrom, type StatementInEachForm } from './standby-statement-forms.js';

/**
 * Every statement `PostgresLeaseStore` sends, for one table. One row per subscription holds the last token minted,
 * the holder and the expiry. Expiry is computed and compared on the database's clock (`clock_timestamp()`, which
 * moves within a transaction, unlike `now()`), never on a node's. The row is never deleted, so tokens never restart.
 * Each write in each form `waitForStandbys` sends it in (ADR 0807).
 */
export interface LeaseStatements {
  readonly createTable: string;
  /**
   * $1 id, $2 owner, $3 lease ms. Takes a free or expired lease and mints the next token (0 on a new row) in the
   * same statement; gives `owner` its own token back while it holds the lease. No row when another owner holds it.
   */
  readonly acquire: StatementInEachForm;
  /**
   * $1 ids, $2 owners, $3 tokens (arrays, one entry a lease), $4 lease ms. Renews each lease its owner still holds,
   * unexpired, with its token; returns the id and owner of each one renewed.
   */
  readonly refreshAll: StatementInEachForm;
  /** $1 id, $2 owner, $3 token. Frees the lease when `owner` still holds it with `token`; keeps the row and its token. */
  readonly release: StatementInEachForm;
  /**
   * $1 id, $2 version. Raises the counter to at least `version`, never lowers it, so the next grant mints a token
   * above it. A lease held with a token below the new floor is freed: the counter is also the holder's token, so
   * keeping the lease would hand that holder the floor itself as its token (ADR 0803).
   */
  readonly raiseFencingTokenAbove: StatementInEachForm;
}

/** The statements for `table`, whose name is already validated and quoted. */
export function leaseStatements(table: QualifiedTableName, tableName: string): LeaseStatements {
  const t = table.sql;
  const leaseFor = "clock_timestamp() + $3::bigint * interval '1 millisecond'";
  const heldByOwner = 'lease.owner = EXCLUDED.owner AND lease.expires_at > clock_timestamp()';
  return {
    createTable: [
      `CREATE TABLE IF NOT EXISTS ${t} (`,
      '  subscription_id text PRIMARY KEY,',
      '  -- The last fencing token minted; only ever goes up. numeric, so tokens stay exact beyond 2^64.',
      '  token numeric NOT NULL,',
      '  -- The holder and when its lease ends by the database clock; both NULL while the lease is free.',
      '  owner text,',
      '  expires_at timestamptz,',
      `  CONSTRAINT ${derivedIdentifier(tableName, 'token_check')} CHECK (token::text ~ '^[0-9]+$'),`,
      `  CONSTRAINT ${derivedIdentifier(tableName, 'owner_with_expiry')} CHECK ((owner IS NULL) = (expires_at IS NULL))`,
      ')',
    ].join('\n'),
    acquire: inEachForm(
      (form) =>
        `INSERT INTO ${t} AS lease (subscription_id, token, owner, expires_at) ` +
        `${rowsFrom(form, `$1, 0, $2, ${leaseFor}`)} ON CONFLICT (subscription_id) DO UPDATE SET ` +
        `token = CASE WHEN ${heldByOwner} THEN lease.token ELSE lease.token + 1 END, ` +
        'owner = EXCLUDED.owner, expires_at = EXCLUDED.expires_at ' +
        'WHERE lease.owner IS NULL OR lease.expires_at <= clock_timestamp() OR lease.owner = EXCLUDED.owner ' +
        'RETURNING token::text AS token',
    ),
    refreshAll: inEachForm(
      (form) =>
        `UPDATE ${t} AS lease SET expires_at = clock_timestamp() + $4::bigint * interval '1 millisecond' ` +
        'FROM unnest($1::text[], $2::text[], $3::numeric[]) AS held(subscription_id, owner, token) ' +
        'WHERE lease.subscription_id = held.subscription_id AND lease.owner = held.owner AND lease.token = held.token ' +
        `AND lease.expires_at > clock_timestamp()${andStandbyCheck(form)} ` +
        'RETURNING lease.subscription_id, lease.owner',
    ),
    release: inEachForm(
      (form) =>
        `UPDATE ${t} SET owner = NULL, expires_at = NULL ` +
        `WHERE subscription_id = $1 AND owner = $2 AND token = $3::numeric${andStandbyCheck(form)}`,
    ),
    raiseFencingTokenAbove: inEachForm(
      (form) =>
        `INSERT INTO ${t} AS lease (subscription_id, token) ${rowsFrom(form, '$1, $2::numeric')} ` +
        'ON CONFLICT (subscription_id) DO UPDATE SET token = GREATEST(lease.token, EXCLUDED.token), ' +
        'owner = CASE WHEN lease.token < EXCLUDED.token THEN NULL ELSE lease.owner END, ' +
        'expires_at = CASE WHEN lease.token < EXCLUDED.token THEN NULL ELSE lease.expires_at END',
    ),
  };
}
