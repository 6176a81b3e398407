import type { Checkpoint } from '../checkpoint.js';
import type { CheckpointStorage } from '../checkpoint-storage.js';
import { CheckpointWriteCondition } from '../checkpoint-write-condition.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { assertSaveArguments, assertSubscriptionId, assertWriteVersion } from '../storage-arguments.js';
import { checkpointStatements, type CheckpointStatements } from './postgres-checkpoint-statements.js';
import {
  assertPostgresClient,
  type PostgresClient,
  type PostgresQueryResult,
  type PostgresTableOptions,
} from './postgres-client.js';
import { createTableIdempotently } from './postgres-create-table.js';
import { explainPostgresError, type MissingTableHint } from './postgres-errors.js';
import { qualifiedTableName } from './postgres-identifiers.js';
import { parseStoredInteger } from './postgres-stored-integer.js';
import { assertPostgresText } from './postgres-text.js';

/** Options of {@link PostgresCheckpointStorage}: the table (`checkpoint_fencing_checkpoints` by default) and its schema. */
export type PostgresCheckpointStorageOptions = PostgresTableOptions;

const defaultTable = 'checkpoint_fencing_checkpoints';

/**
 * A fenced checkpoint storage in a PostgreSQL table, over any node-postgres-shaped client the caller owns (a `Pool`,
 * a `Client`, a `PoolClient`). Every write is one statement that evaluates its condition on the row it locks. It keeps
 * no session state, so it works behind PgBouncer or RDS Proxy in transaction mode. {@link withinTransaction} binds it
 * to the client of the caller's own transaction, so a checkpoint commits or rolls back with the rows it records.
 */
export class PostgresCheckpointStorage implements CheckpointStorage {
  readonly #client: PostgresClient;
  readonly #options: PostgresCheckpointStorageOptions;
  readonly #statements: CheckpointStatements;
  readonly #hint: MissingTableHint;
  /**
   * Set on a storage bound to one transaction's connection: its statements go out one after another, because
   * node-postgres deprecates (and pg 9 drops) queueing a query on a client that is still running one.
   */
  #oneConnection: Promise<unknown> | undefined;

  /** @throws TypeError for a client without `query`, or a `table`/`schema` that is not a plain identifier. */
  constructor(client: PostgresClient, options: PostgresCheckpointStorageOptions = {}) {
    assertPostgresClient('PostgresCheckpointStorage', client);
    const tableName = options.table ?? defaultTable;
    const table = qualifiedTableName('PostgresCheckpointStorage options', tableName, options.schema);
    this.#client = client;
    this.#options = { ...options };
    this.#statements = checkpointStatements(table, tableName);
    this.#hint = { className: 'PostgresCheckpointStorage', instanceName: 'storage', tableDisplay: table.display };
  }

  /**
   * The `CREATE TABLE IF NOT EXISTS` statement for the table these options name, for your migrations; idempotent.
   * @throws TypeError for a `table`/`schema` that is not a plain identifier.
   */
  static createTableSql(options: PostgresCheckpointStorageOptions = {}): string {
    const tableName = options.table ?? defaultTable;
    return checkpointStatements(
      qualifiedTableName('PostgresCheckpointStorage options', tableName, options.schema),
      tableName,
    ).createTable;
  }

  /** Runs {@link PostgresCheckpointStorage.createTableSql}; idempotent, also when several processes run it at once. */
  async createTable(): Promise<void> {
    await createTableIdempotently(this.#client, this.#statements.createTable);
  }

  /**
   * The same storage bound to `client`, the connection your transaction runs on (the `PoolClient` you ran `BEGIN` on):
   * a checkpoint written through it commits or rolls back with everything else in that transaction. On a refusal it
   * throws `CheckpointWriteConditionNotFulfilledError`; roll the transaction back, so a zombie's other writes vanish with
   * its checkpoint. @throws TypeError for a `pg.Pool`, whose statements would each run on any connection, outside your transaction.
   */
  withinTransaction(client: PostgresClient): PostgresCheckpointStorage {
    if (isPool(client)) {
      throw new TypeError(
        'withinTransaction(client) needs the client your transaction runs on (const client = await pool.connect(); ' +
          "await client.query('BEGIN')), not the pool: each statement sent to a pool may run on another connection, " +
          'outside your transaction.',
      );
    }
    const bound = new PostgresCheckpointStorage(client, this.#options);
    bound.#oneConnection = Promise.resolve();
    return bound;
  }

  async read(subscriptionId: string): Promise<Checkpoint | undefined> {
    this.#assertId(subscriptionId);
    const { rows } = await this.#query(this.#statements.read, [subscriptionId]);
    const stored = rows[0]?.['checkpoint'];
    return typeof stored === 'string' ? stored : undefined;
  }

  /**
   * Writes `checkpoint` when `condition` holds, in one statement. A lost connection or a timeout is passed through as
   * the driver reported it: the statement may or may not have committed, so never read it as a refusal.
   */
  async save(subscriptionId: string, checkpoint: Checkpoint, condition: CheckpointWriteCondition): Promise<Checkpoint> {
    assertSaveArguments(subscriptionId, checkpoint, condition);
    assertPostgresText('subscriptionId', subscriptionId);
    assertPostgresText('checkpoint', checkpoint);
    switch (condition.kind) {
      case 'any':
        await this.#query(this.#statements.saveAny, [subscriptionId, checkpoint]);
        return checkpoint;
      case 'notOlderThan': {
        const version = String(condition.version);
        const stored = this.#returnedVersion(
          await this.#query(this.#statements.saveNotOlderThan, [subscriptionId, checkpoint, version]),
        );
        if (stored !== version) {
          throw new CheckpointWriteConditionNotFulfilledError(subscriptionId, condition, this.#version(stored));
        }
        return checkpoint;
      }
      case 'ifAbsent': {
        const { rows } = await this.#query(this.#statements.saveIfAbsent, [subscriptionId, checkpoint]);
        if (rows[0]?.['accepted'] !== true) {
          throw new CheckpointWriteConditionNotFulfilledError(
            subscriptionId,
            condition,
            this.#version(rows[0]?.['stored_version']),
          );
        }
        return checkpoint;
      }
    }
  }

  /** Raises the stored version to `version` in one statement that never touches the checkpoint. */
  async advanceWriteVersion(subscriptionId: string, version: bigint): Promise<void> {
    this.#assertId(subscriptionId);
    assertWriteVersion(version);
    const stored = this.#returnedVersion(
      await this.#query(this.#statements.advanceWriteVersion, [subscriptionId, String(version)]),
    );
    if (stored !== String(version)) {
      throw new CheckpointWriteConditionNotFulfilledError(
        subscriptionId,
        CheckpointWriteCondition.notOlderThan(version),
        this.#version(stored),
      );
    }
  }

  async writeVersion(subscriptionId: string): Promise<bigint | undefined> {
    this.#assertId(subscriptionId);
    const { rows } = await this.#query(this.#statements.writeVersion, [subscriptionId]);
    return this.#version(rows[0]?.['version']);
  }

  /** Deletes the row: checkpoint and version together. */
  async delete(subscriptionId: string): Promise<void> {
    this.#assertId(subscriptionId);
    await this.#query(this.#statements.delete, [subscriptionId]);
  }

  /** True: every condition is evaluated inside the statement that writes. */
  evaluatesWriteConditions(): boolean {
    return true;
  }

  #assertId(subscriptionId: string): void {
    assertSubscriptionId(subscriptionId);
    assertPostgresText('subscriptionId', subscriptionId);
  }

  async #query(text: string, values: readonly unknown[]): Promise<PostgresQueryResult> {
    const send = async (): Promise<PostgresQueryResult> => {
      try {
        return await this.#client.query(text, values);
      } catch (error) {
        return explainPostgresError(error, this.#hint);
      }
    };
    if (this.#oneConnection === undefined) {
      return send();
    }
    const result = this.#oneConnection.then(send);
    this.#oneConnection = result.catch(() => undefined);
    return result;
  }

  /** The `version` a write statement returned; an `INSERT … ON CONFLICT DO UPDATE` always returns its row. */
  #returnedVersion({ rows }: PostgresQueryResult): unknown {
    if (rows.length !== 1) {
      throw new Error(
        `A write to ${this.#hint.tableDisplay} returned ${rows.length} rows instead of 1; a rule or trigger on the table is ` +
          'rewriting the statement. The write may or may not have happened.',
      );
    }
    return rows[0]?.['version'];
  }

  #version(stored: unknown): bigint | undefined {
    return parseStoredInteger(stored, `the version column of ${this.#hint.tableDisplay}`);
  }
}

/** A `pg.Pool` (or a pool shaped like it): it lends a different connection to each statement. */
function isPool(client: PostgresClient): boolean {
  return 'totalCount' in client && 'idleCount' in client && 'connect' in client;
}
