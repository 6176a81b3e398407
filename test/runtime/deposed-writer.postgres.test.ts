import { setTimeout as sleep } from 'node:timers/promises';
import { describe, it } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy } from '../../runtime/index.js';
import { noticeWays, runDeposedWriter } from '../support/leases/deposed-writer.js';
import { freshTableName, useSharedPostgres } from '../support/postgres/index.js';

const leaseTimeMs = 600;
const postgres = useSharedPostgres();

describe('FencedCheckpointWriter over PostgresCheckpointStorage and PostgresLeaseStrategy on a real server: a deposed node', () => {
  it.each(noticeWays)('is refused before it notices, and sends nothing after (%s)', async (way) => {
    const table = freshTableName('deposed_writer_checkpoints');
    const leaseTable = freshTableName('deposed_writer_leases');
    const admin = postgres.newPool({ max: 2 });
    await new PostgresCheckpointStorage(admin, { table }).createTable();
    await new PostgresLeaseStrategy(admin, { table: leaseTable }).createTable();
    await runDeposedWriter(
      {
        leaseTimeMs,
        // A pool of its own for every node, as separate processes would have.
        storage: () => new PostgresCheckpointStorage(postgres.newPool({ max: 2 }), { table }),
        strategy: (clock) =>
          new PostgresLeaseStrategy(postgres.newPool({ max: 2 }), {
            table: leaseTable,
            leaseTimeMs,
            ...(clock === undefined ? {} : { clock }),
          }),
        // A lease expires by the database's clock; a margin for a loaded machine.
        expireLeases: () => sleep(leaseTimeMs + 150),
      },
      way,
      'orders',
    );
  });
});
