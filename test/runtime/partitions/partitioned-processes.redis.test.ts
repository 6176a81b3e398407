import { describe } from 'vitest';
import { itRunsPartitionedProcesses } from '../../support/partitions/partitioned-process-cases.js';
import { startRedisServer } from '../../support/redis/index.js';

// Issue 36: node processes of one PartitionedSubscription on a redis-server of each test's own (one is restarted, with
// its append-only file so that it keeps what it held); the cases are shared with the PostgreSQL file.

describe('PartitionedSubscription processes on Redis', { timeout: 90_000 }, () => {
  itRunsPartitionedProcesses({
    restartsStore: true,
    start: async (durable) => {
      const server = await startRedisServer({
        args: durable ? ['--appendonly', 'yes', '--appendfsync', 'always'] : [],
      });
      return { port: server.port, restartStore: () => server.restart(), stop: () => server.stop() };
    },
  });
});
