import { afterAll, beforeAll, describe } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy, PostgresMembership } from '../../../runtime/index.js';
import { itRunsPartitionedProcesses } from '../../support/partitions/partitioned-process-cases.js';
import {
  freshTableName,
  startPgBouncer,
  useSharedPostgres,
  type PgBouncerProcess,
} from '../../support/postgres/index.js';
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
      const tables = {
        log: freshTableName('log'),
        checkpoints: freshTableName('checkpoints'),
        leases: freshTableName('leases'),
        members: freshTableName('members'),
        projection: freshTableName('projection'),
      };
      const admin = database.pool();
      await admin.query(`CREATE TABLE "${tables.log}" (position bigint PRIMARY KEY, event text NOT NULL)`);
      await new PostgresCheckpointStorage(admin, { table: tables.checkpoints }).createTable();
      await new PostgresCheckpointStorage(admin, { table: tables.projection }).createTable();
      await new PostgresLeaseStrategy(admin, { table: tables.leases }).createTable();
      await new PostgresMembership(admin, { table: tables.members }).createTable();
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
