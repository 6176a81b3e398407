import type pg from 'pg';
import { describe, expect, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../../runtime/index.js';
import { runLostCounterRecovery } from '../../support/leases/lost-counter-recovery.js';
import { freshTableName, useSharedPostgres } from '../../support/postgres/index.js';

// Issue 11, defect 1, on PostgreSQL: the lease row is also the token counter (ADR 0803), so deleting it (by hand, or a
// restore of an older backup of the lease table) loses both, and the next grant mints 0 again over a stored version.

const leaseTimeMs = 600;
const postgres = useSharedPostgres();
/** A pool of its own for every node, as separate processes would have. */
const connect = (): pg.Pool => postgres.newPool({ max: 4 });

describe('DurableSubscription on a real PostgreSQL server, when the lease row and its token counter are deleted mid-run', () => {
  it('resumes within two lease times with the next token above the stored version; nothing moves backward', async () => {
    const table = freshTableName('lost_counter_checkpoints');
    const leaseTable = freshTableName('lost_counter_leases');
    const admin = connect();
    await new PostgresCheckpointStorage(admin, { table }).createTable();
    await new PostgresLeaseStrategy(admin, { table: leaseTable }).createTable();
    const report = await runLostCounterRecovery({
      leaseTimeMs,
      strategy: () => new PostgresLeaseStrategy(connect(), { table: leaseTable, leaseTimeMs }),
      storage: () => new PostgresCheckpointStorage(connect(), { table }),
      loseLeaseAndCounter: async (subscriptionId) => {
        const { rowCount } = await admin.query(`DELETE FROM "${leaseTable}" WHERE subscription_id = $1`, [
          subscriptionId,
        ]);
        expect(rowCount).toBe(1);
      },
    });
    expect(report.grantsAfterLoss).toContain(report.versionBeforeLoss + 1n);
    const { rows } = await admin.query<{ token: string }>(
      `SELECT token::text AS token FROM "${leaseTable}" WHERE subscription_id = $1`,
      ['orders'],
    );
    expect(BigInt(rows[0]?.token ?? '-1')).toBeGreaterThan(report.versionBeforeLoss);
  });
});
