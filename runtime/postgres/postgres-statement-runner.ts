import type { PostgresClient, PostgresQueryResult } from './postgres-client.js';
import { explainPostgresError, type MissingTableHint } from './postgres-errors.js';
import { parseStoredInteger } from './postgres-stored-integer.js';

/**
 * Sends a store's statements through the caller's client, one self-contained statement a call, and turns a missing
 * table into an error that says what to run. Bound to one transaction's connection ({@link forTransaction}), it sends
 * them one after another, because node-postgres deprecates (and pg 9 drops) queueing a query on a client that is still
 * running one. Shared by every PostgreSQL store of this folder.
 */
export class PostgresStatementRunner {
  readonly #client: PostgresClient;
  readonly #hint: MissingTableHint;
  /** Set on a runner bound to one transaction's connection: the last statement sent, settled or not. */
  #oneConnection: Promise<unknown> | undefined;

  constructor(client: PostgresClient, hint: MissingTableHint) {
    this.#client = client;
    this.#hint = hint;
  }

  /**
   * A runner for `client`, the connection the caller's transaction runs on, for a store's `withinTransaction(client)`.
   * @throws TypeError for a `pg.Pool`, whose statements would each run on any connection, outside the transaction.
   */
  static forTransaction(client: PostgresClient, hint: MissingTableHint): PostgresStatementRunner {
    if (isPool(client)) {
      throw new TypeError(
        'withinTransaction(client) needs the client your transaction runs on (const client = await pool.connect(); ' +
          "await client.query('BEGIN')), not the pool: each statement sent to a pool may run on another connection, " +
          'outside your transaction.',
      );
    }
    const runner = new PostgresStatementRunner(client, hint);
    runner.#oneConnection = Promise.resolve();
    return runner;
  }

  /** The table's name for messages: `schema.table` or `table`. */
  get tableDisplay(): string {
    return this.#hint.tableDisplay;
  }

  /** Sends one statement; a lost connection or a timeout is rethrown exactly as the driver reported it. */
  query(text: string, values: readonly unknown[]): Promise<PostgresQueryResult> {
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

  /**
   * The `version` a fenced write returned (`RETURNING version::text`); an `INSERT … ON CONFLICT DO UPDATE` always
   * returns its row, so anything but one row means a rule or trigger rewrote the statement.
   */
  returnedVersion({ rows }: PostgresQueryResult): unknown {
    if (rows.length !== 1) {
      throw new Error(
        `A write to ${this.#hint.tableDisplay} returned ${rows.length} rows instead of 1; a rule or trigger on the table is ` +
          'rewriting the statement. The write may or may not have happened.',
      );
    }
    return rows[0]?.['version'];
  }

  /** A version column read back as `version::text`, as an exact bigint; `undefined` for NULL or no row. */
  version(stored: unknown): bigint | undefined {
    return parseStoredInteger(stored, `the version column of ${this.#hint.tableDisplay}`);
  }
}

/** A `pg.Pool` (or a pool shaped like it): it lends a different connection to each statement. */
function isPool(client: PostgresClient): boolean {
  return 'totalCount' in client && 'idleCount' in client && 'connect' in client;
}
