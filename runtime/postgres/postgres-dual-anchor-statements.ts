import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { columnsOf, dualAnchorColumns, type DualAnchorColumn } from './postgres-dual-anchor-row.js';
import { derivedIdentifier, type QualifiedTableName } from './postgres-identifiers.js';
import {
  andStandbyCheck,
  inEachForm,
  rowsFrom,
  type StatementForm,
  type StatementInEachForm,
} from './standby-statement-forms.js';

type ConditionKind = CheckpointWriteCondition['kind'];

/**
 * Every statement `PostgresDualAnchorCheckpointStore` sends, for one table. Each write is one `INSERT … ON CONFLICT
 * (stream_name) DO UPDATE` that sets only the columns its operation owns: it inserts the row of a brand-new stream, or
 * locks the existing row and evaluates every `CASE` (the condition, the reset's guard) against its latest committed
 * version, so no writer of another column or of the same one can get in between. Versions travel as decimal text and
 * come back as `version::text`; timestamps go in as ISO 8601 UTC text and come back as epoch milliseconds (ADR 0904).
 * Each write in each form `waitForStandbys` sends it in (ADR 0807).
 */
export interface DualAnchorStatements {
  readonly createTable: string;
  /** $1 stream → every column, timestamps as epoch-millisecond text; no row when nothing is stored. */
  readonly find: string;
  /** $1 stream. */
  readonly delete: StatementInEachForm;
  /** $1 stream → `version` as text, or no row: the version behind a refusal. */
  readonly writeVersion: string;
  /**
   * The upsert of the columns `columns` names (the code of `columnValues`), values $2… in that order after $1, the
   * stream:
   * - `any`: sets exactly those columns; `version` is not in the statement, so it stays as it was;
   * - `notOlderThan`: v follows the values; the columns and `version` are set only when the locked row's version is
   *   not greater than v, so the row count is 1 when accepted and 0 when refused (ADR 0804);
   * - `ifAbsent`: inserts or does nothing; answers `accepted`, and the `stored_version` the statement's snapshot shows.
   */
  write(columns: number, kind: ConditionKind): StatementInEachForm;
  /**
   * `resetAfterHistoryLost` under `any` or `notOlderThan`, the guard inside: $1 stream, $2 seen token, $3 seen
   * timestamp, $4 heartbeat, then v for `notOlderThan`, then the expected dead processed token (canonical JSON or NULL).
   * Sets the seen pair and the heartbeat, and clears the processed pair only while the locked row's
   * `last_processed_token IS NOT DISTINCT FROM` the expected one (and, fenced, only when not refused; a refused reset
   * keeps every column, and its row count is 0). Under `ifAbsent` a reset is the plain insert of {@link write}: a new
   * row has no processed pair to guard.
   */
  reset(kind: 'any' | 'notOlderThan'): StatementInEachForm;
}

/**
 * The whole fence, as the `WHERE` of the `DO UPDATE`: the locked row (`stored`) holds no newer version than the
 * write's. A refused write updates nothing and reports a row count of 0 (ADR 0804).
 */
const notRefused = ' WHERE stored.version IS NULL OR stored.version <= EXCLUDED.version';

/** A number per condition kind, for the statement cache's keys. */
const kindCode: Readonly<Record<ConditionKind, number>> = { any: 0, notOlderThan: 1, ifAbsent: 2 };
const kindCount = 3;

/** The statements for `table`, whose name is already validated and quoted. */
export function dualAnchorStatements(table: QualifiedTableName, tableName: string): DualAnchorStatements {
  const t = table.sql;
  // Built once per shape and condition, then looked up by a number, with nothing made on a hit: every write asks.
  const cache = new Map<number, StatementInEachForm>();
  const remembered = (key: number, statement: StatementInEachForm): StatementInEachForm => {
    cache.set(key, statement);
    return statement;
  };
  return {
    createTable: [
      `CREATE TABLE IF NOT EXISTS ${t} (`,
      '  stream_name text PRIMARY KEY,',
      '  instance_id text,',
      '  -- Tokens as canonical JSON text: equal texts are equal JSON values (key order ignored). text, not jsonb:',
      '  -- jsonb refuses strings holding \\u0000, which tokens may carry.',
      '  last_seen_token text,',
      '  last_seen_timestamp timestamptz,',
      '  last_processed_token text,',
      '  last_processed_timestamp timestamptz,',
      '  last_heartbeat_timestamp timestamptz,',
      "  metadata text NOT NULL DEFAULT '{}',",
      "  -- The stream's one write version. numeric, not bigint: fencing tokens compare exactly beyond 2^63 and 2^64.",
      '  version numeric,',
      `  CONSTRAINT ${derivedIdentifier(tableName, 'version_check')}`,
      "    CHECK (version::text ~ '^[0-9]+$')",
      ')',
    ].join('\n'),
    // round, not floor: every timestamp this store writes is a whole millisecond, and before PostgreSQL 14 extract
    // answers a double, whose last digit floor could turn into the millisecond before.
    find:
      'SELECT ' +
      dualAnchorColumns
        .map(({ column, timestamp }) =>
          timestamp ? `round(extract(epoch FROM ${column}) * 1000)::text AS ${column}` : column,
        )
        .join(', ') +
      ` FROM ${t} WHERE stream_name = $1`,
    delete: inEachForm((form) => `DELETE FROM ${t} WHERE stream_name = $1${andStandbyCheck(form)}`),
    writeVersion: `SELECT version::text AS version FROM ${t} WHERE stream_name = $1`,
    write: (columns, kind) => {
      const key = columns * kindCount + kindCode[kind];
      return (
        cache.get(key) ??
        remembered(
          key,
          inEachForm((form) => writeStatement(t, columnsOf(columns), kind, form)),
        )
      );
    },
    reset: (kind) => {
      const key = -1 - kindCode[kind];
      return (
        cache.get(key) ??
        remembered(
          key,
          inEachForm((form) => resetStatement(t, kind === 'notOlderThan', form)),
        )
      );
    },
  };
}

function writeStatement(
  t: string,
  columns: readonly DualAnchorColumn[],
  kind: ConditionKind,
  form: StatementForm,
): string {
  const names = columns.map(({ column }) => column);
  const values = columns.map((column, index) => parameter(column, index + 2));
  switch (kind) {
    case 'any':
      return (
        `INSERT INTO ${t} AS stored (stream_name, ${names.join(', ')}) ` +
        `${rowsFrom(form, `$1, ${values.join(', ')}`)} ` +
        `ON CONFLICT (stream_name) DO UPDATE SET ${names.map(takeNew).join(', ')}`
      );
    case 'notOlderThan':
      return (
        `INSERT INTO ${t} AS stored (stream_name, ${names.join(', ')}, version) ` +
        `${rowsFrom(form, `$1, ${values.join(', ')}, $${columns.length + 2}::numeric`)} ` +
        `ON CONFLICT (stream_name) DO UPDATE SET ${[...names, 'version'].map(takeNew).join(', ')}${notRefused}`
      );
    case 'ifAbsent':
      return (
        `WITH attempt AS (INSERT INTO ${t} (stream_name, ${names.join(', ')}) ${rowsFrom(form, `$1, ${values.join(', ')}`)} ` +
        'ON CONFLICT (stream_name) DO NOTHING RETURNING 1) ' +
        `SELECT EXISTS (SELECT FROM attempt) AS accepted, (SELECT version::text FROM ${t} WHERE stream_name = $1) AS stored_version`
      );
  }
}

function resetStatement(t: string, withVersion: boolean, form: StatementForm): string {
  const installed = ['last_seen_token', 'last_seen_timestamp', 'last_heartbeat_timestamp'];
  const expected = `$${withVersion ? 6 : 5}::text`;
  const dead = `WHEN stored.last_processed_token IS NOT DISTINCT FROM ${expected} THEN NULL`;
  const guarded = (name: string): string => `${name} = CASE ${dead} ELSE stored.${name} END`;
  const assignments = [
    ...installed.map(takeNew),
    guarded('last_processed_token'),
    guarded('last_processed_timestamp'),
    ...(withVersion ? [takeNew('version')] : []),
  ];
  return (
    `INSERT INTO ${t} AS stored (stream_name, ${installed.join(', ')}${withVersion ? ', version' : ''}) ` +
    `${rowsFrom(form, `$1, $2, $3::timestamptz, $4::timestamptz${withVersion ? ', $5::numeric' : ''}`)} ` +
    `ON CONFLICT (stream_name) DO UPDATE SET ${assignments.join(', ')}` +
    (withVersion ? notRefused : '')
  );
}

function takeNew(name: string): string {
  return `${name} = EXCLUDED.${name}`;
}

function parameter({ timestamp }: DualAnchorColumn, index: number): string {
  return timestamp ? `$${index}::timestamptz` : `$${index}`;
}
