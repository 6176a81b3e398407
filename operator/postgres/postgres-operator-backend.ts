import {
  CheckpointWriteConditionNotFulfilledError,
  PostgresCheckpointStorage,
  PostgresLeaseStrategy,
  type WaitForStandbysOption,
} from 'checkpoint-fencing';
import { parseStoredInteger } from 'checkpoint-fencing/store-layout';
import type { PostgresAddress } from '../connection-url.js';
import type {
  InspectedBatch,
  Inspection,
  InspectionCoverage,
  OperatorBackend,
  ReplicationInspection,
} from '../operator-backend.js';
import { OperatorError } from '../operator-error.js';
import {
  recordedPartitionCount,
  type RecordedMember,
  type RecordedMembership,
} from '../partitioned-subscription-health.js';
import type { ScanProgress } from '../scan-progress.js';
import type { RecordedLease, SubscriptionState } from '../subscription-health.js';
import { connectPostgres, type PgModule, type PostgresConnection } from './postgres-connection.js';
import { postgresFailure } from './postgres-failure.js';
import {
  postgresInspectionStatements,
  replicationInspectionStatement,
  type PostgresInspectionStatements,
  type PostgresInspectionTables,
} from './postgres-inspection-statements.js';
import { judgeReplication } from './postgres-replication.js';

/**
 * The `--postgres` settings: the tables of the storage and the strategy the application runs with, and its
 * `waitForStandbys`, which `repair` and `reset` write with too.
 */
export interface PostgresOperatorOptions extends PostgresInspectionTables {
  readonly timeoutMs: number;
  readonly waitForStandbys: WaitForStandbysOption;
}

/** Subscriptions read a statement: a page is judged and printed before the next is read. */
const pageSize = 1_000;

/** How the command line names each table setting in a message. */
const settingNames = {
  schema: '--schema',
  table: '--table',
  leaseTable: '--lease-table',
  membershipTable: '--membership-table',
} as const;

interface CheckpointRow {
  readonly checkpoint: string | undefined;
  readonly version: string | undefined;
}

interface LeaseRow {
  readonly token: string;
  readonly owner: string | undefined;
  readonly expiresInMs: string | undefined;
}

/**
 * The operator commands over a PostgreSQL database. An inspection reads both tables in one read-only transaction
 * (one snapshot for both), with the storage's and the strategy's table names and rules; `repair` and `reset` call the
 * strategy's `raiseFencingTokenAbove` and the storage's `advanceWriteVersion`, `deleteCheckpointKeepingVersion` and `delete`.
 */
export class PostgresOperatorBackend implements OperatorBackend {
  readonly #connection: PostgresConnection;
  readonly #options: PostgresOperatorOptions;
  readonly #statements: PostgresInspectionStatements;

  private constructor(
    connection: PostgresConnection,
    options: PostgresOperatorOptions,
    statements: PostgresInspectionStatements,
    readonly target: string,
  ) {
    this.#connection = connection;
    this.#options = options;
    this.#statements = statements;
  }

  /** The statements for `tables`; checked before anything connects. @throws TypeError naming the bad setting. */
  static statements(tables: PostgresInspectionTables): PostgresInspectionStatements {
    return postgresInspectionStatements(tables, settingNames);
  }

  /** Connects to `address`. @throws OperatorError */
  static async connect(
    pg: PgModule,
    address: PostgresAddress,
    options: PostgresOperatorOptions,
  ): Promise<PostgresOperatorBackend> {
    const statements = PostgresOperatorBackend.statements(options);
    const connection = await connectPostgres(pg, address, options.timeoutMs);
    return new PostgresOperatorBackend(connection, options, statements, address.display);
  }

  async inspect(ids: readonly string[], progress: ScanProgress): Promise<Inspection> {
    const found = new Map<string, SubscriptionState>();
    const { coverage } = await this.#readPages(ids, progress, async (states) => {
      for (const state of states) {
        found.set(state.id ?? '', state);
      }
    });
    return { subscriptions: ids.map((id) => found.get(id) ?? this.#state(id, undefined, undefined)), coverage };
  }

  async inspectEverySubscription(progress: ScanProgress, report: InspectedBatch): Promise<InspectionCoverage> {
    return this.#readPages(null, progress, report);
  }

  /** Reads the ids `ids` (null: every id) a page at a time, in one read-only snapshot, handing each page to `report`. */
  async #readPages(
    ids: readonly string[] | null,
    progress: ScanProgress,
    report: InspectedBatch,
  ): Promise<InspectionCoverage> {
    const { client } = this.#connection;
    const { checkpointTable, leaseTable } = this.#statements;
    let rowsRead = 0;
    try {
      // Both tables, page after page, from one snapshot.
      await client.query('BEGIN TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
      try {
        let after: string | null = null;
        for (;;) {
          const page = await this.#page(ids, after);
          const rowsBefore = rowsRead;
          const states = page.map((row) => {
            const id = optionalText(row['subscription_id']) ?? '';
            const checkpointRow: CheckpointRow | undefined =
              row['in_checkpoints'] === true
                ? { checkpoint: optionalText(row['checkpoint']), version: optionalText(row['version']) }
                : undefined;
            const leaseRow: LeaseRow | undefined =
              row['in_leases'] === true
                ? {
                    token: optionalText(row['token']) ?? '',
                    owner: optionalText(row['owner']),
                    expiresInMs: optionalText(row['expires_in_ms']),
                  }
                : undefined;
            rowsRead += (checkpointRow === undefined ? 0 : 1) + (leaseRow === undefined ? 0 : 1);
            after = id;
            return this.#state(id, checkpointRow, leaseRow);
          });
          progress.advance(rowsRead - rowsBefore, 'rows read');
          await report(states);
          if (page.length < pageSize) {
            break;
          }
        }
      } finally {
        await client.query('COMMIT');
      }
      progress.finish('rows read');
    } catch (error) {
      throw this.#failure(error);
    }
    return { coverage: `${rowsRead.toLocaleString('en-US')} rows read from ${checkpointTable} and ${leaseTable}` };
  }

  async #page(ids: readonly string[] | null, after: string | null): Promise<readonly Record<string, unknown>[]> {
    try {
      return (
        await this.#connection.client.query<Record<string, unknown>>(this.#statements.subscriptions, [
          ids,
          after,
          pageSize,
        ])
      ).rows;
    } catch (error) {
      throw missingTable(error, this.#statements) ?? error;
    }
  }

  async inspectMemberships(names: readonly string[] | undefined): Promise<RecordedMembership[]> {
    const { membershipTable } = this.#statements;
    let rows: Record<string, unknown>[];
    try {
      rows = (
        await this.#connection.client.query<Record<string, unknown>>(this.#statements.memberships, [names ?? null])
      ).rows;
    } catch (error) {
      const code = (error as { code?: unknown } | undefined)?.code;
      if (code === '42P01' && this.#options.membershipTable === undefined) {
        // No partitioned subscription has ever joined under the default table: there is none to group.
        return [];
      }
      throw missingTable(error, this.#statements) ?? this.#failure(error);
    }
    return rows.map((row) => {
      const name = optionalText(row['subscription']) ?? '';
      const problems: string[] = [];
      const where = `the row of ${JSON.stringify(name)} in ${membershipTable}`;
      return {
        name,
        partitions: recordedPartitionCount(optionalText(row['partitions']) ?? '', where, problems),
        // json_agg of the live members' rows, shaped as RecordedMember by the statement.
        members: row['members'] as RecordedMember[],
        records: { members: membershipTable },
        problems,
      };
    });
  }

  async inspectReplication(): Promise<ReplicationInspection> {
    try {
      const { rows } = await this.#connection.client.query<Record<string, unknown>>(replicationInspectionStatement);
      return judgeReplication(rows[0] ?? {}, this.#options.waitForStandbys);
    } catch (error) {
      throw this.#failure(error);
    }
  }

  async raiseFencingTokenAbove(id: string, version: bigint): Promise<void> {
    const strategy = new PostgresLeaseStrategy(this.#connection.client, {
      ...tableOptions(this.#options.leaseTable, this.#options.schema),
      waitForStandbys: this.#options.waitForStandbys,
    });
    try {
      await strategy.raiseFencingTokenAbove(id, version);
    } catch (error) {
      throw this.#failure(error);
    } finally {
      await strategy.shutdown();
    }
  }

  async advanceWriteVersion(id: string, version: bigint): Promise<void> {
    try {
      await this.#storage().advanceWriteVersion(id, version);
    } catch (error) {
      throw error instanceof CheckpointWriteConditionNotFulfilledError ? error : this.#failure(error);
    }
  }

  async deleteCheckpointKeepingVersion(id: string): Promise<void> {
    try {
      await this.#storage().deleteCheckpointKeepingVersion(id);
    } catch (error) {
      throw this.#failure(error);
    }
  }

  async deleteCheckpoint(id: string): Promise<void> {
    try {
      await this.#storage().delete(id);
    } catch (error) {
      throw this.#failure(error);
    }
  }

  describeRecords(id: string): string {
    return `the row of ${JSON.stringify(id)} in ${this.#statements.checkpointTable}`;
  }

  async close(): Promise<void> {
    await this.#connection.close();
  }

  #state(id: string, checkpointRow: CheckpointRow | undefined, leaseRow: LeaseRow | undefined): SubscriptionState {
    const problems: string[] = [];
    const storedVersion = decimal(
      checkpointRow?.version,
      `the version column of ${this.#statements.checkpointTable} for ${JSON.stringify(id)}`,
      problems,
    );
    const tokenCounter = decimal(
      leaseRow?.token,
      `the token column of ${this.#statements.leaseTable} for ${JSON.stringify(id)}`,
      problems,
    );
    let lease: RecordedLease | undefined;
    if (leaseRow?.owner !== undefined && tokenCounter !== undefined) {
      lease = {
        holder: leaseRow.owner,
        token: tokenCounter,
        expiresInMs: leaseRow.expiresInMs === undefined ? undefined : Number(leaseRow.expiresInMs),
      };
    }
    return {
      id,
      checkpoint: checkpointRow?.checkpoint,
      storedVersion,
      lease,
      tokenCounter,
      clusterUnaligned: false,
      records: { checkpoints: this.#statements.checkpointTable, leases: this.#statements.leaseTable },
      problems,
    };
  }

  /** The application's checkpoint storage, over the command's one connection. */
  #storage(): PostgresCheckpointStorage {
    return new PostgresCheckpointStorage(this.#connection.client, {
      ...tableOptions(this.#options.table, this.#options.schema),
      waitForStandbys: this.#options.waitForStandbys,
    });
  }

  #failure(error: unknown): OperatorError {
    return postgresFailure(error, this.target, this.#options.timeoutMs);
  }
}

function tableOptions(table: string | undefined, schema: string | undefined): PostgresInspectionTables {
  return { ...(table === undefined ? {} : { table }), ...(schema === undefined ? {} : { schema }) };
}

/** A text column's value; node-postgres gives text as a string and NULL as null. */
function optionalText(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** `text` as a bigint, read as the storage and the strategy read it; a value they never write is a problem. */
function decimal(text: string | undefined, where: string, problems: string[]): bigint | undefined {
  try {
    return parseStoredInteger(text, where);
  } catch (error) {
    problems.push((error as Error).message);
    return undefined;
  }
}

/** The message for a missing table or schema, naming the flags that name them. */
function missingTable(error: unknown, statements: PostgresInspectionStatements): OperatorError | undefined {
  const code = (error as { code?: unknown } | undefined)?.code;
  if (code !== '42P01' && code !== '3F000') {
    return undefined;
  }
  // One statement reads both tables; the server's message names the relation it missed (or only the schema).
  const message = (error as Error).message;
  if (message.includes(`"${statements.membershipTable}"`)) {
    return new OperatorError(
      `table ${statements.membershipTable} does not exist (${message}); name the table your application's PostgresMembership uses with --schema and --membership-table`,
    );
  }
  const table = message.includes(`"${statements.leaseTable}"`) ? statements.leaseTable : statements.checkpointTable;
  return new OperatorError(
    `table ${table} does not exist (${message}); name the tables your application uses with --schema, --table and --lease-table`,
  );
}
