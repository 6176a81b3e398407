import {
  defaultLeaseTimeMs,
  LeaseKeepingStrategy,
  type LeaseKeepingStrategyOptions,
} from '../leases/lease-keeping-strategy.js';
import { assertPostgresClient, type PostgresClient, type PostgresTableOptions } from './postgres-client.js';
import { qualifiedTableName } from './postgres-identifiers.js';
import { leaseStatements } from './postgres-lease-statements.js';
import { PostgresLeaseStore } from './postgres-lease-store.js';
import { assertPostgresText } from './postgres-text.js';
import { resolveWaitForStandbys, type WaitForStandbysOption } from './wait-for-standbys.js';

/**
 * Options of {@link PostgresLeaseStrategy}: the lease time, the clock, the table (`checkpoint_fencing_leases` by
 * default), and how grants wait for the standbys.
 */
export interface PostgresLeaseStrategyOptions extends LeaseKeepingStrategyOptions, PostgresTableOptions {
  /**
   * After minting a token, wait until standbys have written it; a token not on them in time is handed back unused, so
   * a failover to a standby without it cannot mint it again for someone else. `'auto'` (the default) waits for one
   * standby while the primary streams to any (and for the synchronous ones `synchronous_standby_names` asks for), at
   * no cost on a primary without standbys; a number waits for that many; `false` never waits (unsafe across
   * failovers). Needs `pg_read_all_stats` (e.g. `pg_monitor`) where standbys stream. doc/postgres.md, ADR 0806.
   */
  readonly waitForStandbys?: WaitForStandbysOption;
  /** How long a grant waits for the standbys: a tenth of the lease time by default, at most 500 ms. */
  readonly waitForStandbysTimeoutMs?: number;
}

/** The table `PostgresLeaseStrategy` uses unless told otherwise. */
export const defaultLeaseTable = 'checkpoint_fencing_leases';

/**
 * A competing-consumer strategy whose leases live in a PostgreSQL table, one row per subscription: the holder, its
 * fencing token and the expiry by the database clock. Acquiring mints the token in the same statement; refresh and
 * release are conditional on holder and token; release never deletes the row, so tokens never reset. No advisory
 * locks, no session settings: it works behind PgBouncer or RDS Proxy in transaction mode. The caller owns the client
 * and ends it after `shutdown()`.
 */
export class PostgresLeaseStrategy extends LeaseKeepingStrategy {
  readonly #store: PostgresLeaseStore;

  /**
   * @throws TypeError for a client without `query` or a bad `table`/`schema`; RangeError for a bad lease time or
   * `waitForStandbys`.
   */
  constructor(client: PostgresClient, options: PostgresLeaseStrategyOptions = {}) {
    assertPostgresClient('PostgresLeaseStrategy', client);
    const tableName = options.table ?? defaultLeaseTable;
    const store = new PostgresLeaseStore(
      client,
      qualifiedTableName('PostgresLeaseStrategy options', tableName, options.schema),
      tableName,
      resolveWaitForStandbys(
        options.waitForStandbys,
        options.waitForStandbysTimeoutMs,
        // A grant's wait counts against the lease it grants (hasLock is measured from when the acquire was sent).
        Math.max(1, Math.min(500, Math.floor((options.leaseTimeMs ?? defaultLeaseTimeMs) / 10))),
        'PostgresLeaseStrategy',
      ),
    );
    super(store, options);
    this.#store = store;
  }

  /**
   * The `CREATE TABLE IF NOT EXISTS` statement of the lease table these options name, for your migrations; idempotent.
   * @throws TypeError for a `table`/`schema` that is not a plain identifier.
   */
  static createTableSql(options: PostgresTableOptions = {}): string {
    const tableName = options.table ?? defaultLeaseTable;
    return leaseStatements(qualifiedTableName('PostgresLeaseStrategy options', tableName, options.schema), tableName)
      .createTable;
  }

  /** Runs {@link PostgresLeaseStrategy.createTableSql}; idempotent, also when several processes run it at once. */
  async createTable(): Promise<void> {
    await this.#store.createTable();
  }

  /**
   * @throws TypeError (as a rejection) for an id holding NUL, which PostgreSQL text cannot store, before anything is
   * sent, besides the contract's own checks (`runtime/subscription-id.ts`).
   */
  override async register(subscriptionId: string, subscriberId: string): Promise<boolean> {
    if (typeof subscriptionId === 'string') {
      this.assertSubscriptionId(subscriptionId);
    }
    if (typeof subscriberId === 'string') {
      this.assertSubscriberId(subscriberId);
    }
    return super.register(subscriptionId, subscriberId);
  }

  /** Throws `TypeError` for a subscription id holding NUL, which PostgreSQL text cannot store. */
  assertSubscriptionId(subscriptionId: string): void {
    assertPostgresText('subscriptionId', subscriptionId);
  }

  /** Throws `TypeError` for a subscriber id holding NUL, which PostgreSQL text cannot store. */
  assertSubscriberId(subscriberId: string): void {
    assertPostgresText('subscriberId', subscriberId);
  }
}
