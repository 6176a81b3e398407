import type { MembershipView } from '../partitions/membership.js';
import {
  membershipView,
  ownedFromText,
  type JoinOutcome,
  type MembershipStore,
} from '../partitions/membership-store.js';
import { StoredMembership, type MembershipOptions } from '../partitions/stored-membership.js';
import { assertPostgresClient, type PostgresClient, type PostgresTableOptions } from './postgres-client.js';
import { createTableIdempotently } from './postgres-create-table.js';
import { qualifiedTableName } from './postgres-identifiers.js';
import { membershipStatements, type MembershipStatements } from './postgres-membership-statements.js';
import { PostgresStatementRunner } from './postgres-statement-runner.js';
import { assertPostgresText } from './postgres-text.js';

/** Options of {@link PostgresMembership}: the member time and the table (`checkpoint_fencing_members` by default). */
export interface PostgresMembershipOptions extends MembershipOptions, PostgresTableOptions {}

const defaultTable = 'checkpoint_fencing_members';

/**
 * The members of each partitioned subscription in a PostgreSQL table: a row per member and one recording the
 * subscription's partition count, every step one statement judged on the database clock. No session state, so it
 * works behind PgBouncer in transaction mode. The caller owns the client and ends it.
 */
export class PostgresMembership extends StoredMembership {
  readonly #store: PostgresMembershipStore;

  /** @throws TypeError for a client without `query` or a bad `table`/`schema`; RangeError for a bad member time. */
  constructor(client: PostgresClient, options: PostgresMembershipOptions = {}) {
    assertPostgresClient('PostgresMembership', client);
    const store = new PostgresMembershipStore(client, options);
    super(store, options);
    this.#store = store;
  }

  /** The `CREATE TABLE IF NOT EXISTS` statement of the table these options name, for your migrations; idempotent. */
  static createTableSql(options: PostgresTableOptions = {}): string {
    return statementsFor(options).createTable;
  }

  /** Runs {@link PostgresMembership.createTableSql}; idempotent, also when several processes run it at once. */
  async createTable(): Promise<void> {
    await createTableIdempotently(this.#store.runner, this.#store.statements.createTable);
  }
}

function statementsFor(options: PostgresTableOptions): MembershipStatements {
  const tableName = options.table ?? defaultTable;
  return membershipStatements(qualifiedTableName('PostgresMembership options', tableName, options.schema), tableName);
}

class PostgresMembershipStore implements MembershipStore {
  readonly statements: MembershipStatements;
  readonly runner: PostgresStatementRunner;

  constructor(client: PostgresClient, options: PostgresTableOptions) {
    this.statements = statementsFor(options);
    const { schema, table = defaultTable } = options;
    this.runner = new PostgresStatementRunner(client, {
      className: 'PostgresMembership',
      instanceName: 'membership',
      tableDisplay: schema === undefined ? table : `${schema}.${table}`,
      schema,
    });
  }

  async join(
    subscription: string,
    nodeId: string,
    instance: string,
    partitions: number,
    memberTimeMs: number,
  ): Promise<JoinOutcome> {
    assertPostgresText('subscription', subscription);
    assertPostgresText('nodeId', nodeId);
    const recorded = await this.runner.query(this.statements.recordPartitions, [subscription, partitions]);
    const storedPartitions = Number(recorded.rows[0]?.['partitions']);
    if (storedPartitions !== partitions) {
      return { joined: false, storedPartitions };
    }
    const { rows } = await this.runner.query(this.statements.join, [
      subscription,
      nodeId,
      instance,
      String(memberTimeMs),
    ]);
    return Number(rows[0]?.['joined']) === 1
      ? { joined: true }
      : { joined: false, expiresInMs: Number(rows[0]?.['expires_in_ms'] ?? memberTimeMs) };
  }

  async heartbeat(
    subscription: string,
    nodeId: string,
    instance: string,
    owned: readonly number[],
    memberTimeMs: number,
  ): Promise<MembershipView> {
    const { rows } = await this.runner.query(this.statements.heartbeat, [
      subscription,
      nodeId,
      instance,
      String(memberTimeMs),
      `{${owned.join(',')}}`,
    ]);
    const members = rows.map((row) => ({
      nodeId: String(row['node_id']),
      memberForMs: Number(row['member_for_ms']),
      owned: ownedFromText(row['owned']),
    }));
    return membershipView(
      rows.some((row) => row['renewed'] === true),
      members,
    );
  }

  async leave(subscription: string, nodeId: string, instance: string): Promise<void> {
    await this.runner.query(this.statements.leave, [subscription, nodeId, instance]);
  }
}
