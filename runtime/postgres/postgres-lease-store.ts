import { describeValue } from '../describe-value.js';
import type { HeldLease, LeaseStore } from '../leases/lease-store.js';
import type { PostgresClient } from './postgres-client.js';
import { createTableIdempotently } from './postgres-create-table.js';
import type { QualifiedTableName } from './postgres-identifiers.js';
import { leaseStatements, type LeaseStatements } from './postgres-lease-statements.js';
import { parseStoredInteger } from './postgres-stored-integer.js';
import { PostgresStatementRunner } from './postgres-statement-runner.js';
import { assertPostgresText } from './postgres-text.js';
import type { StandbyShortfall } from './standby-confirmations.js';
import type { WaitForStandbys } from './wait-for-standbys.js';

/**
 * Leases and their token counters in one PostgreSQL table; each method is one statement, with no session state. Under
 * `waitForStandbys` a grant and a token raise are confirmed on the standbys before they count (ADR 0806).
 */
export class PostgresLeaseStore implements LeaseStore {
  readonly #statements: LeaseStatements;
  readonly #runner: PostgresStatementRunner;

  constructor(
    client: PostgresClient,
    table: QualifiedTableName,
    tableName: string,
    waitForStandbys: WaitForStandbys | undefined,
  ) {
    this.#statements = leaseStatements(table, tableName);
    this.#runner = new PostgresStatementRunner(
      client,
      {
        className: 'PostgresLeaseStrategy',
        instanceName: 'strategy',
        tableDisplay: table.display,
        schema: table.schema,
      },
      waitForStandbys,
    );
  }

  get createTableSql(): string {
    return this.#statements.createTable;
  }

  async createTable(): Promise<void> {
    await createTableIdempotently(this.#runner, this.#statements.createTable);
  }

  /**
   * Mints the token in one statement, then waits until the standbys have it: a token not on them in time is handed
   * back unused, since a failover to a standby without it would mint it again for someone else.
   */
  async acquire(subscriptionId: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined> {
    const [{ rows }, unconfirmed] = await this.#runner.writeToConfirm(this.#statements.acquire, [
      subscriptionId,
      owner,
      String(leaseTimeMs),
    ]);
    const token = parseStoredInteger(rows[0]?.['token'], `the token column of ${this.#runner.tableDisplay}`);
    if (token === undefined || !unconfirmed) {
      return token;
    }
    const shortfall = await this.#runner.confirmOnStandbys();
    if (shortfall !== undefined) {
      await this.release(subscriptionId, owner, token);
      throw notConfirmed(
        `Lease of subscription ${JSON.stringify(subscriptionId)} was not taken: token ${token}`,
        shortfall,
        'The strategy tries again',
      );
    }
    return token;
  }

  /** One statement for every lease, over `unnest` of three arrays. */
  async refreshAll(leases: readonly HeldLease[], leaseTimeMs: number): Promise<readonly boolean[]> {
    const { rows } = await this.#runner.write(this.#statements.refreshAll, [
      leases.map((lease) => lease.subscriptionId),
      leases.map((lease) => lease.owner),
      leases.map((lease) => String(lease.token)),
      String(leaseTimeMs),
    ]);
    const renewed = new Set(rows.map((row) => `${String(row['subscription_id'])}\0${String(row['owner'])}`));
    return leases.map(({ subscriptionId, owner }) => renewed.has(`${subscriptionId}\0${owner}`));
  }

  async release(subscriptionId: string, owner: string, token: bigint): Promise<void> {
    await this.#runner.write(this.#statements.release, [subscriptionId, owner, String(token)]);
  }

  /**
   * One statement that raises the token counter of `subscriptionId` to at least `version` (`GREATEST`, so never
   * lower); the next grant mints above it. The counter is also the holder's token, so a lease held with a token below
   * the new floor is freed rather than kept (ADR 0803): its holder's writes would be refused anyway. Confirmed on the
   * standbys like a grant.
   * @throws TypeError for an id holding NUL, which PostgreSQL text cannot store, before anything is sent; Error when
   * the standbys did not confirm the raise in time (it may or may not survive a failover: raise it again).
   */
  async raiseFencingTokenAbove(subscriptionId: string, version: bigint): Promise<void> {
    assertPostgresText('subscriptionId', subscriptionId);
    const [, unconfirmed] = await this.#runner.writeToConfirm(this.#statements.raiseFencingTokenAbove, [
      subscriptionId,
      String(version),
    ]);
    const shortfall = unconfirmed ? await this.#runner.confirmOnStandbys() : undefined;
    if (shortfall !== undefined) {
      throw notConfirmed(
        `The token floor of subscription ${JSON.stringify(subscriptionId)} was raised above ${version} on the primary, but the raise`,
        shortfall,
        'Raise it again once the standbys have caught up',
      );
    }
  }
}

/** The error for a grant or raise the standbys did not confirm: `what` reached too few of them; `next`, what follows. */
function notConfirmed(what: string, { acknowledged, required, cause }: StandbyShortfall, next: string): Error {
  const reached =
    cause === undefined
      ? `reached ${acknowledged ?? 'no'} of the ${required} standby${required === 1 ? '' : 's'} waitForStandbys asks for in time`
      : `could not be confirmed on the standbys (${cause instanceof Error ? cause.message : describeValue(cause)})`;
  return new Error(
    `${what} ${reached}, so a failover could lose it. ${next}; check replication (pg_stat_replication on the ` +
      'primary), or set waitForStandbys to false to take leases without waiting (unsafe on failover).',
    cause === undefined ? undefined : { cause },
  );
}
