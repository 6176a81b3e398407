import type { Checkpoint } from '../checkpoint.js';
import { CheckpointStorageBase } from '../checkpoint-storage-base.js';
import { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import type { TelemetryOptions } from '../telemetry/index.js';
import { checkpointStatements, type CheckpointStatements } from './postgres-checkpoint-statements.js';
import { assertPostgresClient, type PostgresClient, type PostgresTableOptions } from './postgres-client.js';
import { createTableIdempotently } from './postgres-create-table.js';
import type { MissingTableHint } from './postgres-errors.js';
import { qualifiedTableName } from './postgres-identifiers.js';
import { PostgresStatementRunner } from './postgres-statement-runner.js';
import { assertPostgresText } from './postgres-text.js';
import { storeWaitForStandbys, type WaitForStandbysOptions } from './wait-for-standbys.js';

/**
 * Options of {@link PostgresCheckpointStorage}: the table (`checkpoint_fencing_checkpoints` by default), its schema,
 * how its conditional writes wait for the standbys, and where its writes are recorded.
 */
export type PostgresCheckpointStorageOptions = PostgresTableOptions & WaitForStandbysOptions & TelemetryOptions;

/** The table `PostgresCheckpointStorage` uses unless told otherwise. */
export const defaultCheckpointTable = 'checkpoint_fencing_checkpoints';

/**
 * A fenced checkpoint storage in a PostgreSQL table, over any node-postgres-shaped client the caller owns (a `Pool`,
 * a `Client`, a `PoolClient`). Every write is one statement that evaluates its condition on the row it locks. It keeps
 * no session state, so it works behind PgBouncer or RDS Proxy in transaction mode. {@link withinTransaction} binds it
 * to the client of the caller's own transaction, so a checkpoint commits or rolls back with the rows it records.
 */
export class PostgresCheckpointStorage extends CheckpointStorageBase {
  readonly #options: PostgresCheckpointStorageOptions;
  readonly #statements: CheckpointStatements;
  readonly #hint: MissingTableHint;
  /** Replaced by a transaction's runner in {@link withinTransaction}. */
  #runner: PostgresStatementRunner;

  /**
   * @throws TypeError for a client without `query`, or a `table`/`schema` that is not a plain identifier; RangeError
   * for a bad `waitForStandbys` or `waitForStandbysTimeoutMs`.
   */
  constructor(client: PostgresClient, options: PostgresCheckpointStorageOptions = {}) {
    super('postgres', options);
    assertPostgresClient('PostgresCheckpointStorage', client);
    const tableName = options.table ?? defaultCheckpointTable;
    const table = qualifiedTableName('PostgresCheckpointStorage options', tableName, options.schema);
    this.#options = { ...options };
    this.#statements = checkpointStatements(table, tableName);
    this.#hint = {
      className: 'PostgresCheckpointStorage',
      instanceName: 'storage',
      tableDisplay: table.display,
      schema: table.schema,
    };
    this.#runner = new PostgresStatementRunner(
      client,
      this.#hint,
      storeWaitForStandbys(options, 'PostgresCheckpointStorage'),
    );
  }

  /**
   * The `CREATE TABLE IF NOT EXISTS` statement for the table these options name, for your migrations; idempotent.
   * @throws TypeError for a `table`/`schema` that is not a plain identifier.
   */
  static createTableSql(options: PostgresCheckpointStorageOptions = {}): string {
    const tableName = options.table ?? defaultCheckpointTable;
    return checkpointStatements(
      qualifiedTableName('PostgresCheckpointStorage options', tableName, options.schema),
      tableName,
    ).createTable;
  }

  /** Runs {@link PostgresCheckpointStorage.createTableSql}; idempotent, also when several processes run it at once. */
  async createTable(): Promise<void> {
    await createTableIdempotently(this.#runner, this.#statements.createTable);
  }

  /**
   * The same storage bound to `client`, the connection your transaction runs on (the `PoolClient` you ran `BEGIN` on):
   * a checkpoint written through it commits or rolls back with everything else in that transaction. On a refusal it
   * throws `CheckpointWriteConditionNotFulfilledError`; roll the transaction back, so a zombie's other writes vanish with
   * its checkpoint. Once `client` is released to the pool this storage was built over, every statement of the bound
   * storage is refused with an `Error`: its transaction is over, and the statement would otherwise commit on its own.
   * Its conditional writes wait for no standby: your commit is still to come. Call {@link waitForStandbys} after it.
   * @throws TypeError for a `pg.Pool`, whose statements would each run on any connection, outside your transaction.
   */
  withinTransaction(client: PostgresClient): PostgresCheckpointStorage {
    const runner = this.#runner.forTransaction(client);
    const bound = new PostgresCheckpointStorage(client, this.#options);
    bound.#runner = runner;
    bound.recordAs(this);
    return bound;
  }

  /**
   * On a storage bound by {@link withinTransaction}, after your `COMMIT` (before or after `client.release()`): waits
   * until the standbys `waitForStandbys` asks for have that commit, as a write outside a transaction waits before it
   * resolves. Resolves at once when no conditional write went through the binding, or under `waitForStandbys: false`.
   * @throws CheckpointWriteNotReplicatedError (as a rejection) naming the first conditional write made through the
   * binding, when the standbys did not confirm the commit within `waitForStandbysTimeoutMs`.
   */
  async waitForStandbys(): Promise<void> {
    await this.#runner.confirmCommitted();
  }

  async read(subscriptionId: string): Promise<Checkpoint | undefined> {
    this.assertSubscriptionId(subscriptionId);
    const { rows } = await this.#runner.query(this.#statements.read, [subscriptionId]);
    const stored = rows[0]?.['checkpoint'];
    return typeof stored === 'string' ? stored : undefined;
  }

  /**
   * One statement. A lost connection or a timeout is passed through as the driver reported it: the statement may or
   * may not have committed.
   */
  protected async write(
    subscriptionId: string,
    checkpoint: Checkpoint,
    condition: CheckpointWriteCondition,
  ): Promise<Checkpoint> {
    assertPostgresText('checkpoint', checkpoint);
    switch (condition.kind) {
      case 'any':
        await this.#runner.write(this.#statements.saveAny, [subscriptionId, checkpoint]);
        return checkpoint;
      case 'notOlderThan': {
        const [written, unconfirmed] = await this.#runner.writeToConfirm(this.#statements.saveNotOlderThan, [
          subscriptionId,
          checkpoint,
          String(condition.version),
        ]);
        await this.#runner.refusedUnlessWritten(
          written,
          this.#statements.writeVersion,
          { what: 'subscription', id: subscriptionId },
          condition,
        );
        if (unconfirmed) {
          await this.#runner.confirmWrite(subscriptionId, `notOlderThan(${condition.version})`);
        }
        return checkpoint;
      }
      case 'ifAbsent': {
        const [{ rows }, unconfirmed] = await this.#runner.writeToConfirm(this.#statements.saveIfAbsent, [
          subscriptionId,
          checkpoint,
        ]);
        if (rows[0]?.['accepted'] !== true) {
          throw new CheckpointWriteConditionNotFulfilledError(
            subscriptionId,
            condition,
            this.#runner.version(rows[0]?.['stored_version']),
          );
        }
        if (unconfirmed) {
          await this.#runner.confirmWrite(subscriptionId, 'ifAbsent()');
        }
        return checkpoint;
      }
    }
  }

  /** Raises the stored version to `version` in one statement that never touches the checkpoint. */
  protected async raiseWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    const [written, unconfirmed] = await this.#runner.writeToConfirm(this.#statements.advanceWriteVersion, [
      subscriptionId,
      String(version),
    ]);
    const stored = this.#runner.returnedVersion(written);
    if (stored !== String(version)) {
      throw new CheckpointWriteConditionNotFulfilledError(
        subscriptionId,
        CheckpointWriteCondition.notOlderThan(version),
        this.#runner.version(stored),
      );
    }
    if (unconfirmed) {
      await this.#runner.confirmWrite(subscriptionId, `advanceWriteVersion(${version})`);
    }
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    this.assertSubscriptionId(subscriptionId);
    const { rows } = await this.#runner.query(this.#statements.writeVersion, [subscriptionId]);
    return this.#runner.version(rows[0]?.['version']);
  }

  /** Deletes the row: checkpoint and version together. */
  async delete(subscriptionId: string): Promise<void> {
    this.assertSubscriptionId(subscriptionId);
    await this.#runner.write(this.#statements.delete, [subscriptionId]);
  }

  /**
   * Deletes the checkpoint and keeps the version as the fence, in one statement: a row with a version keeps it with a
   * NULL checkpoint (ADR 0801), so `read` answers `undefined`, `ifAbsent()` is accepted and `notOlderThan` is still
   * judged against it; a row with no version fences nothing and is deleted. What the operator's `reset` leaves (ADR 1004).
   */
  async deleteCheckpointKeepingVersion(subscriptionId: string): Promise<void> {
    this.assertSubscriptionId(subscriptionId);
    await this.#runner.write(this.#statements.deleteCheckpointKeepingVersion, [subscriptionId]);
  }

  /**
   * Throws `TypeError` for an id this storage cannot store: not a string of well-formed UTF-16, or holding NUL, which
   * PostgreSQL text cannot store. Every method checks it before sending anything; `DurableSubscription.subscribe` too.
   */
  override assertSubscriptionId(subscriptionId: string): void {
    super.assertSubscriptionId(subscriptionId);
    assertPostgresText('subscriptionId', subscriptionId);
  }
}
