import type { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import {
  decodeDualAnchorCheckpoint,
  DualAnchorCheckpointStoreBase,
  type DualAnchorCheckpoint,
  type DualAnchorFieldWrite,
  type DualAnchorResetWrite,
} from '../dual-anchor/index.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import type { TelemetryOptions } from '../telemetry/index.js';
import { assertPostgresClient, type PostgresClient, type PostgresTableOptions } from './postgres-client.js';
import { createTableIdempotently } from './postgres-create-table.js';
import { columnValues, nullableTimestampText, storedFieldsOfRow } from './postgres-dual-anchor-row.js';
import { dualAnchorStatements, type DualAnchorStatements } from './postgres-dual-anchor-statements.js';
import type { MissingTableHint } from './postgres-errors.js';
import { qualifiedTableName } from './postgres-identifiers.js';
import { PostgresStatementRunner } from './postgres-statement-runner.js';
import { assertPostgresText } from './postgres-text.js';
import type { StatementInEachForm } from './standby-statement-forms.js';
import { storeWaitForStandbys, type WaitForStandbysOptions } from './wait-for-standbys.js';

/**
 * Options of {@link PostgresDualAnchorCheckpointStore}: the table (`checkpoint_fencing_dual_anchor_checkpoints` by
 * default), its schema, and how its fenced writes and resets wait for the standbys (as `PostgresCheckpointStorage`'s).
 */
export type PostgresDualAnchorCheckpointStoreOptions = PostgresTableOptions & WaitForStandbysOptions & TelemetryOptions;

const defaultTable = 'checkpoint_fencing_dual_anchor_checkpoints';
const className = 'PostgresDualAnchorCheckpointStore';

/**
 * A dual-anchor checkpoint store in a PostgreSQL table, one row per stream, over any node-postgres-shaped client the
 * caller owns (a `Pool`, a `Client`, a `PoolClient`). Every partial write is one `INSERT … ON CONFLICT DO UPDATE` of
 * only its own columns, with its condition judged on the row it locks; `resetAfterHistoryLost` is one such statement
 * with the guard inside. It keeps no session state, so it works behind PgBouncer or RDS Proxy in transaction mode;
 * {@link withinTransaction} binds it to the caller's own transaction. Schema and statements: doc/dual-anchor.md.
 */
export class PostgresDualAnchorCheckpointStore extends DualAnchorCheckpointStoreBase {
  readonly #options: PostgresDualAnchorCheckpointStoreOptions;
  readonly #statements: DualAnchorStatements;
  readonly #hint: MissingTableHint;
  /** Replaced by a transaction's runner in {@link withinTransaction}. */
  #runner: PostgresStatementRunner;

  /**
   * @throws TypeError for a client without `query`, or a `table`/`schema` that is not a plain identifier; RangeError
   * for a bad `waitForStandbys` or `waitForStandbysTimeoutMs`.
   */
  constructor(client: PostgresClient, options: PostgresDualAnchorCheckpointStoreOptions = {}) {
    super('postgres', options);
    assertPostgresClient(className, client);
    const tableName = options.table ?? defaultTable;
    const table = qualifiedTableName(`${className} options`, tableName, options.schema);
    this.#options = { ...options };
    this.#statements = dualAnchorStatements(table, tableName);
    this.#hint = { className, instanceName: 'store', tableDisplay: table.display, schema: table.schema };
    this.#runner = new PostgresStatementRunner(client, this.#hint, storeWaitForStandbys(options, className));
  }

  /**
   * The `CREATE TABLE IF NOT EXISTS` statement for the table these options name, for your migrations; idempotent.
   * @throws TypeError for a `table`/`schema` that is not a plain identifier.
   */
  static createTableSql(options: PostgresDualAnchorCheckpointStoreOptions = {}): string {
    const tableName = options.table ?? defaultTable;
    return dualAnchorStatements(qualifiedTableName(`${className} options`, tableName, options.schema), tableName)
      .createTable;
  }

  /** Runs {@link PostgresDualAnchorCheckpointStore.createTableSql}; idempotent, also when several processes run it at once. */
  async createTable(): Promise<void> {
    await createTableIdempotently(this.#runner, this.#statements.createTable);
  }

  /**
   * The same store bound to `client`, the connection your transaction runs on (the `PoolClient` you ran `BEGIN` on):
   * an anchor written through it commits or rolls back with everything else in that transaction. On a refusal it
   * throws `CheckpointWriteConditionNotFulfilledError`; roll the transaction back, so a zombie's other writes vanish
   * with its anchor. Once `client` is released to the pool this store was built over, every statement of the bound
   * store is refused with an `Error`: its transaction is over, and the statement would otherwise commit on its own.
   * Its conditional writes wait for no standby: your commit is still to come. Call {@link waitForStandbys} after it.
   * @throws TypeError for a `pg.Pool`, whose statements would each run on any connection, outside your transaction.
   */
  withinTransaction(client: PostgresClient): PostgresDualAnchorCheckpointStore {
    const runner = this.#runner.forTransaction(client);
    const bound = new PostgresDualAnchorCheckpointStore(client, this.#options);
    bound.#runner = runner;
    return bound;
  }

  /**
   * On a store bound by {@link withinTransaction}, after your `COMMIT`: waits until the standbys `waitForStandbys`
   * asks for have it, as `PostgresCheckpointStorage.waitForStandbys()` does.
   * @throws CheckpointWriteNotReplicatedError (as a rejection) naming the first conditional write made through the
   * binding, when the standbys did not confirm the commit in time.
   */
  async waitForStandbys(): Promise<void> {
    await this.#runner.confirmCommitted();
  }

  /** True: every condition is evaluated inside the statement that writes. */
  evaluatesWriteConditions(): boolean {
    return true;
  }

  /**
   * One statement that upserts exactly the plan's columns. A lost connection or a timeout is passed through as the
   * driver reported it: the statement may or may not have committed, so never read it as a refusal. Not `async`
   * itself, so a write adds no promise of its own; the public method that calls it turns a throw into a rejection.
   * Under `any()` there is no answer to judge, so the driver's own promise is returned as it is.
   */
  protected writeFields(write: DualAnchorFieldWrite): Promise<unknown> {
    assertPostgresText('streamName', write.streamName);
    if (typeof write.fields.instanceId === 'string') {
      assertPostgresText('checkpoint.instanceId', write.fields.instanceId);
    }
    const { condition } = write;
    const { columns, values } = columnValues(write.streamName, write.fields);
    const statement = this.#statements.write(columns, condition.kind);
    if (condition.kind === 'any') {
      return this.#runner.write(statement, values);
    }
    if (condition.kind === 'notOlderThan') {
      values.push(String(condition.version));
    }
    return this.#send(write.streamName, condition, statement, values);
  }

  /** One statement with the guard inside under every condition; under `ifAbsent()` the insert of a new row. */
  protected async writeReset(reset: DualAnchorResetWrite): Promise<void> {
    assertPostgresText('streamName', reset.streamName);
    const { condition, fields } = reset;
    if (condition.kind === 'ifAbsent') {
      const { columns, values } = columnValues(reset.streamName, fields);
      await this.#send(reset.streamName, condition, this.#statements.write(columns, 'ifAbsent'), values);
      return;
    }
    const values: unknown[] = [
      reset.streamName,
      fields.lastSeenToken,
      nullableTimestampText(fields.lastSeenTimestamp),
      nullableTimestampText(fields.lastHeartbeatTimestamp),
    ];
    if (condition.kind === 'notOlderThan') {
      values.push(String(condition.version));
    }
    values.push(reset.expectedDeadProcessed);
    await this.#send(reset.streamName, condition, this.#statements.reset(condition.kind), values);
  }

  /** One `SELECT` of the row. */
  protected async readRecord(streamName: string): Promise<DualAnchorCheckpoint | undefined> {
    assertPostgresText('streamName', streamName);
    const { rows } = await this.#runner.query(this.#statements.find, [streamName]);
    const row = rows[0];
    return row === undefined
      ? undefined
      : decodeDualAnchorCheckpoint(streamName, storedFieldsOfRow(row, streamName, this.#hint.tableDisplay));
  }

  /** One `DELETE` of the row, version included. */
  protected async removeRecord(streamName: string): Promise<void> {
    assertPostgresText('streamName', streamName);
    await this.#runner.write(this.#statements.delete, [streamName]);
  }

  /**
   * Sends a write, turns its answer into a refusal, with the stored version, when its condition did not hold, and
   * otherwise waits for the standbys; under `any()` it only sends it.
   */
  async #send(
    streamName: string,
    condition: CheckpointWriteCondition,
    statement: StatementInEachForm,
    values: readonly unknown[],
  ): Promise<void> {
    if (condition.kind === 'any') {
      await this.#runner.write(statement, values);
      return;
    }
    const [result, unconfirmed] = await this.#runner.writeToConfirm(statement, values);
    if (condition.kind === 'notOlderThan') {
      await this.#runner.refusedUnlessWritten(
        result,
        this.#statements.writeVersion,
        { what: 'stream', id: streamName },
        condition,
      );
    } else if (result.rows[0]?.['accepted'] !== true) {
      throw new CheckpointWriteConditionNotFulfilledError(
        streamName,
        condition,
        this.#runner.version(result.rows[0]?.['stored_version']),
      );
    }
    if (unconfirmed) {
      await this.#runner.confirmWrite(streamName, condition.toString());
    }
  }
}
