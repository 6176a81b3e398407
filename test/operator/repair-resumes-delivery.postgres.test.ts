import type pg from 'pg';
import { beforeAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../runtime/index.js';
import { useSharedPostgres } from '../support/postgres/index.js';
import { builtBin } from './support/operator-cli.js';
import { runRepairOnStuckNodes } from './support/repair-resumes-delivery.js';

// On PostgreSQL the lease row is also the token counter (ADR 0803): deleting it loses both.

const postgres = useSharedPostgres();
const leaseTimeMs = 1_500;
/** A pool of its own for every node, as separate processes would have. */
const connect = (): pg.Pool => postgres.newPool({ max: 4 });

beforeAll(() => {
  builtBin();
}, 180_000);

describe('repair --raise-token on a real PostgreSQL server, under two live DurableSubscription nodes', () => {
  it(
    'resumes delivery within two lease times, with nothing replayed from before the stored checkpoint',
    { timeout: 60_000 },
    async () => {
      const admin = connect();
      await new PostgresCheckpointStorage(admin).createTable();
      await new PostgresLeaseStrategy(admin).createTable();
      const report = await runRepairOnStuckNodes({
        leaseTimeMs,
        strategy: () => new PostgresLeaseStrategy(connect(), { leaseTimeMs, onError: () => undefined }),
        storage: () => new PostgresCheckpointStorage(connect()),
        raiseTokenFloor: (id, version) => new PostgresLeaseStrategy(admin).raiseFencingTokenAbove(id, version),
        loseLeaseAndCounter: async (id) => {
          const { rowCount } = await admin.query('DELETE FROM checkpoint_fencing_leases WHERE subscription_id = $1', [
            id,
          ]);
          expect(rowCount).toBe(1);
        },
        cliStore: ['--postgres', postgres.connectionString],
      });
      expect(report.storedVersion).toBeGreaterThan(40n);
    },
  );
});
