import type { LeaseStore } from '../leases/lease-store.js';
import type { PostgresClient, PostgresQueryResult } from './postgres-client.js';
import { createTableIdempotently } from './postgres-create-table.js';
import { explainPostgresError, type MissingTableHint } from './postgres-errors.js';
import type { QualifiedTableName } from './postgres-identifiers.js';
import { leaseStatements, type LeaseStatements } from './postgres-lease-statements.js';
import { parseStoredInteger } from './postgres-stored-integer.js';

/** Leases and their token counters in one PostgreSQL table; each method is one statement, with no session state. */
export class PostgresLeaseStore implements LeaseStore {
  readonly #client: PostgresClient;
  readonly #statements: LeaseStatements;
  readonly #hint: MissingTableHint;

  constructor(client: PostgresClient, table: QualifiedTableName, tableName: string) {
    this.#client = client;
    this.#statements = leaseStatements(table, tableName);
    this.#hint = { className: 'PostgresLeaseStrategy', instanceName: 'strategy', tableDisplay: table.display };
  }

  get createTableSql(): string {
    return this.#statements.createTable;
  }

  async createTable(): Promise<void> {
    await createTableIdempotently(this.#client, this.#statements.createTable);
  }

  async acquire(subscriptionId: string, owner: string, leaseTimeMs: number): Promise<bigint | undefined> {
    const { rows } = await this.#query(this.#statements.acquire, [subscriptionId, owner, String(leaseTimeMs)]);
    return parseStoredInteger(rows[0]?.['token'], `the token column of ${this.#hint.tableDisplay}`);
  }

  async refresh(subscriptionId: string, owner: string, token: bigint, leaseTimeMs: number): Promise<boolean> {
    const { rowCount } = await this.#query(this.#statements.refresh, [
      subscriptionId,
      owner,
      String(token),
      String(leaseTimeMs),
    ]);
    return rowCount === 1;
  }

  async release(subscriptionId: string, owner: string, token: bigint): Promise<void> {
    await this.#query(this.#statements.release, [subscriptionId, owner, String(token)]);
  }

  /** Raises the token counter of `subscriptionId` to at least `version` in one statement; never lowers it. */
  async raiseTokenFloor(subscriptionId: string, version: bigint): Promise<void> {
    await this.#query(this.#statements.raiseTokenFloor, [subscriptionId, String(version)]);
  }

  async #query(text: string, values: readonly unknown[]): Promise<PostgresQueryResult> {
    try {
      return await this.#client.query(text, values);
    } catch (error) {
      return explainPostgresError(error, this.#hint);
    }
  }
}
