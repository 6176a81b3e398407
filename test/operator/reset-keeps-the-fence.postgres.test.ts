import type pg from 'pg';
import { beforeAll, describe, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../runtime/index.js';
import { useSharedPostgres } from '../support/postgres/index.js';
import { builtBin } from './support/operator-cli.js';
import {
  runResetAfterTheConsumersStopped,
  runResetUnderALiveLease,
  type ResetWorld,
} from './support/reset-keeps-the-fence.js';

const postgres = useSharedPostgres();
/** A pool of its own for every node, as separate processes would have. */
const connect = (): pg.Pool => postgres.newPool({ max: 4 });
let world: ResetWorld;

beforeAll(async () => {
  builtBin();
  const admin = connect();
  await new PostgresCheckpointStorage(admin).createTable();
  await new PostgresLeaseStrategy(admin).createTable();
  world = {
    strategy: () => new PostgresLeaseStrategy(connect(), { leaseTimeMs: 1_500, onError: () => undefined }),
    storage: () => new PostgresCheckpointStorage(connect()),
    raiseTokenFloor: (id, version) => new PostgresLeaseStrategy(admin).raiseFencingTokenAbove(id, version),
    cliStore: ['--postgres', postgres.connectionString],
  };
}, 180_000);

describe('reset on a real PostgreSQL server keeps the fence', { timeout: 60_000 }, () => {
  it('refuses a subscription with a live lease, and changes nothing', async () => {
    await runResetUnderALiveLease(world);
  });

  it('refuses every earlier holder after the reset, and the next holder delivers from the start position', async () => {
    await runResetAfterTheConsumersStopped(world);
  });
});
