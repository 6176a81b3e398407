import { derivedIdentifier, type QualifiedTableName } from './postgres-identifiers.js';
import { andStandbyCheck, inEachForm, rowsFrom, type StatementInEachForm } from './standby-statement-forms.js';

/**
 * Every statement `PostgresCheckpointStorage` sends, for one table. Each write is one statement that evaluates its
 * condition on the row it locks (`INSERT … ON CONFLICT … DO UPDATE` takes the row lock and judges the latest
 * committed version, under every isolation level), so no other writer can slip in between check and write. Versions
 * travel as decimal text and come back as `version::text`, so a type parser the application installed for `numeric`
 * never rounds them. Each write in each form `waitForStandbys` sends it in (ADR 0807).
 */
export interface CheckpointStatements {
  readonly createTable: string;
  /** $1 id → `checkpoint` (NULL on a version recorded with no checkpoint), no row when nothing is stored. */
  readonly read: string;
  /** $1 id → `version` as text, or NULL. */
  readonly writeVersion: string;
  /** any(): $1 id, $2 checkpoint. An upsert that leaves `version` exactly as it is. */
  readonly saveAny: StatementInEachForm;
  /**
   * notOlderThan(v): $1 id, $2 checkpoint, $3 v. Its row count says which: 1 when it inserted or updated the row
   * (accepted), 0 when the locked row's version was greater (refused). Returns no row: see ADR 0804.
   */
  readonly saveNotOlderThan: StatementInEachForm;
  /**
   * ifAbsent(): $1 id, $2 checkpoint. `accepted` true when it inserted the row, or filled in a row that holds only a
   * version; otherwise `stored_version`, the version visible to the statement.
   */
  readonly saveIfAbsent: StatementInEachForm;
  /** $1 id, $2 v. Returns the row's `version` afterwards: v when accepted, the greater stored one when refused. */
  readonly advanceWriteVersion: StatementInEachForm;
  /** $1 id. */
  readonly delete: StatementInEachForm;
  /** $1 id. NULLs the checkpoint of a row with a version; deletes a row without one (the check forbids a row of neither). */
  readonly deleteCheckpointKeepingVersion: StatementInEachForm;
}

/** The statements for `table`, whose name is already validated and quoted. */
export function checkpointStatements(table: QualifiedTableName, tableName: string): CheckpointStatements {
  const t = table.sql;
  // The whole fence: a conflicting row is updated only when its version is not newer. advanceWriteVersion keeps it
  // with CASE, so it can return the version that refused it (ADR 0802).
  const newerOrEqual = 'stored.version IS NULL OR stored.version <= EXCLUDED.version';
  return {
    createTable: [
      `CREATE TABLE IF NOT EXISTS ${t} (`,
      '  subscription_id text PRIMARY KEY,',
      '  -- NULL only while a fence (advanceWriteVersion) was recorded before any checkpoint.',
      '  checkpoint text,',
      '  -- numeric, not bigint: fencing tokens compare exactly beyond 2^63 and 2^64.',
      '  version numeric,',
      `  CONSTRAINT ${derivedIdentifier(tableName, 'version_check')}`,
      "    CHECK (version::text ~ '^[0-9]+$'),",
      `  CONSTRAINT ${derivedIdentifier(tableName, 'checkpoint_or_version')}`,
      '    CHECK (checkpoint IS NOT NULL OR version IS NOT NULL)',
      ')',
    ].join('\n'),
    read: `SELECT checkpoint FROM ${t} WHERE subscription_id = $1`,
    writeVersion: `SELECT version::text AS version FROM ${t} WHERE subscription_id = $1`,
    saveAny: inEachForm(
      (form) =>
        `INSERT INTO ${t} AS stored (subscription_id, checkpoint) ${rowsFrom(form, '$1, $2')} ` +
        'ON CONFLICT (subscription_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint',
    ),
    saveNotOlderThan: inEachForm(
      (form) =>
        `INSERT INTO ${t} AS stored (subscription_id, checkpoint, version) ` +
        `${rowsFrom(form, '$1, $2, $3::numeric')} ` +
        'ON CONFLICT (subscription_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint, version = EXCLUDED.version ' +
        `WHERE ${newerOrEqual}`,
    ),
    saveIfAbsent: inEachForm(
      (form) =>
        `WITH attempt AS (INSERT INTO ${t} AS stored (subscription_id, checkpoint) ${rowsFrom(form, '$1, $2')} ` +
        'ON CONFLICT (subscription_id) DO UPDATE SET checkpoint = EXCLUDED.checkpoint WHERE stored.checkpoint IS NULL ' +
        'RETURNING 1) ' +
        `SELECT EXISTS (SELECT FROM attempt) AS accepted, (SELECT version::text FROM ${t} WHERE subscription_id = $1) AS stored_version`,
    ),
    advanceWriteVersion: inEachForm(
      (form) =>
        `INSERT INTO ${t} AS stored (subscription_id, checkpoint, version) ` +
        `${rowsFrom(form, '$1, NULL, $2::numeric')} ` +
        `ON CONFLICT (subscription_id) DO UPDATE SET version = CASE WHEN ${newerOrEqual} THEN EXCLUDED.version ELSE stored.version END ` +
        'RETURNING version::text AS version',
    ),
    delete: inEachForm((form) => `DELETE FROM ${t} WHERE subscription_id = $1${andStandbyCheck(form)}`),
    deleteCheckpointKeepingVersion: inEachForm(
      (form) =>
        `WITH unfenced AS (DELETE FROM ${t} WHERE subscription_id = $1 AND version IS NULL${andStandbyCheck(form)}) ` +
        `UPDATE ${t} SET checkpoint = NULL WHERE subscription_id = $1 AND version IS NOT NULL${andStandbyCheck(form)}`,
    ),
  };
}
