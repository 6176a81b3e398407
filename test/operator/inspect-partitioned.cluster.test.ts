import { describe } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy, RedisMembership } from '../../runtime/index.js';
import { useSharedRedisCluster } from '../support/redis/index.js';
import { builtBin } from './support/operator-cli.js';
import { itShowsRedisPartitionedSubscriptions } from './support/partitioned-inspection.js';

// The standalone file's cases on the shared three-master Cluster, under the suite's own prefixes: each membership's
// two keys share one hash tag, while the memberships, the partitions' checkpoints and their leases spread over the
// masters, so inspect must scan every master and read each membership on the master of its slot.

const cluster = useSharedRedisCluster();

describe('inspect --cluster groups partitioned subscriptions', { timeout: 60_000 }, () => {
  itShowsRedisPartitionedSubscriptions(async () => {
    builtBin();
    const [seed] = cluster.nodes;
    const prefix = cluster.freshPrefix();
    const [keyPrefix, versionKeyPrefix, leaseKeyPrefix, membershipKeyPrefix] = [
      'cp',
      'version',
      'lease',
      'members',
    ].map((kind) => `${prefix}${kind}:`) as [string, string, string, string];
    return {
      membership: new RedisMembership(cluster.connect(), { keyPrefix: membershipKeyPrefix, memberTimeMs: 120_000 }),
      strategy: (leaseTimeMs = 120_000) =>
        new RedisLeaseStrategy(cluster.connect(), { keyPrefix: leaseKeyPrefix, leaseTimeMs, onError: () => undefined }),
      storage: new RedisCheckpointStorage(cluster.connect(), { keyPrefix, versionKeyPrefix }),
      cliStore: [
        '--cluster',
        '--redis',
        `redis://${seed?.host ?? ''}:${seed?.port ?? 0}`,
        ...['--key-prefix', keyPrefix, '--version-key-prefix', versionKeyPrefix],
        ...['--lease-key-prefix', leaseKeyPrefix, '--membership-key-prefix', membershipKeyPrefix],
      ],
      admin: cluster.connect(),
      keyPrefix: prefix,
    };
  });
});
