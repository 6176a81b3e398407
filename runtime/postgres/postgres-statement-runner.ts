import type { NotOlderThanWriteCondition } from '../checkpoint-write-condition.js';
import { quoteText } from '../describe-value.js';
import { CheckpointWriteConditionNotFulfilledError } from '../errors/checkpoint-write-condition-not-fulfilled-error.js';
import { CheckpointWriteNotReplicatedError } from '../errors/checkpoint-write-not-replicated-error.js';
import type { PostgresClient, PostgresQueryResult } from './postgres-client.js';
import { explainPostgresError, type MissingTableHint } from './postgres-errors.js';
import { parseStoredInteger } from './postgres-stored-integer.js';
import { StandbyConfirmations, type StandbyShortfall } from './standby-confirmations.js';
import { trippedGuard, type StatementForm, type StatementInEachForm } from './standby-statement-forms.js';
import type { WaitForStandbys } from './wait-for-standbys.js';

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
 * Under `waitForStandbys` it picks the form each write goes out in and waits for the standbys (ADR 0806). Shared by
 * every PostgreSQL store of this folder.
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
  /** `waitForStandbys` resolved; `undefined` for `false`. */
  readonly #wait: WaitForStandbys | undefined;
  /** The waits of the client the store was built over, shared with every store over it; set with {@link #wait}. */
  readonly #confirmations: StandbyConfirmations | undefined;
  /** Bound by `withinTransaction`: the commit is the caller's, so its writes go out `unchecked` and wait for nothing. */
  readonly #inTransaction: boolean;
  /** In a transaction: the first conditional write to confirm once the caller committed ({@link confirmCommitted}). */
  #awaitingCommit: { readonly subscriptionId: string; readonly operation: string } | undefined;

  constructor(
    client: PostgresClient,
    hint: MissingTableHint,
    wait: WaitForStandbys | undefined,
    bound?: {
      readonly released: (() => boolean) | undefined;
      readonly confirmations: StandbyConfirmations | undefined;
    },
  ) {
    this.#client = client;
    this.#hint = hint;
    this.#oneConnection = !isPool(client);
    this.#released = bound?.released;
    this.#wait = wait;
    this.#inTransaction = bound !== undefined;
    this.#confirmations =
      bound?.confirmations ??
      (wait === undefined ? undefined : StandbyConfirmations.of(client, (text, values) => this.query(text, values)));
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
    return new PostgresStatementRunner(client, this.#hint, this.#wait, {
      released: isPool(this.#client) ? watchRelease(this.#client, client) : undefined,
      confirmations: this.#confirmations,
    });
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
   * Sends a write nothing waits for (a refresh, a release, `any()`, a delete). While standbys are expected it commits
   * with `synchronous_commit = local`, so a synchronous standby that lags never holds it; otherwise as written.
   */
  write(statement: StatementInEachForm, values: readonly unknown[]): Promise<PostgresQueryResult> {
    return this.query(statement[this.#formToConfirm() === 'local' ? 'local' : 'unchecked'], values);
  }

  /**
   * Sends a write the standbys must confirm (a grant, a token raise, a conditional write), and resolves to its result
   * and whether it still needs confirming ({@link confirmOnStandbys}, {@link confirmWrite}): not under
   * `waitForStandbys: false`, nor when it went out `guarded` (no standby streamed as it ran). A guard that trips wrote
   * nothing: the write goes out again `local`, to be waited for. Inside a transaction it goes out `unchecked`.
   */
  async writeToConfirm(
    statement: StatementInEachForm,
    values: readonly unknown[],
  ): Promise<[result: PostgresQueryResult, unconfirmed: boolean]> {
    const form = this.#formToConfirm();
    try {
      return [await this.query(statement[form], values), form !== 'guarded' && this.#wait !== undefined];
    } catch (error) {
      if (form !== 'guarded' || !trippedGuard(error)) {
        throw error;
      }
      (this.#confirmations as StandbyConfirmations).expectsStandbys = true;
      return [await this.query(statement.local, values), true];
    }
  }

  #formToConfirm(): StatementForm {
    if (this.#wait === undefined || this.#inTransaction) {
      return 'unchecked';
    }
    return this.#wait.standbys === 'auto' && this.#confirmations?.expectsStandbys !== true ? 'guarded' : 'local';
  }

  /**
   * Waits until the standbys `waitForStandbys` asks for have every commit acknowledged before the call; resolves to
   * `undefined` then, to the shortfall once its timeout passed (or a poll failed), and at once under `false`.
   */
  async confirmOnStandbys(): Promise<StandbyShortfall | undefined> {
    return this.#wait === undefined ? undefined : this.#confirmations?.confirm(this.#wait);
  }

  /**
   * {@link confirmOnStandbys} for a checkpoint write {@link writeToConfirm} left unconfirmed. Inside a transaction the
   * commit is the caller's, still to come: the write is remembered for {@link confirmCommitted} instead.
   * @throws CheckpointWriteNotReplicatedError naming `subscriptionId` and `operation` when it fell short.
   */
  async confirmWrite(subscriptionId: string, operation: string): Promise<void> {
    if (this.#inTransaction) {
      this.#awaitingCommit ??= { subscriptionId, operation };
      return;
    }
    await this.#confirmWritten(subscriptionId, operation);
  }

  /**
   * For a runner bound by `withinTransaction`, once the caller committed: waits for the standbys as
   * {@link confirmWrite} would have for the first conditional write made through it; at once when there was none. The
   * polls go through the client the store was built over, so the transaction's client may have been released.
   * @throws CheckpointWriteNotReplicatedError naming that write when the standbys fell short.
   */
  async confirmCommitted(): Promise<void> {
    const write = this.#awaitingCommit;
    if (write !== undefined) {
      await this.#confirmWritten(write.subscriptionId, write.operation);
      this.#awaitingCommit = undefined;
    }
  }

  async #confirmWritten(subscriptionId: string, operation: string): Promise<void> {
    const shortfall = await this.confirmOnStandbys();
    if (shortfall !== undefined) {
      throw new CheckpointWriteNotReplicatedError({
        subscriptionId,
        operation,
        replicas: shortfall.required,
        acknowledged: shortfall.cause === undefined ? shortfall.acknowledged : undefined,
        timeoutMs: this.#wait?.timeoutMs ?? 0,
        waitedFor: 'standbys',
        ...(shortfall.cause === undefined ? {} : { cause: shortfall.cause }),
      });
    }
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
