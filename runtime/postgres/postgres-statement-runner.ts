import type { NotOlderThanWriteCondition } from '../checkpoint-write-condition.js';
import { quoteText } from '../describe-value.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
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
  /** The driver's error, explained (a missing table says what to run); made once, as every statement passes it on. */
  readonly #explain = (error: unknown): never => explainPostgresError(error, this.#hint);

  /** For a runner bound by `withinTransaction`: whether its client went back to the pool since. */
  readonly #released: (() => boolean) | undefined;

  constructor(client: PostgresClient, hint: MissingTableHint, released?: () => boolean) {
    this.#client = client;
    this.#hint = hint;
    this.#oneConnection = !isPool(client);
    this.#released = released;
  }

  /**
   * A runner for `client`, the connection the caller's transaction runs on, for a store's `withinTransaction(client)`.
   * When this runner's client is the pool `client` came from, every statement is refused once `client` is released.
   * @throws TypeError for a `pg.Pool`, whose statements would each run on any connection, outside the transaction.
   */
  forTransaction(client: PostgresClient): PostgresStatementRunner {
    if (isPool(client)) {
      throw new TypeError(
        'withinTransaction(client) needs the client your transaction runs on (const client = await pool.connect(); ' +
          "await client.query('BEGIN')), not the pool: each statement sent to a pool may run on another connection, " +
          'outside your transaction.',
      );
    }
    return new PostgresStatementRunner(
      client,
      this.#hint,
      isPool(this.#client) ? watchRelease(this.#client, client) : undefined,
    );
  }

  /** The table's name for messages: `schema.table` or `table`. */
  get tableDisplay(): string {
    return this.#hint.tableDisplay;
  }

  /** Sends one statement; a lost connection or a timeout is rethrown exactly as the driver reported it. */
  query(text: string, values: readonly unknown[]): Promise<PostgresQueryResult> {
    if (!this.#oneConnection) {
      return this.#send(text, values);
    }
    // Judged when the statement goes out, after those queued before it: a release in between refuses it too.
    const result = (lastOnConnection.get(this.#client) ?? Promise.resolve()).then(() => {
      this.#refuseWhenReleased();
      return this.#send(text, values);
    });
    lastOnConnection.set(
      this.#client,
      result.catch(() => undefined),
    );
    return result;
  }

  /**
   * @throws Error once the client of a `withinTransaction` binding went back to the pool: its transaction is over, and
   * the statement would run on its own, committed at once, maybe on a connection the pool lent to someone else.
   */
  #refuseWhenReleased(): void {
    if (this.#released?.() === true) {
      const { className, instanceName } = this.#hint;
      throw new Error(
        `${className}.withinTransaction(client) (table ${this.#hint.tableDisplay}) refuses to run a statement: its client ` +
          'was released to the pool (client.release()), so the transaction it was bound to is over, and the statement ' +
          'would run on its own, committed at once, on a connection the pool may have lent to someone else. Bind the ' +
          `${instanceName} to a client inside an open transaction (withinTransaction(client) after BEGIN, before ` +
          `client.release()), or write outside a transaction through the ${instanceName} built over the pool.`,
      );
    }
  }

  /**
   * Sends one statement now. Every write of a pool comes here, so it adds one `then` to the driver's promise rather
   * than an async function and a closure per call; a driver that throws instead of rejecting is explained alike.
   */
  #send(text: string, values: readonly unknown[]): Promise<PostgresQueryResult> {
    try {
      // Promise.resolve returns a driver's own promise as it is, and takes any thenable as await did.
      return Promise.resolve(this.#client.query(text, values)).then(undefined, this.#explain);
    } catch (error) {
      return this.#explainLater(error);
    }
  }

  /** A driver's synchronous throw, explained as a rejection, as the awaited promise of an async method would be. */
  async #explainLater(error: unknown): Promise<never> {
    return explainPostgresError(error, this.#hint);
  }

  /**
   * Whether a conditional upsert wrote its row (row count 1) or its condition refused it (0).
   * @throws Error for any other count, or none: a rule or trigger rewrote the statement, or the client reports no
   * row counts, so the outcome is unknown.
   */
  wroteOneRow({ rowCount }: PostgresQueryResult): boolean {
    if (rowCount === 1 || rowCount === 0) {
      return rowCount === 1;
    }
    throw new Error(
      `A conditional write to ${this.#hint.tableDisplay} reported ${String(rowCount)} rows written instead of 0 or 1: ` +
        'a rule or trigger on the table is rewriting the statement, or the client does not report row counts (pass a ' +
        'node-postgres Pool, Client or PoolClient). The write may or may not have happened.',
    );
  }

  /**
   * Resolves when a `notOlderThan` upsert wrote its row; when its condition refused it, rejects with the refusal,
   * carrying the stored version {@link versionThatRefused} reads (ADR 0804). Both PostgreSQL stores judge their fenced
   * writes here.
   */
  async refusedUnlessWritten(
    written: PostgresQueryResult,
    versionStatement: string,
    key: { readonly what: string; readonly id: string },
    condition: NotOlderThanWriteCondition,
  ): Promise<void> {
    if (this.wroteOneRow(written)) {
      return;
    }
    throw new CheckpointWriteConditionNotFulfilledError(
      key.id,
      condition,
      await this.versionThatRefused(versionStatement, key, condition.version),
    );
  }

  /**
   * The stored version behind a `notOlderThan(refused)` write that wrote no row, read by `versionStatement` ($1 the
   * key, answering `version`) sent after it. It is the version that refused the write or a newer one, never an older
   * one: under READ COMMITTED the read's snapshot is taken after the refusal, which judged the newest committed row;
   * under REPEATABLE READ or SERIALIZABLE, `ON CONFLICT DO UPDATE` fails with a serialization error instead of judging
   * a row its snapshot cannot see. Only refused writes (a zombie's) pay this second round trip (ADR 0804).
   * @throws Error when no version above `refused` is stored: a trigger suppressed the write, or the row was deleted
   * since, so the write's outcome cannot be told.
   */
  async versionThatRefused(
    versionStatement: string,
    key: { readonly what: string; readonly id: string },
    refused: bigint,
  ): Promise<bigint> {
    const { rows } = await this.query(versionStatement, [key.id]);
    const stored = this.version(rows[0]?.['version']);
    if (stored === undefined || stored <= refused) {
      throw new Error(
        `A notOlderThan(${refused}) write to table ${this.#hint.tableDisplay} for ${key.what} ${quoteText(key.id)} ` +
          `wrote no row, yet the stored version is ${stored ?? 'gone'}, which would not refuse it: a trigger on the ` +
          'table suppressed the write, or the row was deleted meanwhile. The write may or may not have happened.',
      );
    }
    return stored;
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

/**
 * How many times each client went back to each pool, as the pool reports it through its documented `release` event
 * (`pool.on('release', (error, client) => …)`, pg 8.10 and later). One listener a pool, added by the first binding
 * to one of its clients; pools and clients are held weakly.
 */
const releasesByPool = new WeakMap<object, WeakMap<object, number>>();

/**
 * A check that answers whether `client` was released to `pool` since this call; `undefined` when `pool` reports no
 * releases (it has no `on`: it is not a `pg.Pool`). A pg older than 8.10 never emits the event, so there the check
 * never answers true.
 */
function watchRelease(pool: PostgresClient, client: PostgresClient): (() => boolean) | undefined {
  const on = (pool as { on?: unknown }).on;
  if (typeof on !== 'function') {
    return undefined;
  }
  let releases = releasesByPool.get(pool);
  if (releases === undefined) {
    const counts = new WeakMap<object, number>();
    (on as (event: string, listener: (error: unknown, released: unknown) => void) => unknown).call(
      pool,
      'release',
      (_error, released) => {
        if (typeof released === 'object' && released !== null) {
          counts.set(released, (counts.get(released) ?? 0) + 1);
        }
      },
    );
    releasesByPool.set(pool, counts);
    releases = counts;
  }
  const counts = releases;
  const atBinding = counts.get(client) ?? 0;
  return () => (counts.get(client) ?? 0) !== atBinding;
}
