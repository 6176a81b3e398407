import type { LeaseStore } from '../leases/lease-store.js';
import type { PostgresClient } from './postgres-client.js';
import { createTableIdempotently } from './postgres-create-table.js';
import type { QualifiedTableName } from './postgres-identifiers.js';
import { leaseStatements, type LeaseStatements } from './postgres-lease-statements.js';
import { parseStoredInteger } from './postgres-stored-integer.js';
import { PostgresStatementRunner } from './postgres-statement-runner.js';
import { assertPostgresText } from './postgres-text.js';

/** Leases and their token counters in one PostgreSQL table; each method is one statement, with no session state. */
export class PostgresLeaseStore implements LeaseStore {
  readonly #statements: LeaseStatements;
  readonly #runner: PostgresStatementRunner;

  constructor(client: PostgresClient, table: QualifiedTableName, tableName: string) {
    this.#statements = leaseStatements(table, tableName);
    this.#runner = new PostgresStatementRunner(client, {
      className: 'PostgresLeaseStrategy',
      instanceName: 'strategy',
      tableDisplay: table.display,
      schema: table.schema,
    });
  }

  get createTableSql(): string {
    return this.#statements.createTable;
  }

  async createTable(): Promise<void> {
    await createTableIdempotently(this.#runner, this.#statements.createTable);
  }

  async acquire(subscriptionId: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined> {
    const { rows } = await this.#runner.query(this.#statements.acquire, [subscriptionId, owner, String(leaseTimeMs)]);
    return parseStoredInteger(rows[0]?.['token'], `the token column of ${this.#runner.tableDisplay}`);
  }

  async refresh(subscriptionId: string, owner: string, token: bigint, leaseTimeMs: number): Promise<boolean> {
    const { rowCount } = await this.#runner.query(this.#statements.refresh, [
      subscriptionId,
      owner,
      String(token),
      String(leaseTimeMs),
    ]);
    return rowCount === 1;
  }

  async release(subscriptionId: string, owner: string, token: bigint): Promise<void> {
    await this.#runner.query(this.#statements.release, [subscriptionId, owner, String(token)]);
  }

  /**
   * One statement that raises the token counter of `subscriptionId` to at least `version` (`GREATEST`, so never
   * lower); the next grant mints above it. The counter is also the holder's token, so a lease held with a token below
   * the new floor is freed rather than kept (ADR 0803): its holder's writes would be refused anyway.
   * @throws TypeError for an id holding NUL, which PostgreSQL text cannot store, before anything is sent.
   */
  async raiseFencingTokenAbove(subscriptionId: string, version: bigint): Promise<void> {
    assertPostgresText('subscriptionId', subscriptionId);
    await this.#runner.query(this.#statements.raiseFencingTokenAbove, [subscriptionId, String(version)]);
  }
}
