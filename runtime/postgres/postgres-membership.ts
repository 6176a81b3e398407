import { membershipView, ownedFromText, type MembershipStore } from '../partitions/membership-store.js';
import { StoredMembership, type MembershipOptions } from '../partitions/stored-membership.js';
import { assertPostgresClient, type PostgresClient, type PostgresTableOptions } from './postgres-client.js';
import { createTableIdempotently } from './postgres-create-table.js';
import { qualifiedTableName } from './postgres-identifiers.js';
import { membershipStatements, type MembershipStatements } from './postgres-membership-statements.js';
import { PostgresStatementRunner } from './postgres-statement-runner.js';
import { assertPostgresText } from './postgres-text.js';

/** The table `PostgresMembership` keeps its members in unless `table` says otherwise. */
export const defaultMembershipTable = 'checkpoint_fencing_members';

/** Options of {@link PostgresMembership}: the member time and the table ({@link defaultMembershipTable} by default). */
export interface PostgresMembershipOptions extends MembershipOptions, PostgresTableOptions {}

/**
 * The members of each partitioned subscription in a PostgreSQL table: a row per member and one recording the
 * subscription's partition count; every step is one statement judged on the database clock, with no session state,
 * so it works behind PgBouncer in transaction mode. The caller owns the client and ends it.
 */
export class PostgresMembership extends StoredMembership {
  readonly #createTable: () => Promise<void>;

  /** @throws TypeError for a client without `query` or a bad `table`/`schema`; RangeError for a bad member time. */
  constructor(client: PostgresClient, options: PostgresMembershipOptions = {}) {
    assertPostgresClient('PostgresMembership', client);
    const [statements, table] = statementsFor(options);
    // Membership only steers which partitions a node asks for; the leases arbitrate, so a row a failover loses
    // costs a rebalance, never safety, and heartbeats wait for no standby.
    const hint = { className: 'PostgresMembership', instanceName: 'membership', tableDisplay: table.display };
    const runner = new PostgresStatementRunner(client, { ...hint, schema: table.schema }, undefined);
    super(postgresMembershipStore(runner, statements), options);
    this.#createTable = () => createTableIdempotently(runner, statements.createTable);
  }

  /** The `CREATE TABLE IF NOT EXISTS` statement of the table these options name, for your migrations; idempotent. */
  static createTableSql(options: PostgresTableOptions = {}): string {
    return statementsFor(options)[0].createTable;
  }

  /** Runs {@link PostgresMembership.createTableSql}; idempotent, also when several processes run it at once. */
  async createTable(): Promise<void> {
    await this.#createTable();
  }
}

function statementsFor(options: PostgresTableOptions): [MembershipStatements, ReturnType<typeof qualifiedTableName>] {
  const { table: tableName = defaultMembershipTable, schema } = options;
  const table = qualifiedTableName('PostgresMembership options', tableName, schema);
  return [membershipStatements(table, tableName), table];
}

function postgresMembershipStore(runner: PostgresStatementRunner, statements: MembershipStatements): MembershipStore {
  return {
    join: async ({ subscription, nodeId, instance }, partitions, memberTimeMs) => {
      assertPostgresText('subscription', subscription);
      assertPostgresText('nodeId', nodeId);
      const recorded = await runner.query(statements.recordPartitions, [subscription, partitions]);
      const storedPartitions = Number(recorded.rows[0]?.['partitions']);
      if (storedPartitions !== partitions) {
        return { joined: false, storedPartitions };
      }
      const [row] = (await runner.query(statements.join, [subscription, nodeId, instance, String(memberTimeMs)])).rows;
      return Number(row?.['joined']) === 1
        ? { joined: true }
        : { joined: false, expiresInMs: Number(row?.['expires_in_ms'] ?? memberTimeMs) };
    },
    heartbeat: async ({ subscription, nodeId, instance }, owned, memberTimeMs) => {
      const values = [subscription, nodeId, instance, String(memberTimeMs), `{${owned.join(',')}}`];
      const { rows } = await runner.query(statements.heartbeat, values);
      const members = rows.map((row) => ({
        nodeId: String(row['node_id']),
        memberForMs: Number(row['member_for_ms']),
        owned: ownedFromText(row['owned']),
      }));
      return membershipView(
        rows.some((row) => row['renewed'] === true),
        members,
      );
    },
    leave: async ({ subscription, nodeId, instance }) => {
      await runner.query(statements.leave, [subscription, nodeId, instance]);
    },
  };
}
