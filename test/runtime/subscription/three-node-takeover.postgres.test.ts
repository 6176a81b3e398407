import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../../runtime/index.js';
import { runThreeNodeTakeover, type TakeoverWorld } from '../../support/leases/three-node-takeover.js';
import { freshTableName, testPool, postgresForThisFile } from '../../support/postgres/index.js';

const leaseTimeMs = 600;
const postgres = postgresForThisFile();
const pools: pg.Pool[] = [];

afterAll(async () => {
  await Promise.all(pools.splice(0).map((pool) => pool.end()));
});

function connect(): pg.Pool {
  const pool = testPool(postgres.server(), { max: 4 });
  pools.push(pool);
  return pool;
}

/** Every node gets its own pool, its own strategy and its own storage, as separate processes would. */
async function postgresWorld(): Promise<TakeoverWorld> {
  const table = freshTableName('takeover_checkpoints');
  const leaseTable = freshTableName('takeover_leases');
  const admin = connect();
  await new PostgresCheckpointStorage(admin, { table }).createTable();
  await new PostgresLeaseStrategy(admin, { table: leaseTable }).createTable();
  return {
    leaseTimeMs,
    writesRecordedInOrder: false,
    strategy: (clock) => new PostgresLeaseStrategy(connect(), { table: leaseTable, leaseTimeMs, clock }),
    storage: () => new PostgresCheckpointStorage(connect(), { table }),
    deleteLease: async (subscriptionId) => {
      const { rowCount } = await admin.query(
        `UPDATE "${leaseTable}" SET owner = NULL, expires_at = NULL WHERE subscription_id = $1 AND owner IS NOT NULL`,
        [subscriptionId],
      );
      expect(rowCount).toBe(1);
    },
  };
}

describe('three nodes, one subscription, PostgreSQL leases and checkpoints', () => {
  it("a paused holder's late write is refused after another node takes over; nothing lost, nothing backward", async () => {
    const report = await runThreeNodeTakeover(await postgresWorld(), { deleteLeasesMidRun: false });
    expect(report.grantedTokens[0]).toBe(0n);
  });

  it('with the lease freed by hand twice mid-run, tokens keep climbing', async () => {
    const report = await runThreeNodeTakeover(await postgresWorld(), { deleteLeasesMidRun: true });
    expect(report.deletedLeases).toBe(2);
    expect(report.grantedTokens.length).toBeGreaterThanOrEqual(4);
  });
});
