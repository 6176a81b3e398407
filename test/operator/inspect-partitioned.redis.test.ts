import { describe } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy, RedisMembership } from '../../runtime/index.js';
import { useSharedRedis } from '../support/redis/index.js';
import { builtBin } from './support/operator-cli.js';
import { itShowsRedisPartitionedSubscriptions } from './support/partitioned-inspection.js';

// Partitioned subscriptions as RedisMembership, RedisLeaseStrategy and the storage leave them on a real redis-server
// (the suite's own database, under the default key prefixes), read by the spawned CLI in text, JSON and Prometheus
// text. The Cluster's file runs the same cases.

const shared = useSharedRedis();

describe('inspect --redis groups partitioned subscriptions', { timeout: 60_000 }, () => {
  itShowsRedisPartitionedSubscriptions(async () => {
    builtBin();
    return {
      membership: new RedisMembership(shared.connect(), { memberTimeMs: 120_000 }),
      strategy: (leaseTimeMs = 120_000) =>
        new RedisLeaseStrategy(shared.connect(), { leaseTimeMs, onError: () => undefined }),
      storage: RedisCheckpointStorage.forStandalone(shared.connect()),
      cliStore: ['--redis', `redis://${shared.host}:${shared.port}/${shared.database}`],
      admin: shared.connect(),
      keyPrefix: '',
    };
  });
});
