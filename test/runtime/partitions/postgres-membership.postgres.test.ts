import { describe, expect, it } from 'vitest';
import { PostgresMembership } from '../../../runtime/index.js';
import { describeMembershipConformance } from '../../../runtime/testing/index.js';
import { freshTableName, pgBouncerForThisFile } from '../../support/postgres/index.js';

// The direct suite uses the file's database on the shared server; the other goes through this file's pgbouncer in
// transaction mode, with fewer server connections than clients, so one node's statements run on different sessions.
const postgres = pgBouncerForThisFile();
const memberTimeMs = 500;

describeMembershipConformance('PostgresMembership', async () => {
  const table = freshTableName('members');
  await new PostgresMembership(postgres.database.pool(), { table }).createTable();
  return { node: () => new PostgresMembership(postgres.database.pool(), { table, memberTimeMs }) };
});

let nodes = 0;
describeMembershipConformance('PostgresMembership through pgbouncer in transaction mode', async () => {
  const table = freshTableName('bouncer_members');
  await new PostgresMembership(postgres.pool(0), { table }).createTable();
  // Nodes alternate between two applications' pools.
  return { node: () => new PostgresMembership(postgres.pool((nodes++ % 2) as 0 | 1), { table, memberTimeMs }) };
});

describe('PostgresMembership tables', () => {
  it('creates its table in a schema, idempotently, also from two nodes at once', async () => {
    const pool = postgres.database.pool();
    await pool.query('CREATE SCHEMA IF NOT EXISTS partitioned');
    const options = { schema: 'partitioned', table: freshTableName('members') };
    await Promise.all([
      new PostgresMembership(pool, options).createTable(),
      new PostgresMembership(pool, options).createTable(),
    ]);
    const member = await new PostgresMembership(pool, options).join('orders', 'node-a', 8);
    expect((await member.heartbeat([1])).members.map((live) => live.owned)).toEqual([[1]]);
    expect(PostgresMembership.createTableSql(options)).toContain(`"partitioned"."${options.table}"`);
  });

  it('says what to run when the table is missing, and sends no statement for a node id holding NUL', async () => {
    const membership = new PostgresMembership(postgres.database.pool(), { table: freshTableName('missing') });
    await expect(membership.join('orders', 'node-a', 8)).rejects.toThrow(/membership\.createTable\(\)/u);
    await expect(membership.join('orders', 'node\0a', 8)).rejects.toThrow(TypeError);
  });
});
