import { afterAll, beforeAll, describe } from 'vitest';
import { createPartitionNodeTables } from '../../support/partitions/partition-node-processes.js';
import { itRunsPartitionedProcesses } from '../../support/partitions/partitioned-process-cases.js';
import { startPgBouncer, useSharedPostgres, type PgBouncerProcess } from '../../support/postgres/index.js';
import { startRedisServer } from '../../support/redis/index.js';

// Issue 36 on PostgreSQL: the same node processes, their shared log (read per `from` with a query), checkpoints, leases,
// members and projection in fresh tables of this suite's database, reached through a pgbouncer in transaction mode (a
// node's statements run on whichever server session is free). Only the test's records of handled events stay on a
// redis-server of each test's own.

const database = useSharedPostgres();
const bouncerOptions = { poolMode: 'transaction', poolSize: 6 } as const;
let bouncer: PgBouncerProcess | undefined;
beforeAll(async () => {
  bouncer = await startPgBouncer(database, bouncerOptions);
});
afterAll(async () => {
  await bouncer?.stop();
});

describe('PartitionedSubscription processes on PostgreSQL through pgbouncer', { timeout: 90_000 }, () => {
  itRunsPartitionedProcesses({
    restartsStore: true,
    start: async () => {
      const tables = await createPartitionNodeTables(database.pool());
      const server = await startRedisServer();
      return {
        port: server.port,
        postgres: { connectionString: bouncer?.connectionString ?? '', tables },
        // The nodes' store restarting, as they see it: the pgbouncer, on the same port.
        restartStore: async () => {
          const port = bouncer?.port;
          await bouncer?.stop();
          bouncer = await startPgBouncer(database, { ...bouncerOptions, ...(port === undefined ? {} : { port }) });
        },
        stop: () => server.stop(),
      };
    },
  });
});
