import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy, PostgresMembership } from '../../runtime/index.js';
import { useSharedPostgres } from '../support/postgres/index.js';
import { builtBin, runCli } from './support/operator-cli.js';
import {
  buildPartitionedState,
  expectPartitionedJson,
  expectPartitionedPrometheus,
  expectPartitionedText,
  type PartitionedState,
  type PartitionedWorld,
} from './support/partitioned-inspection.js';

// Partitioned subscriptions as PostgresMembership, PostgresLeaseStrategy and the storage leave them in the default
// tables of the suite's own database, read by the spawned CLI in text, JSON and Prometheus text.

const postgres = useSharedPostgres();
let world: PartitionedWorld;
let state: PartitionedState;

beforeAll(async () => {
  builtBin();
  const membership = new PostgresMembership(postgres.pool(), { memberTimeMs: 120_000 });
  const storage = new PostgresCheckpointStorage(postgres.pool());
  await Promise.all([
    membership.createTable(),
    storage.createTable(),
    postgres.pool().query(PostgresLeaseStrategy.createTableSql()),
  ]);
  world = {
    membership,
    strategy: (leaseTimeMs = 120_000) =>
      new PostgresLeaseStrategy(postgres.newPool({ max: 2 }), { leaseTimeMs, onError: () => undefined }),
    storage,
    cliStore: ['--postgres', postgres.connectionString],
  };
  state = await buildPartitionedState(world);
}, 60_000);

afterAll(async () => {
  await state.stop();
});

describe('inspect --postgres groups partitioned subscriptions', { timeout: 60_000 }, () => {
  it('in JSON: each group with its members, every partition with its owner, token and checkpoint, unowned flagged', async () => {
    await expectPartitionedJson(world);
  });

  it('in the text report, after the other subscriptions', async () => {
    await expectPartitionedText(world);
  });

  it('in Prometheus text', async () => {
    await expectPartitionedPrometheus(world);
  });

  it('shows a group named by its name', async () => {
    await expectPartitionedJson(world, ['plain', 'orders', 'tenant{x}']);
  });

  it('names a missing --membership-table', async () => {
    const run = await runCli(['inspect', ...world.cliStore, '--membership-table', 'nope']);
    expect(run.status).toBe(2);
    expect(run.stderr).toMatch(
      /^checkpoint-fencing inspect: table nope does not exist \(relation "nope" does not exist\); name the table your application's PostgresMembership uses with --schema and --membership-table\.\n$/u,
    );
  });
});
