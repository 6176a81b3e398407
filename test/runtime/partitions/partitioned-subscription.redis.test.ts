import { describe } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy, RedisMembership } from '../../../runtime/index.js';
import { itHandsPartitionsOver } from '../../support/partitions/partitioned-scenario.js';
import { useSharedRedis } from '../../support/redis/index.js';

const redis = useSharedRedis();
let cases = 0;

describe('PartitionedSubscription on a real redis-server, three nodes in one process', () => {
  itHandsPartitionsOver({
    leaseTimeMs: 900,
    memberTimeMs: 360,
    prepare: async () => {
      cases += 1;
      const prefix = `partitioned-${cases}:`;
      const client = (): ReturnType<typeof redis.connect> => redis.connect();
      return {
        storage: () => new RedisCheckpointStorage(client(), { keyPrefix: `${prefix}checkpoint:` }),
        strategy: () => new RedisLeaseStrategy(client(), { keyPrefix: `${prefix}lease:`, leaseTimeMs: 900 }),
        membership: () => new RedisMembership(client(), { keyPrefix: `${prefix}members:`, memberTimeMs: 360 }),
      };
    },
  });
});
