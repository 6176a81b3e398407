import { describe } from 'vitest';
import { PostgresCheckpointStorage, PostgresLeaseStrategy, PostgresMembership } from '../../../runtime/index.js';
import { itHandsPartitionsOver } from '../../support/partitions/partitioned-scenario.js';
import { freshTableName, pgBouncerForThisFile } from '../../support/postgres/index.js';

// Through this file's pgbouncer in transaction mode: a node's statements run on whichever session is free.
const postgres = pgBouncerForThisFile();

describe('PartitionedSubscription on PostgreSQL through pgbouncer, three nodes in one process', () => {
  itHandsPartitionsOver({
    leaseTimeMs: 900,
    memberTimeMs: 360,
    prepare: async () => {
      const [checkpoints, leases, members] = [
        freshTableName('checkpoints'),
        freshTableName('leases'),
        freshTableName('members'),
      ];
      const admin = postgres.database.pool();
      await new PostgresCheckpointStorage(admin, { table: checkpoints }).createTable();
      await new PostgresLeaseStrategy(admin, { table: leases }).createTable();
      await new PostgresMembership(admin, { table: members }).createTable();
      const pool = (): ReturnType<typeof postgres.pool> => postgres.pool(0);
      return {
        storage: () => new PostgresCheckpointStorage(pool(), { table: checkpoints }),
        strategy: () => new PostgresLeaseStrategy(pool(), { table: leases, leaseTimeMs: 900 }),
        membership: () => new PostgresMembership(pool(), { table: members, memberTimeMs: 360 }),
      };
    },
  });
});
