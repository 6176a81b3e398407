import { describe, expect, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy, PostgresMembership } from '../../runtime/index.js';
import { useSharedPostgres } from '../support/postgres/index.js';
import { builtBin, runCli } from './support/operator-cli.js';
import { itShowsPartitionedSubscriptions } from './support/partitioned-inspection.js';

// Partitioned subscriptions as PostgresMembership, PostgresLeaseStrategy and the storage leave them in the default
// tables of the suite's own database, read by the spawned CLI in text, JSON and Prometheus text.

const postgres = useSharedPostgres();

describe('inspect --postgres groups partitioned subscriptions', { timeout: 60_000 }, () => {
  const world = itShowsPartitionedSubscriptions(async () => {
    builtBin();
    const membership = new PostgresMembership(postgres.pool(), { memberTimeMs: 120_000 });
    const storage = new PostgresCheckpointStorage(postgres.pool());
    await Promise.all([
      membership.createTable(),
      storage.createTable(),
      postgres.pool().query(PostgresLeaseStrategy.createTableSql()),
    ]);
    return {
      membership,
      strategy: (leaseTimeMs = 120_000) =>
        new PostgresLeaseStrategy(postgres.newPool({ max: 2 }), { leaseTimeMs, onError: () => undefined }),
      storage,
      cliStore: ['--postgres', postgres.connectionString],
    };
  });

  it('names a missing --membership-table', async () => {
    const run = await runCli(['inspect', ...world().cliStore, '--membership-table', 'nope']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^checkpoint-fencing inspect: table nope does not exist \(relation "nope" does not exist\); name the table your application's PostgresMembership uses with --schema and --membership-table\.\n$/u,
    );
  });
});
