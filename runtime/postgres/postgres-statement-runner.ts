import type { PostgresClient, PostgresQueryResult } from './postgres-client.js';
import { explainPostgresError, type MissingTableHint } from './postgres-errors.js';
import { parseStoredInteger } from './postgres-stored-integer.js';

/**
 * The last statement sent on each single connection (a `pg.Client`, a `PoolClient`), settled or not, across every
 * store and strategy sharing it: node-postgres deprecates (and pg 9 drops) queueing a query on a client that is still
 * running one, so statements on one connection go out one after another.
 */
const lastOnConnection = new WeakMap<PostgresClient, Promise<unknown>>();

/**
 * Sends a store's statements through the caller's client, one self-contained statement a call, and turns a missing
 * table into an error that says what to run. A pool's statements go out at once, each on a connection of its own; on
 * any other client (one connection: a `pg.Client`, the `PoolClient` of a transaction) they go out one after another.
 * Shared by every PostgreSQL store of this folder.
 */
export class PostgresStatementRunner {
  readonly #client: PostgresClient;
  readonly #hint: MissingTableHint;
  /** Whether `#client` is one connection, whose statements must not overlap. */
  readonly #oneConnection: boolean;

  constructor(client: PostgresClient, hint: MissingTableHint) {
    this.#client = client;
    this.#hint = hint;
    this.#oneConnection = !isPool(client);
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
    return new PostgresStatementRunner(client, hint);
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
    if (!this.#oneConnection) {
      return send();
    }
    const result = (lastOnConnection.get(this.#client) ?? Promise.resolve()).then(send);
    lastOnConnection.set(
      this.#client,
      result.catch(() => undefined),
    );
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
