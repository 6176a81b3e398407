import type { Cluster } from 'ioredis';
import { beforeAll, describe, expect, it } from 'vitest';
import { RedisCheckpointStorage, RedisLeaseStrategy } from '../../runtime/index.js';
import { redisLeaseKeys } from '../../runtime/store-layout-entry.js';
import { useSharedRedisCluster } from '../support/redis/index.js';
import { builtBin } from './support/operator-cli.js';
import { runRepairOnStuckNodes } from './support/repair-resumes-delivery.js';

const shared = useSharedRedisCluster();
const leaseTimeMs = 1_500;
const keyPrefix = `${shared.keyPrefix}repair:`;
/** A Cluster client of its own for every node, as separate processes would have. */
const connect = (): Cluster => shared.connect({ redisOptions: { commandTimeout: 2_000 } });

beforeAll(() => {
  builtBin();
}, 180_000);

describe('repair --raise-token on a real three-master Redis Cluster, under two live DurableSubscription nodes', () => {
  it(
    'resumes delivery within two lease times, with nothing replayed from before the stored checkpoint',
    { timeout: 60_000 },
    async () => {
      const admin = connect();
      const [seed] = shared.nodes;
      const storageOptions = { keyPrefix: `${keyPrefix}checkpoint:`, versionKeyPrefix: `${keyPrefix}version:` };
      const report = await runRepairOnStuckNodes({
        leaseTimeMs,
        strategy: () =>
          new RedisLeaseStrategy(connect(), { keyPrefix: `${keyPrefix}lease:`, leaseTimeMs, onError: () => undefined }),
        storage: () => new RedisCheckpointStorage(connect(), storageOptions),
        raiseTokenFloor: (id, version) =>
          new RedisLeaseStrategy(admin, { keyPrefix: `${keyPrefix}lease:` }).raiseFencingTokenAbove(id, version),
        loseLeaseAndCounter: async (id) => {
          const { lease, token } = redisLeaseKeys(`${keyPrefix}lease:`, id);
          expect(await admin.del(lease, token)).toBe(2);
        },
        cliStore: [
          '--cluster',
          '--redis',
          `redis://${seed?.host ?? ''}:${seed?.port ?? 0}`,
          '--key-prefix',
          storageOptions.keyPrefix,
          '--version-key-prefix',
          storageOptions.versionKeyPrefix,
          '--lease-key-prefix',
          `${keyPrefix}lease:`,
        ],
      });
      expect(report.storedVersion).toBeGreaterThan(40n);
    },
  );
});
